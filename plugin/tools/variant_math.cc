#include "plugin/tools/variant_math.h"

#include <algorithm>
#include <cmath>

#include "plugin/core/bloom_math.h"

namespace sstfilter {
namespace {

// The best whole-k standard Bloom filter for fp_rate, as bloom_math sizes
// sstfilter.StandardBloom.
VariantSizing StandardBloom(double fp_rate) {
  VariantSizing s;
  s.bits_per_key = StandardBloomBitsPerKeyForFpRate(fp_rate);
  s.reachable = s.bits_per_key <= kMaxBitsPerKey;
  s.probes = OptimalStandardBloomProbes(s.bits_per_key);
  s.fp_rate = StandardBloomFpRate(s.bits_per_key, s.probes);
  return s;
}

// A static filter of `slots_per_key` whole-bit fingerprints per key whose
// query compares one fingerprint: FP rate 2^-f.
VariantSizing StaticFingerprints(double slots_per_key, double fp_rate, int accesses) {
  VariantSizing s;
  s.fingerprint_bits = WholeFingerprintBits(fp_rate);
  s.bits_per_key = slots_per_key * s.fingerprint_bits;
  s.fp_rate = std::ldexp(1.0, -s.fingerprint_bits);
  s.probes = accesses;
  return s;
}

}  // namespace

int WholeFingerprintBits(double fp_rate) {
  // The slack keeps an exact power of two, p = 2^-7, at f = 7 whatever
  // log2 rounds to.
  return std::max(1, static_cast<int>(std::ceil(std::log2(1.0 / fp_rate) - 1e-9)));
}

VariantSizing CountingBloomSizing(double fp_rate) {
  VariantSizing s = StandardBloom(fp_rate);
  s.bits_per_key *= kCountingBloomCounterBits;
  s.fingerprint_bits = kCountingBloomCounterBits;
  return s;
}

VariantSizing CuckooSizing(double fp_rate) {
  constexpr int kSlotsCompared = 2 * kCuckooBucketSlots;  // 2 buckets of b
  VariantSizing s;
  s.fingerprint_bits = WholeFingerprintBits(fp_rate / kSlotsCompared);  // log2(2b/p)
  s.bits_per_key = s.fingerprint_bits / kCuckooLoad;
  s.fp_rate = -std::expm1(kSlotsCompared * std::log1p(-std::ldexp(1.0, -s.fingerprint_bits)));
  s.probes = 2;
  return s;
}

ScalableBloomChain ScalableBloomSizing(double num_keys, double fp_rate) {
  ScalableBloomChain chain;
  VariantSizing& total = chain.total;
  if (!(num_keys > 0)) return chain;
  double capacity = kScalableFirstShare * num_keys;
  double filter_fp = fp_rate * (1 - kScalableTightening);
  double keys_left = num_keys;
  double bits = 0;
  double none_match = 1;  // chance a negative query passes every filter
  while (keys_left > 0) {
    const VariantSizing f = StandardBloom(filter_fp);
    const double keys = std::min(keys_left, capacity);
    chain.capacity_keys.push_back(capacity);
    chain.fp_rates.push_back(filter_fp);
    chain.probes.push_back(f.probes);
    total.reachable = total.reachable && f.reachable;
    total.probes += f.probes;
    bits += f.bits_per_key * capacity;  // allocated in full when added
    none_match *= 1 - StandardBloomFpRate(f.bits_per_key * capacity / keys, f.probes);
    keys_left -= keys;  // exactly 0 once the last filter takes the rest
    capacity *= kScalableGrowth;
    filter_fp *= kScalableTightening;
  }
  total.bits_per_key = bits / num_keys;
  total.fp_rate = 1 - none_match;
  return chain;
}

VariantSizing XorSizing(double num_keys, double fp_rate) {
  const double slots = std::floor(kXorSlotsPerKey * num_keys) + kXorExtraSlots;
  return StaticFingerprints(slots / num_keys, fp_rate, 3);
}

double BinaryFuseSizeFactor(double num_keys, int arity) {
  // One key is sized as two: ln 1 = 0.
  const double ln_n = std::log(std::max(num_keys, 2.0));
  if (arity == 3) return std::max(1.125, 0.875 + 0.25 * std::log(1e6) / ln_n);
  return std::max(1.075, 0.77 + 0.305 * std::log(600000.0) / ln_n);
}

VariantSizing BinaryFuseSizing(double num_keys, double fp_rate, int arity) {
  return StaticFingerprints(BinaryFuseSizeFactor(num_keys, arity), fp_rate, arity);
}

}  // namespace sstfilter
