// Published sizing of filter designs sstfilter does not build: counting
// Bloom, cuckoo, scalable Bloom, xor and binary fuse filters, for one target
// FP rate p and n keys. These are the papers' formulas, not measurements of
// an implementation; `sstfilter size --variants` prints them beside the
// kinds sstfilter builds, whose sizing is bloom_math.h and the builders'.
//
// The information-theoretic bound for a filter with FP rate p is log2(1/p)
// bits per key. A static filter storing a whole-bit fingerprint per key pays
// for rounding f = ceil(log2(1/p)) up and for its slots per key: xor 1.23 f,
// binary fuse 1.125 f (3-wise) and 1.075 f (4-wise), i.e. 23%, 12.5% and
// 7.5% over log2(1/2^-f) at their own FP 2^-f; at p = 1% (f = 7 against
// log2(100) = 6.64) 29.6%, 18.5% and 13.3%. The dynamic designs pay more
// for abilities an immutable SST file never uses: deletes (counting Bloom,
// cuckoo) and growth without a key count given in advance (scalable Bloom).
#pragma once

#include <vector>

namespace sstfilter {

struct VariantSizing {
  bool reachable = true;     // false: a Bloom filter in it needs > kMaxBitsPerKey
  double bits_per_key = 0;   // memory per key, the whole structure
  double fp_rate = 1;        // what this sizing gives, at most the target
  int probes = 0;            // bit probes or memory accesses per negative query
  int fingerprint_bits = 0;  // fingerprint f, or counter width; 0 for none
};

// f = ceil(log2(1/fp_rate)), at least 1: the whole-bit fingerprint whose
// FP rate 2^-f reaches fp_rate.
int WholeFingerprintBits(double fp_rate);

// Counting Bloom filter (Fan, Cao, Almeida, Broder, "Summary Cache: A
// Scalable Wide-Area Web Cache Sharing Protocol", IEEE/ACM ToN 8(3), 2000:
// a 4-bit counter reaches 16 with probability <= 1.37e-15 x m): the
// standard Bloom filter of bloom_math.h with every bit a counter, so the same
// k and FP rate at 4x the memory, 4 x 9.59 bits/key at 1%.
constexpr int kCountingBloomCounterBits = 4;
VariantSizing CountingBloomSizing(double fp_rate);

// Cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher, "Cuckoo Filter:
// Practically Better Than Bloom", CoNEXT 2014): a lookup compares f-bit
// fingerprints in 2 buckets of b slots, so p <= 1 - (1 - 2^-f)^(2b) ~ 2b/2^f
// and f >= log2(2b/p) = log2(1/p) + 3 at b = 4 (§5.1); the table is a
// fraction alpha full, f / alpha bits per key, alpha = 95.5% at b = 4
// (Table 2). f is rounded up to whole bits: 10 bits, 10.47 bits/key at 1%.
constexpr int kCuckooBucketSlots = 4;
constexpr double kCuckooLoad = 0.955;
VariantSizing CuckooSizing(double fp_rate);

// Scalable Bloom filter (Almeida, Baquero, Preguiça, Hutchison, "Scalable
// Bloom Filters", IPL 101(6), 2007, §4): a chain of Bloom filters, each
// added when the last is full, with s times its capacity and a tighter FP
// rate, P_i = P_0 r^i; a negative query probes every filter, and the chain's
// FP rate stays below P_0 / (1 - r), so P_0 = p (1 - r) meets p. Filter i is
// sized as the best whole-k standard Bloom filter for P_i (bloom_math.h):
// at 10%, 1% and 0.1% the chain costs < 0.01 bits/key more than with the
// paper's fractional-k |ln P_i| / ln^2 2 bits per key (§3).
constexpr double kScalableGrowth = 2;        // s
constexpr double kScalableTightening = 0.9;  // r
constexpr double kScalableFirstShare = 0.1;  // first filter's capacity / n

struct ScalableBloomChain {
  VariantSizing total;  // bits per key of n; probes: sum of the k_i
  std::vector<double> capacity_keys;  // of each filter, kScalableFirstShare n s^i
  std::vector<double> fp_rates;       // P_i at capacity
  std::vector<int> probes;            // k_i
};
// The chain that holds num_keys (> 0): total.fp_rate is its FP rate with
// those keys, the last filter filled only as far as they reach.
ScalableBloomChain ScalableBloomSizing(double num_keys, double fp_rate);

// Xor filter (Graf, Lemire, "Xor Filters: Faster and Smaller Than Bloom and
// Cuckoo Filters", ACM JEA 25, 2020, §3): floor(1.23 n) + 32 slots of f
// bits, 3 accesses, FP rate 2^-f; 1.23 x 8 = 9.84 bits/key for xor8.
constexpr double kXorSlotsPerKey = 1.23;
constexpr double kXorExtraSlots = 32;
VariantSizing XorSizing(double num_keys, double fp_rate);

// Binary fuse filter (Graf, Lemire, "Binary Fuse Filters: Fast and Smaller
// Than Xor Filters", ACM JEA 27, 2022): `arity` (3 or 4) accesses into
// segmented slots, n x size factor slots of f bits, FP rate 2^-f. The size
// factor is max(1.125, 0.875 + 0.25 ln(10^6) / ln n) for 3-wise and
// max(1.075, 0.77 + 0.305 ln(600000) / ln n) for 4-wise, as the authors'
// reference code computes it (calculateSizeFactor in
// github.com/FastFilter/xorfilter): 1.125 and 1.075 from 1M keys on.
double BinaryFuseSizeFactor(double num_keys, int arity);
VariantSizing BinaryFuseSizing(double num_keys, double fp_rate, int arity);

}  // namespace sstfilter
