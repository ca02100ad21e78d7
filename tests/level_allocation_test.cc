// The level-aware allocation math (plugin/core/level_allocation.h): the
// budget is kept on the expected level distribution, more bits go to the
// upper levels, the plan is monotone in its inputs and no cheaper
// reallocation exists, plus the edge cases and the file-site rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "plugin/core/bloom_math.h"
#include "plugin/core/kind_ops.h"
#include "plugin/core/level_allocation.h"

namespace sstfilter {
namespace {

LevelModel Model(double budget, int populated_levels = 3, double ratio = 10.0) {
  LevelModel m;
  m.budget_bits_per_key = budget;
  m.populated_levels = populated_levels;
  m.level_size_ratio = ratio;
  return m;
}

double Bits(const LevelPlan& p) { return p.has_filter ? p.filter.bits_per_key : 0.0; }

TEST(LevelAllocationTest, BudgetIsKeptOnTheExpectedDistribution) {
  for (double budget : {1.0, 2.0, 6.0, 10.0, 16.0, 24.0}) {
    for (int num_levels = 1; num_levels <= 8; ++num_levels) {
      for (int populated : {1, 3, 7}) {
        for (double ratio : {2.0, 10.0, 30.0}) {
          const auto plan = PlanLevels(Model(budget, populated, ratio), num_levels);
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
    const auto plan = PlanLevels(Model(budget, 4), 7);
    // Levels 3..6 are populated; 1 and 2 copy level 3.
    for (int level = 3; level < 6; ++level) {
      EXPECT_GT(Bits(plan[level]), Bits(plan[level + 1])) << budget << " L" << level;
      EXPECT_LT(plan[level].fp_rate, plan[level + 1].fp_rate) << budget << " L" << level;
    }
    EXPECT_EQ(Bits(plan[1]), Bits(plan[3]));
    EXPECT_EQ(plan[1].key_share, 0.0);
    EXPECT_LT(Bits(plan[6]), budget);  // the last level pays for the others
    // L0: the fast kind, and a lower FP rate per check than the last level.
    EXPECT_EQ(plan[0].filter.kind, FilterKind::kBlockedBloom);
    EXPECT_EQ(plan[6].filter.kind, FilterKind::kRibbon);
    EXPECT_LT(plan[0].fp_rate, plan[6].fp_rate);
  }
}

// Monkey's closed form for fp = 2^-bits: FP rates proportional to
// share / checks, i.e. log2(T) more bits per level up (Ribbon's curve is
// 2^-bits within ~1% of memory).
TEST(LevelAllocationTest, RibbonLevelsFollowTheClosedForm) {
  for (double ratio : {4.0, 10.0}) {
    const auto plan = PlanLevels(Model(10.0, 4, ratio), 7);
    for (int level = 3; level < 6; ++level) {
      EXPECT_NEAR(Bits(plan[level]) - Bits(plan[level + 1]), std::log2(ratio), 0.1)
          << ratio << " L" << level;
      EXPECT_NEAR(plan[level + 1].fp_rate / plan[level].fp_rate, ratio, 0.1 * ratio);
    }
  }
}

TEST(LevelAllocationTest, MonotoneInBudgetRatioAndL0Files) {
  std::vector<LevelPlan> previous;
  for (double budget = 1.0; budget <= 30.0; budget += 0.25) {
    const auto plan = PlanLevels(Model(budget), 7);
    if (!previous.empty()) {
      // Once every level has a filter, more memory never takes bits away.
      for (int level = 0; level < 7; ++level) {
        if (previous.back().has_filter) {
          EXPECT_GE(Bits(plan[level]) + 1e-9, Bits(previous[level])) << budget << " L" << level;
        }
      }
      EXPECT_LE(PlannedWastedReads(plan), PlannedWastedReads(previous) * (1 + 1e-9)) << budget;
    }
    previous = plan;
  }
  // A steeper tree puts more keys in the last level: it gets more bits.
  double last_bits = 0;
  for (double ratio : {2.0, 4.0, 10.0, 30.0}) {
    const double bits = Bits(PlanLevels(Model(10.0, 3, ratio), 7).back());
    EXPECT_GT(bits, last_bits) << ratio;
    last_bits = bits;
  }
  // More L0 files consulted per lookup: more bits for each.
  double l0_bits = 0;
  for (double files : {0.5, 1.0, 2.0, 4.0, 8.0}) {
    LevelModel m = Model(10.0);
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
    const auto plan = PlanLevels(Model(budget), 7);
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
    const auto plan = PlanLevels(Model(7.5), num_levels);
    ASSERT_EQ(plan.size(), 1u);
    EXPECT_EQ(plan[0].filter.kind, FilterKind::kRibbon);
    EXPECT_DOUBLE_EQ(Bits(plan[0]), 7.5);
    EXPECT_DOUBLE_EQ(plan[0].key_share, 1.0);
  }
  // Tiny budget: the last level's filter is dropped (Monkey: at low memory
  // the largest level gets none), which beats 1 bit per key everywhere.
  const auto tiny = PlanLevels(Model(kMinBitsPerKey), 7);
  EXPECT_FALSE(tiny.back().has_filter);
  for (int level = 0; level < 6; ++level) EXPECT_GT(Bits(tiny[level]), 7.0) << level;
  EXPECT_NEAR(PlannedBitsPerKey(tiny), kMinBitsPerKey, 1e-9);
  EXPECT_LT(PlannedWastedReads(tiny), 1.05);
  EXPECT_GT(5.0 * PlannedFpRate(FilterKind::kRibbon, kMinBitsPerKey), 2.5);  // uniform
  // From ~1.2 bits per key on, every level has a filter.
  EXPECT_TRUE(PlanLevels(Model(1.25), 7).back().has_filter);
  // Huge budget: nothing above the maximum; spends at most the budget.
  const auto huge = PlanLevels(Model(kMaxBitsPerKey), 7);
  EXPECT_LE(PlannedBitsPerKey(huge), kMaxBitsPerKey + 1e-9);
  for (const LevelPlan& p : huge) EXPECT_LE(Bits(p), kMaxBitsPerKey);
  // Out-of-range model values are clamped, not trusted.
  EXPECT_NEAR(PlannedBitsPerKey(PlanLevels(Model(1000.0), 7)), kMaxBitsPerKey, 1e-6);
  EXPECT_NEAR(PlannedBitsPerKey(PlanLevels(Model(10.0, 0, 0.5), 7)), 10.0, 1e-9);
  // More populated levels than levels: all of L1..L(n-1).
  const auto two = PlanLevels(Model(10.0, 7), 2);
  EXPECT_NEAR(two[0].key_share, two[1].key_share, 1e-12);  // L0 as large as L1
  EXPECT_NEAR(PlannedBitsPerKey(two), 10.0, 1e-9);
}

TEST(LevelAllocationTest, BottommostOption) {
  LevelModel m = Model(1.0);
  m.bottommost_bits_per_key = 0;
  auto plan = PlanLevels(m, 7);
  EXPECT_FALSE(plan.back().has_filter);
  EXPECT_EQ(plan.back().fp_rate, 1.0);
  EXPECT_NEAR(PlannedBitsPerKey(plan), 1.0, 1e-9);  // the budget goes to the upper levels
  EXPECT_GT(Bits(plan[5]), 5.0);
  m.budget_bits_per_key = 10;
  m.bottommost_bits_per_key = 4;
  plan = PlanLevels(m, 7);
  EXPECT_DOUBLE_EQ(Bits(plan.back()), 4.0);
  EXPECT_EQ(plan.back().filter.kind, FilterKind::kRibbon);
  EXPECT_NEAR(PlannedBitsPerKey(plan), 10.0, 1e-9);
  // With 0 and a budget the upper levels cannot absorb, they stop at the
  // maximum and the plan spends less.
  // (the upper levels hold ~11% of the keys: at most ~11 bits per key).
  m.budget_bits_per_key = 20;
  m.bottommost_bits_per_key = 0;
  EXPECT_LT(PlannedBitsPerKey(PlanLevels(m, 7)), 12.0);
}

TEST(LevelAllocationTest, FileSites) {
  LevelModel m = Model(10.0);
  const LevelPlanner planner(m);
  const auto plan = PlanLevels(m, 7);
  auto site = [](LsmStyle style, int num_levels, int level, bool bottommost) {
    FileSite s;
    s.style = style;
    s.num_levels = num_levels;
    s.level = level;
    s.is_bottommost = bottommost;
    return s;
  };
  for (int level = 0; level < 7; ++level) {
    const LevelPlan p = planner.ForFile(site(LsmStyle::kLeveled, 7, level, level == 6));
    EXPECT_EQ(Bits(p), Bits(plan[level])) << level;
    EXPECT_EQ(p.filter.kind, plan[level].filter.kind) << level;
  }
  // Universal and kNone: the same levels.
  EXPECT_EQ(Bits(planner.ForFile(site(LsmStyle::kUniversal, 7, 5, false))), Bits(plan[5]));
  EXPECT_EQ(Bits(planner.ForFile(site(LsmStyle::kNone, 7, 0, false))), Bits(plan[0]));
  // Past the last level: the last level's plan.
  EXPECT_EQ(Bits(planner.ForFile(site(LsmStyle::kLeveled, 7, 9, false))), Bits(plan[6]));
  // Unknown level (SstFileWriter): the last level, of RocksDB's default
  // 7 levels when the context has none.
  EXPECT_EQ(Bits(planner.ForFile(site(LsmStyle::kLeveled, -1, -1, false))), Bits(plan[6]));
  EXPECT_EQ(Bits(planner.ForFile(site(LsmStyle::kLeveled, 5, -1, false))),
            Bits(PlanLevels(m, 5).back()));
  // FIFO and single-level trees: every file at the budget, Ribbon.
  for (const FileSite& s : {site(LsmStyle::kFifo, 1, 0, false), site(LsmStyle::kFifo, 7, 0, true),
                            site(LsmStyle::kUniversal, 1, 0, false)}) {
    const LevelPlan p = planner.ForFile(s);
    EXPECT_DOUBLE_EQ(Bits(p), 10.0);
    EXPECT_EQ(p.filter.kind, FilterKind::kRibbon);
  }

  // Static level sizing: the budget in every file.
  FileSite static_site = site(LsmStyle::kLeveled, 7, 5, false);
  static_site.static_level_sizing = true;
  EXPECT_DOUBLE_EQ(Bits(planner.ForFile(static_site)), 10.0);
  static_site.level = 0;
  EXPECT_EQ(planner.ForFile(static_site).filter.kind, FilterKind::kRibbon);

  m.bottommost_bits_per_key = 0;
  const LevelPlanner hits(m);
  static_site.is_bottommost = true;
  EXPECT_FALSE(hits.ForFile(static_site).has_filter);
  // Bottommost by RocksDB's word, whatever the level: no filter.
  EXPECT_FALSE(hits.ForFile(site(LsmStyle::kLeveled, 7, 6, true)).has_filter);
  EXPECT_FALSE(hits.ForFile(site(LsmStyle::kLeveled, 7, 4, true)).has_filter);
  EXPECT_TRUE(hits.ForFile(site(LsmStyle::kLeveled, 7, 4, false)).has_filter);
  // An ingested file may land anywhere: it keeps a filter, the last level's
  // without the option.
  const LevelPlan ingested = hits.ForFile(site(LsmStyle::kLeveled, -1, -1, false));
  EXPECT_TRUE(ingested.has_filter);
  EXPECT_EQ(Bits(ingested), Bits(plan[6]));
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
  // Between whole bits: log-linear, as Ribbon's fractional budgets are.
  EXPECT_NEAR(PlannedFpRate(FilterKind::kRibbon, 9.5),
              std::sqrt(PlannedFpRate(FilterKind::kRibbon, 9) *
                        PlannedFpRate(FilterKind::kRibbon, 10)),
              1e-12);
}

}  // namespace
}  // namespace sstfilter
