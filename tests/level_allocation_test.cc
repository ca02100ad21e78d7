// The level-aware allocation math (plugin/core/level_allocation.h): the
// budget is kept on any shape, more bits go to the upper levels, the plan is
// monotone in its inputs and no cheaper reallocation exists, the optimum
// and uniform figures, plus the edge cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "plugin/core/bloom_math.h"
#include "plugin/core/kind_ops.h"
#include "plugin/core/level_allocation.h"

namespace sstfilter {
namespace {

// A tree with dynamic level sizing: `populated` levels ending at the last,
// `ratio` apart, L0 as large as the first of them over `l0_files` checks.
struct Model {
  double budget;
  int populated = 3;
  double ratio = 10.0;
  double l0_files = 2.0;
  double bottommost = -1;
};

std::vector<LevelPlan> PlanLevels(const Model& m, int num_levels) {
  return PlanForShape(GeometricShape(num_levels, m.populated, m.ratio, m.l0_files), m.budget,
                      m.bottommost);
}

double Bits(const LevelPlan& p) { return p.has_filter ? p.filter.bits_per_key : 0.0; }

TEST(LevelAllocationTest, BudgetIsKeptOnTheExpectedDistribution) {
  for (double budget : {1.0, 2.0, 6.0, 10.0, 16.0, 24.0}) {
    for (int num_levels = 1; num_levels <= 8; ++num_levels) {
      for (int populated : {1, 3, 7}) {
        for (double ratio : {2.0, 10.0, 30.0}) {
          const auto plan = PlanLevels(Model{budget, populated, ratio}, num_levels);
          ASSERT_EQ(plan.size(), static_cast<size_t>(num_levels));
          double shares = 0;
          for (const LevelPlan& p : plan) shares += p.key_share;
          EXPECT_NEAR(shares, 1.0, 1e-12);
          EXPECT_NEAR(PlannedBitsPerKey(plan), budget, 1e-9 * budget)
              << budget << " " << num_levels << " " << populated << " " << ratio;
          for (const LevelPlan& p : plan) {
            EXPECT_TRUE(Bits(p) == 0 || Bits(p) >= kMinBitsPerKey) << Bits(p);
            EXPECT_LE(Bits(p), kMaxBitsPerKey);
          }
        }
      }
    }
  }
}

TEST(LevelAllocationTest, MoreBitsGoToUpperLevels) {
  for (double budget : {2.0, 6.0, 10.0, 16.0}) {
    const auto plan = PlanLevels(Model{budget, 4}, 7);
    // Levels 3..6 are populated; 1 and 2 hold no keys: the budget, share 0.
    for (int level = 3; level < 6; ++level) {
      EXPECT_GT(Bits(plan[level]), Bits(plan[level + 1])) << budget << " L" << level;
      EXPECT_LT(plan[level].fp_rate, plan[level + 1].fp_rate) << budget << " L" << level;
    }
    EXPECT_EQ(Bits(plan[1]), budget);
    EXPECT_EQ(plan[1].key_share, 0.0);
    EXPECT_LT(Bits(plan[6]), budget);  // the last level pays for the others
    // Ribbon's curve is the lower one below ~31 bits: every level takes it.
    for (const LevelPlan& p : plan) EXPECT_EQ(p.filter.kind, FilterKind::kRibbon);
    EXPECT_LT(plan[0].fp_rate, plan[6].fp_rate);
  }
}

// Monkey's closed form for fp = 2^-bits: FP rates proportional to
// share / checks, i.e. log2(T) more bits per level up. Ribbon's real curve
// is linear in FP between whole bits (a fractional budget mixes r- and
// (r+1)-column rows), so a level's best choice sits on a whole bit where it
// can: the steps match log2(T) within half a bit, the FP ratios T within
// 2^0.5.
TEST(LevelAllocationTest, RibbonLevelsFollowTheClosedForm) {
  for (double ratio : {4.0, 10.0}) {
    const auto plan = PlanLevels(Model{10.0, 4, ratio}, 7);
    for (int level = 3; level < 6; ++level) {
      EXPECT_NEAR(Bits(plan[level]) - Bits(plan[level + 1]), std::log2(ratio), 0.5 + 1e-9)
          << ratio << " L" << level;
      const double fp_ratio = plan[level + 1].fp_rate / plan[level].fp_rate;
      EXPECT_GT(fp_ratio, ratio / std::sqrt(2.0)) << ratio << " L" << level;
      EXPECT_LT(fp_ratio, ratio * std::sqrt(2.0)) << ratio << " L" << level;
    }
  }
}

TEST(LevelAllocationTest, MonotoneInBudgetRatioAndL0Files) {
  std::vector<LevelPlan> previous;
  for (double budget = 1.0; budget <= 30.0; budget += 0.25) {
    const auto plan = PlanLevels(Model{budget}, 7);
    if (!previous.empty()) {
      // Once every level has a filter, more memory never takes bits away
      // (but for the sub-grid remainder, which goes to the largest levels).
      for (int level = 0; level < 7; ++level) {
        if (previous.back().has_filter) {
          EXPECT_GE(Bits(plan[level]) + 1.0 / 16, Bits(previous[level])) << budget << " L" << level;
        }
      }
      EXPECT_LE(PlannedWastedReads(plan), PlannedWastedReads(previous) * (1 + 1e-9)) << budget;
    }
    previous = plan;
  }
  // A steeper tree puts more keys in the last level: it gets more bits.
  double last_bits = 0;
  for (double ratio : {2.0, 4.0, 10.0, 30.0}) {
    const double bits = Bits(PlanLevels(Model{10.0, 3, ratio}, 7).back());
    EXPECT_GT(bits, last_bits) << ratio;
    last_bits = bits;
  }
  // More L0 files consulted per lookup: more bits for each.
  double l0_bits = 0;
  for (double files : {0.5, 1.0, 2.0, 4.0, 8.0}) {
    Model m{10.0};
    m.l0_files = files;
    const double bits = Bits(PlanLevels(m, 7)[0]);
    EXPECT_GT(bits, l0_bits) << files;
    l0_bits = bits;
  }
}

// No reallocation of a little memory between two levels lowers the
// expected wasted reads: the plan is a (grid-)optimum, and it beats the
// uniform allocation by about 2^H / (sum of checks), H the entropy of the
// key shares in bits (docs/LEVEL_AWARE.md).
TEST(LevelAllocationTest, NoCheaperReallocationAndBeatsUniform) {
  for (double budget : {4.0, 10.0, 16.0}) {
    const auto plan = PlanLevels(Model{budget}, 7);
    const double planned = PlannedWastedReads(plan);
    for (int from = 0; from < 7; ++from) {
      for (int to = 0; to < 7; ++to) {
        if (from == to || plan[from].key_share == 0 || plan[to].key_share == 0) continue;
        // Move 0.25 bits of `from`'s keys' memory to `to`'s keys.
        const double moved = 0.25 * plan[from].key_share;
        const double bits_from = Bits(plan[from]) - 0.25;
        const double bits_to = Bits(plan[to]) + moved / plan[to].key_share;
        if (bits_from < kMinBitsPerKey || bits_to > kMaxBitsPerKey) continue;
        const double changed = planned -
                               plan[from].checks * plan[from].fp_rate -
                               plan[to].checks * plan[to].fp_rate +
                               plan[from].checks * PlannedFpRate(plan[from].filter.kind, bits_from) +
                               plan[to].checks * PlannedFpRate(plan[to].filter.kind, bits_to);
        EXPECT_GE(changed, planned * (1 - 1e-3)) << budget << " L" << from << "->L" << to;
      }
    }
    double checks = 0;
    for (const LevelPlan& p : plan) checks += p.checks;
    const double uniform = checks * PlannedFpRate(FilterKind::kRibbon, budget);
    EXPECT_LT(planned, 0.5 * uniform) << budget;
  }
}

TEST(LevelAllocationTest, EdgeCases) {
  // One level (or none given): every file alike, Ribbon at the budget.
  for (int num_levels : {-1, 0, 1}) {
    const auto plan = PlanLevels(Model{7.5}, num_levels);
    ASSERT_EQ(plan.size(), 1u);
    EXPECT_EQ(plan[0].filter.kind, FilterKind::kRibbon);
    EXPECT_NEAR(Bits(plan[0]), 7.5, 1e-9);
    EXPECT_DOUBLE_EQ(plan[0].key_share, 1.0);
  }
  // No shape, or no keys in it: nothing to plan; every level at the budget.
  EXPECT_TRUE(PlanForShape({}, 10.0).empty());
  for (const LevelPlan& p : PlanForShape(LsmShape(4), 6.0)) {
    EXPECT_EQ(Bits(p), 6.0);
    EXPECT_EQ(p.key_share, 0.0);
  }
  // Damaged inputs (negative or NaN counts) are taken as empty levels.
  const LsmShape odd = {{-5, 2}, {std::nan(""), 1}, {100, -1}, {900, 1}};
  EXPECT_NEAR(PlannedBitsPerKey(PlanForShape(odd, 10.0)), 10.0, 1e-9);
  // Infinite counts are taken as empty levels too, and a NaN budget as the
  // least one: no plan carries a NaN.
  const double inf = std::numeric_limits<double>::infinity();
  const LsmShape infinite = {{inf, 2}, {100, inf}, {900, 1}};
  for (const LsmShape& shape : {odd, infinite}) {
    for (double budget : {10.0, std::nan(""), inf, -inf}) {
      for (const LevelPlan& p : PlanForShape(shape, budget)) {
        EXPECT_TRUE(std::isfinite(p.key_share)) << budget;
        EXPECT_TRUE(std::isfinite(p.fp_rate)) << budget;
        EXPECT_TRUE(std::isfinite(p.filter.bits_per_key)) << budget;
      }
    }
  }
  EXPECT_NEAR(PlannedBitsPerKey(PlanForShape(infinite, 10.0)), 10.0, 1e-9);
  EXPECT_TRUE(PlanForShape({{100, 1}}, std::nan(""))[0].has_filter);
  // Tiny budget: the last level's filter is dropped (Monkey: at low memory
  // the largest level gets none), which beats 1 bit per key everywhere.
  const auto tiny = PlanLevels(Model{kMinBitsPerKey}, 7);
  EXPECT_FALSE(tiny.back().has_filter);
  for (int level = 0; level < 6; ++level) {
    if (tiny[level].key_share > 0) {
      EXPECT_GT(Bits(tiny[level]), 7.0) << level;
    }
  }
  EXPECT_NEAR(PlannedBitsPerKey(tiny), kMinBitsPerKey, 1e-9);
  EXPECT_LT(PlannedWastedReads(tiny), 1.05);
  EXPECT_GT(5.0 * PlannedFpRate(FilterKind::kRibbon, kMinBitsPerKey), 2.5);  // uniform
  // From ~1.2 bits per key on, every level has a filter.
  EXPECT_TRUE(PlanLevels(Model{1.25}, 7).back().has_filter);
  // Huge budget: nothing above the maximum; spends at most the budget.
  const auto huge = PlanLevels(Model{kMaxBitsPerKey}, 7);
  EXPECT_LE(PlannedBitsPerKey(huge), kMaxBitsPerKey + 1e-9);
  for (const LevelPlan& p : huge) EXPECT_LE(Bits(p), kMaxBitsPerKey);
  // Out-of-range model values are clamped, not trusted.
  EXPECT_NEAR(PlannedBitsPerKey(PlanLevels(Model{1000.0}, 7)), kMaxBitsPerKey, 1e-6);
  EXPECT_NEAR(PlannedBitsPerKey(PlanLevels(Model{10.0, 0, 0.5}, 7)), 10.0, 1e-9);
  // More populated levels than levels: all of L1..L(n-1).
  const auto two = PlanLevels(Model{10.0, 7}, 2);
  EXPECT_NEAR(two[0].key_share, two[1].key_share, 1e-12);  // L0 as large as L1
  EXPECT_NEAR(PlannedBitsPerKey(two), 10.0, 1e-9);
}

TEST(LevelAllocationTest, BottommostOption) {
  Model m{1.0};
  m.bottommost = 0;
  auto plan = PlanLevels(m, 7);
  EXPECT_FALSE(plan.back().has_filter);
  EXPECT_EQ(plan.back().fp_rate, 1.0);
  EXPECT_NEAR(PlannedBitsPerKey(plan), 1.0, 1e-9);  // the budget goes to the upper levels
  EXPECT_GT(Bits(plan[5]), 5.0);
  m.budget = 10;
  m.bottommost = 4;
  plan = PlanLevels(m, 7);
  EXPECT_DOUBLE_EQ(Bits(plan.back()), 4.0);
  EXPECT_EQ(plan.back().filter.kind, FilterKind::kRibbon);
  EXPECT_NEAR(PlannedBitsPerKey(plan), 10.0, 1e-9);
  // With 0 and a budget the upper levels cannot absorb, they stop at the
  // maximum and the plan spends less.
  // (the upper levels hold ~11% of the keys: at most ~11 bits per key).
  m.budget = 20;
  m.bottommost = 0;
  EXPECT_LT(PlannedBitsPerKey(PlanLevels(m, 7)), 12.0);
}

// Shapes the expected model never described: a shallow tree (L0 and the
// first level hold 40% of the keys) and a tree whose largest level is not
// the last. The budget holds and Monkey's direction holds: the levels with
// fewer keys per check get the lower FP rates.
TEST(LevelAllocationTest, AnyShapeKeepsTheBudget) {
  const LsmShape shallow = {{136, 3}, {}, {}, {}, {}, {277, 1}, {587, 1}};
  const LsmShape inverted = {{10, 1}, {500, 1}, {300, 1}, {200, 0.5}};
  for (const LsmShape& shape : {shallow, inverted}) {
    for (double budget : {2.0, 6.0, 10.0, 16.0}) {
      const auto plan = PlanForShape(shape, budget);
      ASSERT_EQ(plan.size(), shape.size());
      EXPECT_NEAR(PlannedBitsPerKey(plan), budget, 1e-9 * budget);
      for (size_t a = 0; a < plan.size(); ++a) {
        for (size_t b = 0; b < plan.size(); ++b) {
          if (!(shape[a].keys > 0) || !(shape[b].keys > 0)) continue;
          if (shape[a].keys / shape[a].checks < 0.5 * shape[b].keys / shape[b].checks) {
            EXPECT_LE(plan[a].fp_rate, plan[b].fp_rate) << budget << " L" << a << " L" << b;
          }
        }
      }
      // Better than the same memory spread uniformly, and not better than
      // the optimum at the information-theoretic bound.
      EXPECT_LT(PlannedWastedReads(plan), UniformRibbonWastedReads(shape, budget)) << budget;
      EXPECT_GT(PlannedWastedReads(plan), OptimalWastedReads(shape, budget)) << budget;
    }
  }
}

// Monkey's closed form where every level gets bits: W* = 2^-B * 2^(sum p
// log2(c/p)); where a level's share is too large for its checks, it gets
// no filter and the optimum spends the memory elsewhere.
TEST(LevelAllocationTest, OptimumIsMonkeysClosedForm) {
  const LsmShape shape = {{136, 3}, {277, 1}, {587, 1}};
  double entropy = 0;
  for (const LevelLoad& l : shape) {
    const double p = l.keys / 1000;
    entropy += p * std::log2(l.checks / p);
  }
  for (double budget : {4.0, 10.0, 20.0}) {
    EXPECT_NEAR(OptimalWastedReads(shape, budget), std::exp2(entropy - budget),
                1e-9 * std::exp2(entropy - budget));
  }
  // Uniform bound: every check at 2^-B is worse by (sum c) / 2^entropy.
  EXPECT_GT(5 * std::exp2(-10.0), OptimalWastedReads(shape, 10.0));
  // At 0 bits every check is a wasted read; a level nobody checks costs nothing.
  EXPECT_NEAR(OptimalWastedReads(shape, 0), 5.0, 1e-9);
  EXPECT_NEAR(OptimalWastedReads({{100, 0}, {100, 1}}, 1.0), std::exp2(-2.0), 1e-9);
  EXPECT_EQ(OptimalWastedReads({}, 10.0), 0.0);
  EXPECT_NEAR(UniformRibbonWastedReads(shape, 10.0), 5 * PlannedFpRate(FilterKind::kRibbon, 10.0),
              1e-12);
}

// The precomputed blocked-Bloom table against the exact large-n formula;
// on a mismatch, prints the table to paste into level_allocation.cc.
TEST(LevelAllocationTest, BlockedBloomTableMatchesTheFormula) {
  std::string table;
  bool mismatch = false;
  for (int bits = 1; bits <= 100; ++bits) {
    double best = 0;
    int best_lines = 1;
    for (int lines = 1; lines <= kMaxBlockedLinesPerKey; ++lines) {
      const double v = std::log2(
          BlockedBloomFpRate(bits, OptimalBlockedBloomProbes(bits, lines), lines));
      if (lines == 1 || v < best) {
        best = v;
        best_lines = lines;
      }
    }
    char buf[40];
    std::snprintf(buf, sizeof(buf), "{%.5f, %d},%s", best, best_lines, bits % 4 ? " " : "\n");
    table += buf;
    mismatch |= std::fabs(std::log2(PlannedFpRate(FilterKind::kBlockedBloom, bits)) - best) > 1e-4 ||
                PlannedLinesPerKey(bits) != best_lines;
  }
  EXPECT_FALSE(mismatch) << table;
}

TEST(LevelAllocationTest, RibbonCurveIsTheRibbonModel) {
  const KindOps& ops = *OpsFor(FilterKind::kRibbon);
  for (double bits : {1.0, 4.0, 7.0, 10.0, 20.0, 31.0}) {
    const FilterConfig config{FilterKind::kRibbon, bits, 1};
    const double model =
        ops.predicted_fp_rate(config, 1000000, ops.payload_bytes(config, 1000000));
    EXPECT_NEAR(PlannedFpRate(FilterKind::kRibbon, bits) / model, 1.0, 1e-9) << bits;
  }
  // Between whole bits the model itself, which mixes r- and (r+1)-column
  // rows: close to linear in FP, above the log-linear chord.
  for (double bits : {9.25, 9.5, 9.75}) {
    const FilterConfig config{FilterKind::kRibbon, bits, 1};
    EXPECT_NEAR(PlannedFpRate(FilterKind::kRibbon, bits) /
                    ops.predicted_fp_rate(config, 1000000, ops.payload_bytes(config, 1000000)),
                1.0, 1e-9)
        << bits;
  }
  EXPECT_GT(PlannedFpRate(FilterKind::kRibbon, 9.5),
            std::sqrt(PlannedFpRate(FilterKind::kRibbon, 9) * PlannedFpRate(FilterKind::kRibbon, 10)));
}

}  // namespace
}  // namespace sstfilter
