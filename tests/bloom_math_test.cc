// The sizing math against closed forms and the textbook table.
#include <gtest/gtest.h>

#include <cmath>

#include "plugin/core/bloom_math.h"

namespace sstfilter {
namespace {

TEST(BloomMathTest, FpRateMatchesClosedForm) {
  // (1 - e^(-k/b))^k at b = 10, k = 7 is 0.8194%.
  EXPECT_NEAR(StandardBloomFpRate(10.0, 7), 0.008194, 1e-6);
  // The finite-m form converges to it for large m.
  EXPECT_NEAR(StandardBloomFpRate(1e6, 1e7, 7), StandardBloomFpRate(10.0, 7), 1e-7);
  EXPECT_EQ(StandardBloomFpRate(0.0, 100.0, 3), 0.0);
  // A single bit holding one key with one probe: always set.
  EXPECT_DOUBLE_EQ(StandardBloomFpRate(1.0, 1.0, 1), 1.0);
}

TEST(BloomMathTest, OptimalProbesAreRoundedLn2TimesBitsPerKey) {
  EXPECT_EQ(OptimalStandardBloomProbes(10.0), 7);
  EXPECT_EQ(OptimalStandardBloomProbes(16.0), 11);
  EXPECT_EQ(OptimalStandardBloomProbes(20.0), 14);
  EXPECT_EQ(OptimalStandardBloomProbes(1.0), 1);
  EXPECT_EQ(OptimalStandardBloomProbes(1000.0), kMaxBloomProbes);
  // The chosen k is never worse than its neighbours.
  for (double b = 1.0; b <= 40.0; b += 0.25) {
    const int k = OptimalStandardBloomProbes(b);
    EXPECT_LE(StandardBloomFpRate(b, k), StandardBloomFpRate(b, k + 1)) << b;
    if (k > 1) {
      EXPECT_LE(StandardBloomFpRate(b, k), StandardBloomFpRate(b, k - 1)) << b;
    }
  }
}

// The classic sizing table (100M keys): 10% -> 4.8 bits/key, 3 probes;
// 1% -> 9.6, 7; 0.1% -> 14.4, 10; 0.01% -> 19.2, 13. The textbook uses
// fractional k (-ln p / ln^2 2); integer k costs at most a few hundredths.
TEST(BloomMathTest, ReproducesTheClassicSizingTable) {
  const struct { double fp; double bpk; int k; } rows[] = {
      {0.1, 4.8, 3}, {0.01, 9.6, 7}, {0.001, 14.4, 10}, {0.0001, 19.2, 13}};
  for (const auto& row : rows) {
    const double bpk = StandardBloomBitsPerKeyForFpRate(row.fp);
    EXPECT_NEAR(bpk, row.bpk, 0.05) << row.fp;
    EXPECT_EQ(OptimalStandardBloomProbes(bpk), row.k) << row.fp;
    EXPECT_LE(StandardBloomFpRate(bpk, row.k), row.fp * (1 + 1e-9));
    const double textbook = -std::log(row.fp) / (std::log(2.0) * std::log(2.0));
    EXPECT_GE(bpk, textbook - 1e-9) << "integer k cannot beat fractional k";
  }
}

TEST(BloomMathTest, UnreachableFpRateIsReportedAboveTheRange) {
  EXPECT_GT(StandardBloomBitsPerKeyForFpRate(1e-40), kMaxBitsPerKey);
}

}  // namespace
}  // namespace sstfilter
