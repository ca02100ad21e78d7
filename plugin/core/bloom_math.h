// Sizing math for Bloom filters: probes and memory from a target, and the
// FP rate a configuration is predicted to have. Used by the builders, the
// tests (Poisson bounds around the prediction) and the benchmarks.
#pragma once

#include <cstddef>

namespace sstfilter {

// Largest probe count any sstfilter Bloom kind writes or accepts. Optimal k is
// bits_per_key * ln 2, so 64 covers budgets up to 92 bits per key.
constexpr int kMaxBloomProbes = 64;

// Accepted configuration range for bits per key of a standard Bloom filter.
// Below 1 bit per key the FP rate exceeds 60%; above 100 it is under 1e-20
// and the memory is better spent elsewhere.
constexpr double kMinBitsPerKey = 1.0;
constexpr double kMaxBitsPerKey = 100.0;

// FP rate of a standard Bloom filter of `num_bits` bits holding `num_keys`
// distinct keys with `num_probes` independent probes:
//   (1 - (1 - 1/m)^(k n))^k
// (Bloom 1970; the classic approximation 1 - e^(-kn/m) is this with m large).
// 0 keys -> 0. Defined for num_bits >= 1, num_probes >= 1.
double StandardBloomFpRate(double num_keys, double num_bits, int num_probes);

// The same in the large-m limit, as a function of bits per key only.
double StandardBloomFpRate(double bits_per_key, int num_probes);

// Integer probe count minimising StandardBloomFpRate at this bits per key
// (k* = bits_per_key * ln 2, rounded to whichever neighbour is better),
// clamped to [1, kMaxBloomProbes].
int OptimalStandardBloomProbes(double bits_per_key);

// Smallest bits per key whose optimal integer-k standard Bloom filter has a
// predicted FP rate <= fp_rate. For 1% this is 9.61 (7 probes), close to the
// textbook -ln(p)/ln(2)^2 = 9.585, which assumes fractional k. Returns a
// value > kMaxBitsPerKey when fp_rate is too small to reach within it.
double StandardBloomBitsPerKeyForFpRate(double fp_rate);

}  // namespace sstfilter
