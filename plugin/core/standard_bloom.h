// Standard Bloom filter (Bloom 1970): one bit array of m bits, k probes
// spread over the whole array. At equal memory it has the lowest FP rate of
// the Bloom family (0.82% at 10 bits/key, k=7, vs 0.96% for RocksDB's
// cache-local FastLocalBloom), paid for with up to k cache misses per
// positive query; a negative query stops at the first zero bit, after
// 1/(1 - fill) ~ 2 probes on average at the optimal k.
//
// Probes: enhanced double hashing (Dillinger & Manolios, FMCAD 2004) over
// the full 64-bit hash, each probe reduced to [0, m) with FastRange64. Doing
// the arithmetic in 64 bits before the reduction avoids the FP-rate
// degradation of 32-bit double hashing on large filters (RocksDB's legacy
// Bloom filter, see its bloom_impl.h).
//
// Kernel contract: `data` holds ceil(num_bits / 8) bytes, bit i is
// data[i / 8] >> (i % 8) & 1; 1 <= num_probes <= kMaxBloomProbes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "plugin/core/bloom_math.h"
#include "plugin/core/format.h"
#include "plugin/core/hash.h"
#include "plugin/core/prefetch.h"

namespace sstfilter {

namespace standard_bloom {

// The second hash of the double-hashing pair. Rotating brings the low half
// of h to the top, where FastRange64 looks; the odd multiplier (golden
// ratio) mixes it with the rest so the two halves of a probe pair decorrelate.
inline uint64_t Delta(uint64_t h) {
  return ((h << 32) | (h >> 32)) * 0x9E3779B97F4A7C15ULL;
}

inline void Add(uint64_t h, uint64_t num_bits, int num_probes, uint8_t* data) {
  uint64_t a = h, b = Delta(h);
  for (int i = 0; i < num_probes; ++i) {
    const uint64_t bit = FastRange64(a, num_bits);
    data[bit >> 3] |= static_cast<uint8_t>(1u << (bit & 7));
    a += b;
    b += static_cast<uint64_t>(i);
  }
}

inline bool MayMatch(uint64_t h, uint64_t num_bits, int num_probes,
                     const uint8_t* data) {
  uint64_t a = h, b = Delta(h);
  for (int i = 0; i < num_probes; ++i) {
    const uint64_t bit = FastRange64(a, num_bits);
    if ((data[bit >> 3] & (1u << (bit & 7))) == 0) return false;
    a += b;
    b += static_cast<uint64_t>(i);
  }
  return true;
}

// Prefetches the lines of the first two probes: a negative query reads about
// two bits on average, so prefetching all k would mostly waste bandwidth.
inline void Prefetch(uint64_t h, uint64_t num_bits, const uint8_t* data) {
  const uint64_t a = h, b = Delta(h);
  PrefetchForRead(data + (FastRange64(a, num_bits) >> 3));
  PrefetchForRead(data + (FastRange64(a + b, num_bits) >> 3));
}

}  // namespace standard_bloom

// Reader over a trusted block (see format.h). params: bits 0-7 num_probes
// (1..kMaxBloomProbes), bits 8-31 reserved, zero. The bit count is the whole
// payload, 8 * payload_bytes, so no length field can disagree with it.
class StandardBloomReader {
 public:
  // False when the block's kind or parameters are not a valid standard Bloom
  // filter; the caller then answers "may match".
  static bool Init(const ParsedBlock& block, StandardBloomReader* out) {
    const uint32_t probes = block.trailer.params & 0xFF;
    if (block.trailer.kind != FilterKind::kStandardBloom ||
        (block.trailer.params >> 8) != 0 || probes < 1 ||
        probes > kMaxBloomProbes || block.payload_bytes == 0) {
      return false;
    }
    out->data_ = block.payload;
    out->num_bits_ = 8 * static_cast<uint64_t>(block.payload_bytes);
    out->num_probes_ = static_cast<int>(probes);
    out->seed_ = block.trailer.seed;
    return true;
  }
  bool MayMatch(uint64_t key_hash) const {
    return standard_bloom::MayMatch(SeededHash(key_hash, seed_), num_bits_,
                                    num_probes_, data_);
  }
  void Prefetch(uint64_t key_hash) const {
    standard_bloom::Prefetch(SeededHash(key_hash, seed_), num_bits_, data_);
  }
  int num_probes() const { return num_probes_; }
  uint64_t num_bits() const { return num_bits_; }

 private:
  const uint8_t* data_ = nullptr;
  uint64_t num_bits_ = 0;
  int num_probes_ = 0;
  uint32_t seed_ = 0;
};

}  // namespace sstfilter
