// The filter designs of variant_math.h against their papers' figures at
// 1%, 0.1% and 10%. Every expected value is a literal worked out by hand
// from the paper's formula (the derivation beside it), not a call of ours.
#include <gtest/gtest.h>

#include <cmath>

#include "plugin/tools/variant_math.h"

namespace sstfilter {
namespace {

constexpr double kKeys = 1e8;  // large: xor's 32 extra slots add < 4e-6 bits/key

struct Target {
  double fp_rate;
  int f;  // ceil(log2(1/p)): log2(100) = 6.64 -> 7, log2(1000) = 9.97 -> 10, log2(10) = 3.32 -> 4
  double fp_of_f;  // 2^-f
};
constexpr Target kTargets[] = {{0.01, 7, 0.0078125}, {0.001, 10, 0.0009765625}, {0.1, 4, 0.0625}};

TEST(VariantMathTest, WholeFingerprintBits) {
  for (const Target& t : kTargets) EXPECT_EQ(WholeFingerprintBits(t.fp_rate), t.f) << t.fp_rate;
  EXPECT_EQ(WholeFingerprintBits(1.0 / 256), 8);  // exactly 2^-8: no ninth bit
  EXPECT_EQ(WholeFingerprintBits(0.9), 1);
}

// Graf & Lemire 2020: floor(1.23 n) + 32 slots of f bits, 3 accesses, FP
// 2^-f. Their xor8 is 1.23 x 8 = 9.84 bits/key at 1/256 = 0.39%.
TEST(VariantMathTest, XorFilter) {
  const double expected_bits[] = {8.61 /* 1.23 x 7 */, 12.3 /* 1.23 x 10 */, 4.92 /* 1.23 x 4 */};
  for (size_t i = 0; i < 3; ++i) {
    const Target& t = kTargets[i];
    const VariantSizing s = XorSizing(kKeys, t.fp_rate);
    EXPECT_NEAR(s.bits_per_key, expected_bits[i], 1e-5) << t.fp_rate;
    EXPECT_EQ(s.fingerprint_bits, t.f);
    EXPECT_DOUBLE_EQ(s.fp_rate, t.fp_of_f);
    EXPECT_EQ(s.probes, 3);
  }
  EXPECT_NEAR(XorSizing(kKeys, 1.0 / 256).bits_per_key, 9.84, 1e-5);
  // 1000 keys: (1230 + 32) x 8 / 1000.
  EXPECT_NEAR(XorSizing(1000, 1.0 / 256).bits_per_key, 10.096, 1e-9);
}

// Graf & Lemire 2022: 1.125 f (3-wise) and 1.075 f (4-wise) from 1M keys
// on; below, the size factor 0.875 + 0.25 ln(10^6) / ln n (3-wise) and
// 0.77 + 0.305 ln(600000) / ln n (4-wise).
TEST(VariantMathTest, BinaryFuseFilters) {
  const double three_wise[] = {7.875 /* 1.125 x 7 */, 11.25 /* 1.125 x 10 */, 4.5 /* 1.125 x 4 */};
  const double four_wise[] = {7.525 /* 1.075 x 7 */, 10.75 /* 1.075 x 10 */, 4.3 /* 1.075 x 4 */};
  for (size_t i = 0; i < 3; ++i) {
    const Target& t = kTargets[i];
    const VariantSizing s3 = BinaryFuseSizing(kKeys, t.fp_rate, 3);
    const VariantSizing s4 = BinaryFuseSizing(kKeys, t.fp_rate, 4);
    EXPECT_NEAR(s3.bits_per_key, three_wise[i], 1e-9) << t.fp_rate;
    EXPECT_NEAR(s4.bits_per_key, four_wise[i], 1e-9) << t.fp_rate;
    EXPECT_DOUBLE_EQ(s3.fp_rate, t.fp_of_f);
    EXPECT_DOUBLE_EQ(s4.fp_rate, t.fp_of_f);
    EXPECT_EQ(s3.probes, 3);
    EXPECT_EQ(s4.probes, 4);
  }
  // 10^4 keys: 0.875 + 0.25 x 6/4 = 1.25; 0.77 + 0.305 x 13.30468/9.21034
  // = 1.210584.
  EXPECT_NEAR(BinaryFuseSizeFactor(1e4, 3), 1.25, 1e-12);
  EXPECT_NEAR(BinaryFuseSizeFactor(1e4, 4), 1.210584, 1e-6);
  // At 10^6 keys the 3-wise form meets its floor: 0.875 + 0.25 = 1.125.
  EXPECT_NEAR(BinaryFuseSizeFactor(1e6, 3), 1.125, 1e-12);
}

// Fan et al. 2014, b = 4 slots, 95.5% load: f = ceil(log2(1/p) + 3) bits,
// f / 0.955 bits/key, 2 buckets, p <= 1 - (1 - 2^-f)^8.
TEST(VariantMathTest, CuckooFilter) {
  struct Expect {
    double fp_rate;
    int f;
    double bits_per_key, fp_bound;
  };
  for (const Expect& e : {
           // 6.644 + 3 = 9.644 -> 10; 10 / 0.955; 1 - (1023/1024)^8
           Expect{0.01, 10, 10.471204, 0.0077859},
           // 9.966 + 3 = 12.966 -> 13; 13 / 0.955; 1 - (8191/8192)^8
           Expect{0.001, 13, 13.612565, 0.00097615},
           // 3.322 + 3 = 6.322 -> 7; 7 / 0.955; 1 - (127/128)^8
           Expect{0.1, 7, 7.329843, 0.0608175}}) {
    const VariantSizing s = CuckooSizing(e.fp_rate);
    EXPECT_EQ(s.fingerprint_bits, e.f) << e.fp_rate;
    EXPECT_NEAR(s.bits_per_key, e.bits_per_key, 1e-6) << e.fp_rate;
    EXPECT_NEAR(s.fp_rate, e.fp_bound, 1e-7) << e.fp_rate;
    EXPECT_LE(s.fp_rate, e.fp_rate);
    EXPECT_EQ(s.probes, 2);
  }
}

// 4-bit counters on the best whole-k standard Bloom filter (the classic
// table: 7, 10 and 3 probes). At k probes, p = (1 - e^(-k/b))^k gives
// b = k / -ln(1 - p^(1/k)): 1% -> 7 / 0.729713 = 9.59295; 0.1% -> 10 /
// 0.695521 = 14.37764; 10% -> 3 / 0.623917 = 4.80833. The textbook's
// fractional k gives 4 x 9.585 = 38.34 at 1%.
TEST(VariantMathTest, CountingBloomFilter) {
  struct Expect {
    double fp_rate;
    int probes;
    double bits_per_key;
  };
  for (const Expect& e : {Expect{0.01, 7, 38.3718 /* 4 x 9.59295 */},
                          Expect{0.001, 10, 57.5106 /* 4 x 14.37764 */},
                          Expect{0.1, 3, 19.2333 /* 4 x 4.80833 */}}) {
    const VariantSizing s = CountingBloomSizing(e.fp_rate);
    EXPECT_NEAR(s.bits_per_key, e.bits_per_key, 1e-3) << e.fp_rate;
    EXPECT_EQ(s.probes, e.probes) << e.fp_rate;
    EXPECT_EQ(s.fingerprint_bits, 4);
    EXPECT_NEAR(s.fp_rate, e.fp_rate, e.fp_rate * 1e-6);
  }
  EXPECT_NEAR(CountingBloomSizing(0.01).bits_per_key, 38.34, 0.05);
  EXPECT_FALSE(CountingBloomSizing(1e-40).reachable);
}

// Almeida et al. 2007 with s = 2, r = 0.9, the first filter for n/10:
// capacities 0.1 + 0.2 + 0.4 (< 1) + 0.8 n, so 4 filters, the last holding
// 0.3 n. P_0 = p (1 - r), P_i = P_0 0.9^i. The paper's memory
// sum n_i |ln P_i| / ln^2 2, at 1%:
//   (0.1 x 6.9078 + 0.2 x 7.0131 + 0.4 x 7.1185 + 0.8 x 7.2239) / 0.480453
//   = 10.7199 / 0.480453 = 22.312 bits/key;
// at 0.1% (|ln P_i| = 9.2103, 9.3157, 9.4211, 9.5265) 29.501; at 10%
// (4.6052, 4.7105, 4.8159, 4.9213) 15.123. Whole k costs < 0.01 more.
// Probes: the nearest whole k to log2(1/P_i): 1%: 9.97 10.12 10.27 10.42
// -> 10 x 4 = 40; 0.1%: 13.29 13.44 13.59 13.74 -> 13+13+14+14 = 54; 10%:
// 6.64 6.80 6.95 7.10 -> 7 x 4 = 28. FP rate: 1 - prod(1 - P_i) over the
// three full filters, plus the last one's at 3/8 of its capacity
// (~3e-7, ~1e-9, ~3e-5): 1% -> 1 - 0.999 x 0.9991 x 0.99919 = 0.0027076
// + 3e-7; 0.1% -> 0.00027097; 10% -> 1 - 0.99 x 0.991 x 0.9919 =
// 0.026857 + 2.9e-5.
TEST(VariantMathTest, ScalableBloomFilter) {
  EXPECT_EQ(kScalableGrowth, 2);
  EXPECT_EQ(kScalableTightening, 0.9);
  struct Expect {
    double fp_rate, bits_per_key;
    int probes;
    double chain_fp;
  };
  for (const Expect& e : {Expect{0.01, 22.312, 40, 0.0027079}, Expect{0.001, 29.501, 54, 0.00027098},
                          Expect{0.1, 15.123, 28, 0.026886}}) {
    const ScalableBloomChain chain = ScalableBloomSizing(kKeys, e.fp_rate);
    EXPECT_NEAR(chain.total.bits_per_key, e.bits_per_key, 0.01) << e.fp_rate;
    EXPECT_EQ(chain.total.probes, e.probes) << e.fp_rate;
    EXPECT_NEAR(chain.total.fp_rate, e.chain_fp, 1e-3 * e.chain_fp) << e.fp_rate;
    EXPECT_LE(chain.total.fp_rate, e.fp_rate);
    ASSERT_EQ(chain.capacity_keys.size(), 4u);
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_NEAR(chain.capacity_keys[i], 1e7 * (1 << i), 1e-3);
      EXPECT_NEAR(chain.fp_rates[i], e.fp_rate * 0.1 * std::pow(0.9, i), 1e-15);
    }
  }
  // The chain's shape does not depend on n: one key is 4 filters too.
  EXPECT_EQ(ScalableBloomSizing(1, 0.01).capacity_keys.size(), 4u);
}

}  // namespace
}  // namespace sstfilter
