// Builder side of the standard Bloom filter (kernel in standard_bloom.h).
#include <cmath>

#include "plugin/core/bloom_math.h"
#include "plugin/core/kind_ops.h"
#include "plugin/core/standard_bloom.h"

namespace sstfilter {
namespace {

size_t PayloadBytes(const FilterConfig& config, size_t num_keys) {
  const double bits = std::ceil(config.bits_per_key * static_cast<double>(num_keys));
  return static_cast<size_t>(std::ceil(bits / 8.0));
}

// k is chosen for the actual bits per key after rounding up to whole bytes.
int Probes(size_t num_keys, size_t payload_bytes) {
  return OptimalStandardBloomProbes(8.0 * static_cast<double>(payload_bytes) /
                                    static_cast<double>(num_keys));
}

bool Build(const FilterConfig&, BuildHashes& hashes, uint8_t* payload, size_t payload_bytes,
           Trailer* trailer) {
  const uint64_t num_bits = 8 * static_cast<uint64_t>(payload_bytes);
  const int probes = Probes(hashes.size(), payload_bytes);
  hashes.ForEachChunk([&](const uint64_t* h, size_t n) {
    for (size_t i = 0; i < n; ++i) standard_bloom::Add(h[i], num_bits, probes, payload);
  });
  trailer->params = static_cast<uint32_t>(probes);
  trailer->seed = 0;
  return true;
}

double PredictedFpRate(const FilterConfig&, size_t num_keys, size_t payload_bytes) {
  if (payload_bytes == 0) return 1.0;
  return StandardBloomFpRate(static_cast<double>(num_keys),
                             8.0 * static_cast<double>(payload_bytes),
                             Probes(num_keys, payload_bytes));
}

double BitsPerKeyForFp(const FilterConfig&, double fp_rate) {
  return StandardBloomBitsPerKeyForFpRate(fp_rate);
}

}  // namespace

const KindOps kStandardBloomOps = {PayloadBytes, Build, PredictedFpRate, BitsPerKeyForFp,
                                   /*payload_granularity_bytes=*/1,
                                   /*scratch_bytes_per_key=*/0};

}  // namespace sstfilter
