// Properties every core filter kind must have, swept over AllConfigs():
// no false negatives at any size, FP rate inside Poisson bounds around the
// prediction, exact sizes, reusable builders.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plugin/core/filter_builder.h"
#include "plugin/core/filter_reader.h"
#include "plugin/core/hash.h"
#include "tests/test_util.h"

namespace sstfilter {
namespace {

using test::Key;

class CoreFilterTest : public ::testing::TestWithParam<FilterConfig> {
 protected:
  std::vector<char> Build(FilterBuilder& b) {
    size_t len = 0;
    auto block = b.Finish(&len);
    return std::vector<char>(block.get(), block.get() + len);
  }
  static bool MayMatch(const test::BlockReader& r, const std::string& key) {
    return r.MayMatch(HashKey(key.data(), key.size()));
  }
};

// Sizes 0, 1, 2, ... growing by ~25% up to 10^6: catches off-by-one sizing
// at tiny n as well as range-reduction bugs at large n.
std::vector<size_t> SweepSizes() {
  std::vector<size_t> sizes;
  for (size_t n = 0; n <= 1000000; n = n < 20 ? n + 1 : n + n / 4) sizes.push_back(n);
  sizes.push_back(1000000);
  return sizes;
}

TEST_P(CoreFilterTest, NoFalseNegativesAcrossSizes) {
  FilterBuilder b(GetParam());
  for (size_t n : SweepSizes()) {
    for (size_t i = 0; i < n; ++i) {
      const std::string k = Key(i, n);
      b.AddKeyHash(HashKey(k.data(), k.size()));
    }
    ASSERT_EQ(b.NumKeyHashes(), n);
    const std::vector<char> f = Build(b);
  const test::BlockReader r(f);
    ASSERT_EQ(f.size(), b.BytesForKeys(n)) << "n=" << n;
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(MayMatch(r, Key(i, n))) << "false negative, n=" << n << " i=" << i;
    }
  }
}

TEST_P(CoreFilterTest, EmptyFilterAnswersNo) {
  FilterBuilder b(GetParam());
  const std::vector<char> f = Build(b);
  const test::BlockReader r(f);
  EXPECT_EQ(f.size(), kTrailerBytes);
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(MayMatch(r, Key(i)));
}

TEST_P(CoreFilterTest, AdjacentDuplicatesAreSkippedOthersHarmless) {
  FilterBuilder b(GetParam());
  std::vector<std::string> keys = {"", "a", std::string(10000, 'x'),
                                   std::string(10000, 'x') + "y"};
  for (int i = 0; i < 200; ++i) keys.push_back(Key(i));
  for (const auto& k : keys) {
    for (int rep = 0; rep < 3; ++rep) b.AddKeyHash(HashKey(k.data(), k.size()));
  }
  EXPECT_EQ(b.NumKeyHashes(), keys.size());
  for (const auto& k : keys) b.AddKeyHash(HashKey(k.data(), k.size()));  // not adjacent
  const std::vector<char> f = Build(b);
  const test::BlockReader r(f);
  for (const auto& k : keys) EXPECT_TRUE(MayMatch(r, k)) << k.size();
}

TEST_P(CoreFilterTest, KeysDifferingOnlyInHighBitsOrPastByte8) {
  FilterBuilder b(GetParam());
  std::vector<std::string> keys;
  for (int i = 0; i < 64; ++i) {
    std::string k(24, '\0');
    k[23] = static_cast<char>(1u << (i % 8));
    k[16 + i / 8] = static_cast<char>(0x80);
    keys.push_back(k);
  }
  for (const auto& k : keys) b.AddKeyHash(HashKey(k.data(), k.size()));
  const std::vector<char> f = Build(b);
  const test::BlockReader r(f);
  for (const auto& k : keys) EXPECT_TRUE(MayMatch(r, k));
}

TEST_P(CoreFilterTest, BuilderIsReusableAfterFinish) {
  FilterBuilder b(GetParam());
  std::vector<std::vector<char>> filters;
  for (int part = 0; part < 3; ++part) {
    for (int i = 0; i < 1000; ++i) {
      const std::string k = Key(i, part);
      b.AddKeyHash(HashKey(k.data(), k.size()));
    }
    filters.push_back(Build(b));
    EXPECT_EQ(b.NumKeyHashes(), 0u);
  }
  for (int part = 0; part < 3; ++part) {
    const test::BlockReader r(filters[part]);
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(MayMatch(r, Key(i, part)));
  }
}

TEST_P(CoreFilterTest, SizeAndCapacityAreInverse) {
  FilterBuilder b(GetParam());
  for (size_t n : {0, 1, 2, 3, 7, 100, 1000, 123457, 10000000}) {
    const size_t bytes = b.BytesForKeys(n);
    EXPECT_GE(b.KeysForBytes(bytes), n) << n;
    // KeysForBytes is the largest count that fits: one more does not.
    EXPECT_GT(b.BytesForKeys(b.KeysForBytes(bytes) + 1), bytes) << n;
  }
  for (size_t bytes : {0, 15, 16, 17, 100, 4096, 1 << 20}) {
    EXPECT_LE(b.BytesForKeys(b.KeysForBytes(bytes)), std::max<size_t>(bytes, kTrailerBytes));
  }
}

// Observed false positives over q absent keys must be a Poisson draw around
// q * predicted FP. With 100K keys the filter's own fill varies by ~0.1%,
// moving its true FP rate by well under 1%: small beside the Poisson noise.
TEST_P(CoreFilterTest, FpRateWithinPoissonBoundsOfPrediction) {
  const FilterConfig config = GetParam();
  FilterBuilder b(config);
  constexpr size_t kKeys = 100000;
  for (size_t i = 0; i < kKeys; ++i) {
    const std::string k = Key(i, 1);
    b.AddKeyHash(HashKey(k.data(), k.size()));
  }
  const std::vector<char> f = Build(b);
  const test::BlockReader r(f);
  const double predicted = b.PredictedFpRate(kKeys, f.size());
  // Enough queries for ~1000 expected false positives (relative sd 3%).
  const size_t queries =
      std::min<size_t>(20000000, static_cast<size_t>(1000.0 / predicted) + 1);
  size_t fp = 0;
  for (size_t i = 0; i < queries; ++i) fp += MayMatch(r, Key(i, 2));
  const auto bounds = test::PoissonBounds(predicted * static_cast<double>(queries));
  EXPECT_GE(static_cast<double>(fp), bounds.lo) << "predicted " << predicted;
  EXPECT_LE(static_cast<double>(fp), bounds.hi) << "predicted " << predicted;
}

INSTANTIATE_TEST_SUITE_P(AllKinds, CoreFilterTest, ::testing::ValuesIn(test::AllConfigs()),
                         [](const auto& info) { return test::ConfigName(info.param); });

}  // namespace
}  // namespace sstfilter
