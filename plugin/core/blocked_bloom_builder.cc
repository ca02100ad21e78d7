// Builder side of the cache-blocked Bloom filter (kernel in blocked_bloom.h).
#include <algorithm>
#include <cmath>

#include "plugin/core/blocked_bloom.h"
#include "plugin/core/kind_ops.h"

namespace sstfilter {
namespace {

using blocked_bloom::kLineBytes;

size_t NumLines(const FilterConfig& config, size_t num_keys) {
  const double bits = std::ceil(config.bits_per_key * static_cast<double>(num_keys));
  return std::max<size_t>(1, static_cast<size_t>(std::ceil(bits / kBlockedLineBits)));
}

size_t PayloadBytes(const FilterConfig& config, size_t num_keys) {
  return NumLines(config, num_keys) * kLineBytes;
}

int Probes(const FilterConfig& config, size_t num_keys, size_t payload_bytes) {
  return OptimalBlockedBloomProbes(
      8.0 * static_cast<double>(payload_bytes) / static_cast<double>(num_keys),
      config.lines_per_key);
}

// Adds hashes[0..n) to the filter with whichever kernel the CPU runs.
void AddChunk(const uint64_t* hashes, size_t n, uint64_t num_lines, int probes, int lines,
              uint8_t* payload) {
  if (blocked_bloom::Avx2Available()) {
    blocked_bloom::AddAllAvx2(hashes, n, num_lines, probes, lines, payload);
  } else {
    blocked_bloom::AddAll(hashes, n, num_lines, probes, lines, payload);
  }
}

bool Build(const FilterConfig& config, BuildHashes& hashes, uint8_t* payload,
           size_t payload_bytes, Trailer* trailer) {
  FilterConfig c = config;
  c.lines_per_key = std::clamp(config.lines_per_key, 1, kMaxBlockedLinesPerKey);
  const int probes = Probes(c, hashes.size(), payload_bytes);
  const uint64_t num_lines = payload_bytes / kLineBytes;
  hashes.ForEachChunk([&](const uint64_t* h, size_t n) {
    AddChunk(h, n, num_lines, probes, c.lines_per_key, payload);
  });
  trailer->params =
      static_cast<uint32_t>(probes) | (static_cast<uint32_t>(c.lines_per_key) << 8);
  trailer->seed = 0;
  return true;
}

double PredictedFpRate(const FilterConfig& config, size_t num_keys, size_t payload_bytes) {
  const double lines = static_cast<double>(payload_bytes / kLineBytes);
  if (lines < 1) return 1.0;
  const int lpk = std::clamp(config.lines_per_key, 1, kMaxBlockedLinesPerKey);
  FilterConfig c = config;
  c.lines_per_key = lpk;
  return BlockedBloomFpRate(static_cast<double>(num_keys), lines,
                            Probes(c, num_keys, payload_bytes), lpk);
}

double BitsPerKeyForFp(const FilterConfig& config, double fp_rate) {
  return BlockedBloomBitsPerKeyForFpRate(
      fp_rate, std::clamp(config.lines_per_key, 1, kMaxBlockedLinesPerKey));
}

}  // namespace

const KindOps kBlockedBloomOps = {PayloadBytes, Build, PredictedFpRate, BitsPerKeyForFp,
                                  /*payload_granularity_bytes=*/kLineBytes,
                                  /*scratch_bytes_per_key=*/0};

}  // namespace sstfilter
