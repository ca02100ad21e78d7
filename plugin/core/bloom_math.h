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

// --- Cache-blocked Bloom filters (blocked_bloom.h) ---------------------------
// Every key sets `probes_per_line` bits in each of `lines_per_key`
// independently chosen 512-bit lines. A line's load (key touches) is
// Binomial(num_keys * lines_per_key, 1 / num_lines), and the FP rate is
//   ( E_load[ (1 - (1 - 1/512)^(load * k))^k ] )^lines_per_key
// (Putze, Sanders, Singler, "Cache-, hash- and space-efficient Bloom
// filters", JEA 2009). The load variance is why a blocked filter needs more
// memory than a standard one at the same FP rate, and why its best k is
// lower. The expectation is exact (bloom_math.cc), not the textbook
// approximation, which is 1-3% low.
constexpr int kBlockedLineBits = 512;
constexpr int kMaxBlockedProbesPerLine = 32;
constexpr int kMaxBlockedLinesPerKey = 2;

double BlockedBloomFpRate(double num_keys, double num_lines, int probes_per_line,
                          int lines_per_key);

// Large-n limit as a function of bits per key (load ~ Poisson).
double BlockedBloomFpRate(double bits_per_key, int probes_per_line, int lines_per_key);

// probes_per_line in [1, kMaxBlockedProbesPerLine] minimising the large-n
// FP rate at this memory (a precomputed table: constant time). The
// block-load variance moves the optimum below the standard-Bloom
// k = bits_per_key * ln 2: 6 vs 7 at 10 bits/key, 11 vs 14 at 20.
int OptimalBlockedBloomProbes(double bits_per_key, int lines_per_key);

// Smallest bits per key reaching fp_rate with the optimal probes (~30 ms:
// cache it).
double BlockedBloomBitsPerKeyForFpRate(double fp_rate, int lines_per_key);

}  // namespace sstfilter
