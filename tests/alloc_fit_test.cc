// Filter lengths fitted to the allocator's size classes (alloc_fit.h), with
// a model of jemalloc's classes: no slack, the FP rate averaged over
// filters at or below the budget's, less allocated memory than unfitted.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "plugin/core/alloc_fit.h"
#include "plugin/core/filter_builder.h"
#include "plugin/core/filter_reader.h"
#include "plugin/core/hash.h"
#include "tests/test_util.h"

namespace sstfilter {
namespace {

// jemalloc's size classes (jemalloc 5, 4 KiB pages): 8, then multiples of
// 16 up to 128, then four classes per power of two (e.g. 1280, 1536, 1792,
// 2048).
size_t JemallocClass(size_t n) {
  if (n <= 8) return 8;
  if (n <= 128) return (n + 15) / 16 * 16;
  size_t pow2 = 128;
  while (pow2 * 2 < n) pow2 *= 2;
  const size_t step = pow2 / 4;
  return (n + step - 1) / step * step;
}
size_t ExactClass(size_t n) { return n; }  // glibc: slack under 0.1%

// Key counts log-uniform in [lo, hi], as SST files of mixed sizes.
std::vector<size_t> FilterSizes(size_t count, double lo, double hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
  std::vector<size_t> sizes;
  for (size_t i = 0; i < count; ++i) sizes.push_back(static_cast<size_t>(std::exp(u(rng))));
  return sizes;
}

class AllocFitTest : public ::testing::TestWithParam<FilterConfig> {};

TEST_P(AllocFitTest, LengthsFillSizeClassesAndKeepTheFpBudget) {
  for (const auto& range : {std::make_pair(1000.0, 5000.0), std::make_pair(1000.0, 200000.0)}) {
    std::atomic<int64_t> balance{0};
    FilterBuilder fitted(GetParam());
    fitted.SetAllocatorFit({JemallocClass, 5, &balance});
    const FilterBuilder plain(GetParam());
    double fp_fitted = 0, fp_budget = 0, alloc_fitted = 0, alloc_plain = 0;
    const std::vector<size_t> sizes = FilterSizes(400, range.first, range.second, 1);
    for (size_t n : sizes) {
      const size_t target = plain.BytesForKeys(n);
      const size_t len = fitted.ChooseLength(n);
      const size_t slack = JemallocClass(len + kBlockTrailerBytes) - (len + kBlockTrailerBytes);
      // Byte-granular kinds fill the class; BlockedBloom is bound to
      // 64-byte lines.
      EXPECT_LT(slack, GetParam().kind == FilterKind::kBlockedBloom ? 64u : 1u) << n;
      EXPECT_GE(len, target * 3 / 4) << n;
      EXPECT_LE(len, target * 4 / 3) << n;
      fp_fitted += plain.PredictedFpRate(n, len);
      fp_budget += plain.PredictedFpRate(n, target);
      alloc_fitted += JemallocClass(len + kBlockTrailerBytes);
      alloc_plain += JemallocClass(target + kBlockTrailerBytes);
    }
    // The balance never goes positive, so the fitted filters' FP rates sum
    // to at most the budget's, up to the balance's rounding (2^-32 each).
    EXPECT_LE(fp_fitted, fp_budget + sizes.size() * std::ldexp(1.0, -32));
    EXPECT_LT(alloc_fitted, alloc_plain);
  }
}

TEST_P(AllocFitTest, ExactAllocatorKeepsTheConfiguredLength) {
  std::atomic<int64_t> balance{0};
  FilterBuilder fitted(GetParam());
  fitted.SetAllocatorFit({ExactClass, 5, &balance});
  for (size_t n : {1, 10, 1000, 4321, 100000}) {
    EXPECT_EQ(fitted.ChooseLength(n), FilterBuilder(GetParam()).BytesForKeys(n)) << n;
  }
}

// Fitted filters are real filters: every key found, the length as chosen.
TEST_P(AllocFitTest, FittedFiltersHaveNoFalseNegatives) {
  std::atomic<int64_t> balance{0};
  FilterBuilder b(GetParam());
  b.SetAllocatorFit({JemallocClass, 5, &balance});
  for (size_t n : FilterSizes(30, 1, 50000, 2)) {
    for (size_t i = 0; i < n; ++i) {
      const std::string k = test::Key(i, n);
      b.AddKeyHash(HashKey(k.data(), k.size()));
    }
    size_t len = 0;
    const auto block = b.Finish(&len);
    EXPECT_LT(JemallocClass(len + kBlockTrailerBytes) - (len + kBlockTrailerBytes),
              GetParam().kind == FilterKind::kBlockedBloom ? 64u : 1u) << n;
    const test::BlockReader r(block.get(), len);
    for (size_t i = 0; i < n; ++i) {
      const std::string k = test::Key(i, n);
      ASSERT_TRUE(r.MayMatch(HashKey(k.data(), k.size())))
          << "false negative, n=" << n << " i=" << i;
    }
  }
}

// Filters of two sizes at the same budget (FP rate e^-6 at the target
// length, exp(-6 * len / target) at any length) arrive in random order,
// with the size classes 5120 and 6144 around both targets: "near up" wants
// 6000 bytes, where the class above buys 1.5x the FP rate per byte of the
// curve's slope at its target, "near down" wants 5200, where it buys 0.65x.
// For the same 1024 bytes, rounding a near-up filter down costs twice the FP
// rate that rounding a near-down one does. So priced rounding must round
// near-up filters down less often than plain balance rounding
// (price_weight 0, RocksDB's rule), and pay less FP rate per byte it saves
// against rounding every filter up, both within the budget's FP rate.
TEST(AllocFitPricing, CreditGoesToTheFiltersWhereRoundingDownCostsLeast) {
  struct Outcome {
    int near_up_down = 0;
    double fp_sum = 0, fp_budget = 0, fp_all_up = 0, bytes_saved = 0;
  };
  const auto run = [](double price_weight) {
    std::atomic<int64_t> balance{0};
    AllocatorFit fit{JemallocClass, 0, &balance};
    fit.price_weight = price_weight;
    const auto valid = [](size_t max_len) { return max_len; };
    std::mt19937_64 rng(7);
    Outcome out;
    for (int i = 0; i < 1000; ++i) {
      const size_t target = rng() % 2 ? 6000 : 5200;
      const auto fp = [target](size_t len) {
        return std::exp(-6.0 * static_cast<double>(len) / static_cast<double>(target));
      };
      const size_t len = FitLength(fit, target, valid, fp);
      EXPECT_TRUE(len == 5120 || len == 6144) << len;
      out.near_up_down += target == 6000 && len == 5120;
      out.fp_sum += fp(len);
      out.fp_budget += fp(target);
      out.fp_all_up += fp(6144);
      out.bytes_saved += static_cast<double>(6144 - len);
    }
    return out;
  };
  const Outcome plain = run(0), priced = run(2);
  for (const Outcome& o : {plain, priced}) {
    EXPECT_LE(o.fp_sum, o.fp_budget + 1000 * std::ldexp(1.0, -32));
    ASSERT_GT(o.bytes_saved, 0);
  }
  EXPECT_LT(priced.near_up_down, plain.near_up_down);
  EXPECT_LT((priced.fp_sum - priced.fp_all_up) / priced.bytes_saved,
            (plain.fp_sum - plain.fp_all_up) / plain.bytes_saved);
}

// Filters of mixed sizes (targets log-uniform over 4-400 KB, FP rate
// e^-6 at the target length) arrive in random order; one in ten is checked
// by every lookup (an L0 file's, reserve kOftenCheckedReserve). With the
// reserve, those filters take the class above where plain rounding takes
// the one below for a share of them, and the others pay for it: the FP
// rate summed over all filters stays within the budget's, the one summed
// over the L0 filters falls. A stream of L0 filters alone (a FIFO
// database) rounds as plain rounding does once the balance has settled:
// its FP rate sum stays within the reserve's credit of the budget's.
TEST(AllocFitReserve, FiltersEveryLookupChecksRoundUpAndTheOthersPay) {
  struct Outcome {
    int l0 = 0, l0_down = 0, down = 0;
    double fp_sum = 0, fp_budget = 0, fp_l0 = 0, max_cost = 0;
  };
  const auto run = [](double reserve, int l0_every) {
    std::atomic<int64_t> balance{0};
    AllocatorFit fit{JemallocClass, 0, &balance};
    const auto valid = [](size_t max_len) { return max_len; };
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(std::log(4000.0), std::log(400000.0));
    Outcome out;
    for (int i = 0; i < 4000; ++i) {
      const size_t target = static_cast<size_t>(std::exp(u(rng)));
      const auto fp = [target](size_t len) {
        return std::exp(-6.0 * static_cast<double>(len) / static_cast<double>(target));
      };
      const bool l0 = i % l0_every == 0;
      fit.reserve = l0 ? reserve : 0.0;
      const size_t len = FitLength(fit, target, valid, fp);
      const bool down = len < target;
      out.down += down;
      out.l0 += l0;
      out.l0_down += l0 && down;
      out.fp_sum += fp(len);
      out.fp_budget += fp(target);
      if (l0) out.fp_l0 += fp(len);
      // What a filter waits for before rounding down: its own cost of
      // rounding down, reserve times what it gives up (at most its FP rate
      // at the class below, >= 3/4 of the length), and its price (at most
      // price_weight ln 8 budget FP rates).
      const size_t down_len = target * 3 / 4;
      out.max_cost = std::max(out.max_cost, fp(down_len) - fp(target) +
                                                fit.reserve * fp(down_len) +
                                                2 * std::log(8.0) * fp(target));
    }
    return out;
  };
  const Outcome plain = run(0, 10), reserved = run(kOftenCheckedReserve, 10);
  for (const Outcome& o : {plain, reserved}) {
    EXPECT_LE(o.fp_sum, o.fp_budget + 4000 * std::ldexp(1.0, -32));
  }
  ASSERT_GT(plain.l0_down, plain.l0 / 10) << "the stream must make plain rounding round L0 down";
  EXPECT_LT(reserved.l0_down, plain.l0_down);
  EXPECT_LT(reserved.fp_l0, plain.fp_l0);
  EXPECT_GT(reserved.down, plain.down - plain.l0_down);

  // Every filter an L0 filter: the balance settles at most the largest
  // wait lower, then the filters take turns.
  const Outcome fifo = run(kOftenCheckedReserve, 1), fifo_plain = run(0, 1);
  EXPECT_LE(fifo.fp_sum, fifo.fp_budget + 4000 * std::ldexp(1.0, -32));
  EXPECT_GE(fifo.fp_sum, fifo_plain.fp_sum - fifo.max_cost);
}

TEST(AllocFitReserve, OftenCheckedFiltersJustAboveAClassKeepTheClassAbove) {
  // 2561 bytes asked for, one above jemalloc's 2560 class: rounding down
  // costs almost nothing, rounding up buys the 3072 class. With some credit
  // in the balance, a last-level filter rounds down; an often-checked one
  // keeps the class above until the credit covers reserve times what the
  // class above saves.
  const size_t target = 2561;
  const auto valid = [](size_t max_len) { return max_len; };
  const auto fp = [target](size_t len) {
    return std::exp(-6.0 * static_cast<double>(len) / static_cast<double>(target));
  };
  const double gain = fp(2560) - fp(3072);
  const auto fit_with = [&](double reserve, double credit_in_gains) {
    std::atomic<int64_t> balance{-std::llround(std::ldexp(credit_in_gains * gain, 32))};
    AllocatorFit fit{JemallocClass, 0, &balance};
    fit.reserve = reserve;
    return FitLength(fit, target, valid, fp);
  };
  EXPECT_EQ(fit_with(0, 2), 2560u);
  EXPECT_EQ(fit_with(kOftenCheckedReserve, 2), 3072u);
  EXPECT_EQ(fit_with(kOftenCheckedReserve, kOftenCheckedReserve + 1), 2560u);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, AllocFitTest, ::testing::ValuesIn(test::AllConfigs()),
                         [](const auto& info) { return test::ConfigName(info.param); });

}  // namespace
}  // namespace sstfilter
