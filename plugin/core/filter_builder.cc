#include "plugin/core/filter_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "plugin/core/bloom_math.h"
#include "plugin/core/standard_bloom.h"

namespace sstfilter {

const char* KindName(FilterKind kind) {
  switch (kind) {
    case FilterKind::kAlwaysFalse: return "AlwaysFalse";
    case FilterKind::kAlwaysTrue: return "AlwaysTrue";
    case FilterKind::kStandardBloom: return "StandardBloom";
    case FilterKind::kBlockedBloom: return "BlockedBloom";
    case FilterKind::kRibbon: return "Ribbon";
  }
  return "Unknown";
}

double BitsPerKeyForFpRate(FilterKind kind, double fp_rate) {
  switch (kind) {
    default:
      return StandardBloomBitsPerKeyForFpRate(fp_rate);
  }
}

size_t FilterBuilder::PayloadBytes(size_t num_keys) const {
  if (num_keys == 0) return 0;
  const double bits = std::ceil(config_.bits_per_key * static_cast<double>(num_keys));
  return static_cast<size_t>(std::ceil(bits / 8.0));
}

size_t FilterBuilder::BytesForKeys(size_t num_keys) const {
  return PayloadBytes(num_keys) + kTrailerBytes;
}

size_t FilterBuilder::KeysForBytes(size_t len_bytes) const {
  if (len_bytes <= kTrailerBytes) return 0;
  const double payload_bits = 8.0 * static_cast<double>(len_bytes - kTrailerBytes);
  size_t n = static_cast<size_t>(payload_bits / config_.bits_per_key);
  // Floating-point rounding may overshoot by one either way; settle exactly.
  while (n > 0 && BytesForKeys(n) > len_bytes) --n;
  while (BytesForKeys(n + 1) <= len_bytes) ++n;
  return n;
}

double FilterBuilder::PredictedFpRate(size_t num_keys, size_t len_bytes) const {
  if (num_keys == 0) return 0.0;
  if (len_bytes <= kTrailerBytes) return 1.0;
  const double bits = 8.0 * static_cast<double>(len_bytes - kTrailerBytes);
  const double n = static_cast<double>(num_keys);
  return StandardBloomFpRate(n, bits, OptimalStandardBloomProbes(bits / n));
}

std::unique_ptr<char[]> FilterBuilder::Finish(size_t* len_bytes) {
  const size_t n = hashes_.size();
  const size_t payload_bytes = PayloadBytes(n);
  *len_bytes = payload_bytes + kTrailerBytes;
  std::unique_ptr<char[]> block(new char[*len_bytes]());
  Trailer t;
  t.num_keys = static_cast<uint32_t>(
      std::min<size_t>(n, std::numeric_limits<uint32_t>::max()));
  if (n == 0) {
    t.kind = FilterKind::kAlwaysFalse;
  } else {
    t.kind = FilterKind::kStandardBloom;
    const uint64_t num_bits = 8 * static_cast<uint64_t>(payload_bytes);
    const int probes = OptimalStandardBloomProbes(
        static_cast<double>(num_bits) / static_cast<double>(n));
    t.params = static_cast<uint32_t>(probes);
    auto* data = reinterpret_cast<uint8_t*>(block.get());
    for (uint64_t h : hashes_) standard_bloom::Add(h, num_bits, probes, data);
  }
  EncodeTrailer(t, payload_bytes, block.get() + payload_bytes);
  hashes_.clear();
  return block;
}

}  // namespace sstfilter
