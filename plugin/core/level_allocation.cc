#include "plugin/core/level_allocation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "plugin/core/bloom_math.h"
#include "plugin/core/kind_ops.h"

namespace sstfilter {
namespace {

// Candidate allocations are multiples of this above kMinBitsPerKey: 1/16
// bit is 0.6% of a 10-bit budget, and what is left of the budget below one
// step is handed out exactly at the end (Solve).
constexpr double kGridStep = 1.0 / 16;
constexpr int kGridPoints =
    static_cast<int>((kMaxBitsPerKey - kMinBitsPerKey) / kGridStep) + 1;
// The FP models are taken at this many keys per filter, the size that
// Ribbon's large-n layout model describes (filters of a few thousand keys
// pay 1-3% more memory for Ribbon's fixed costs; see docs/LEVEL_AWARE.md).
constexpr size_t kCurveKeys = 1000000;

double GridBits(int j) { return kMinBitsPerKey + j * kGridStep; }

// FP rate of one kind on the grid: the core's models at whole bits per key,
// interpolated linearly in log FP. That is what Ribbon's fractional budgets
// do (they mix r- and r+1-column rows), and within 0.4% of the exact
// blocked-Bloom formula. Ribbon writes a standard Bloom filter from 32 bits
// per key on (32-bit fingerprints), so its curve rises there and the
// planner never picks more than ~31 bits for it.
struct FpCurve {
  std::vector<double> fp;  // at GridBits(j)
  std::vector<int> lines;  // BlockedBloom: lines per key, 1 or 2, at GridBits(j)

  double At(double bits) const {
    const double x = std::clamp((bits - kMinBitsPerKey) / kGridStep, 0.0, kGridPoints - 1.0);
    const int j = std::min(static_cast<int>(x), kGridPoints - 2);
    const double t = x - j;
    return std::exp((1 - t) * std::log(fp[j]) + t * std::log(fp[j + 1]));
  }
  int LinesAt(double bits) const {
    const double x = std::clamp((bits - kMinBitsPerKey) / kGridStep, 0.0, kGridPoints - 1.0);
    return lines[static_cast<int>(std::lround(x))];
  }
};

constexpr int kWholePoints = static_cast<int>(kMaxBitsPerKey - kMinBitsPerKey) + 1;

// The grid from log FP and lines per key at whole bits per key (index
// bits - kMinBitsPerKey).
FpCurve Interpolated(const std::vector<double>& log_fp, const std::vector<int>& lines) {
  FpCurve curve;
  for (int j = 0; j < kGridPoints; ++j) {
    const double x = GridBits(j) - kMinBitsPerKey;
    const int i = std::min(static_cast<int>(x), kWholePoints - 2);
    const double t = x - i;
    // Floored at the smallest normal double: far below any FP that matters.
    curve.fp.push_back(std::max(std::exp((1 - t) * log_fp[i] + t * log_fp[i + 1]),
                                std::numeric_limits<double>::min()));
    curve.lines.push_back(lines[std::min(static_cast<int>(std::lround(x)), kWholePoints - 1)]);
  }
  return curve;
}

FpCurve RibbonCurve() {
  const KindOps& ops = *OpsFor(FilterKind::kRibbon);
  std::vector<double> log_fp;
  for (int i = 0; i < kWholePoints; ++i) {
    const FilterConfig config{FilterKind::kRibbon, kMinBitsPerKey + i, 1};
    log_fp.push_back(std::log(
        ops.predicted_fp_rate(config, kCurveKeys, ops.payload_bytes(config, kCurveKeys))));
  }
  return Interpolated(log_fp, std::vector<int>(kWholePoints, 1));
}

// log2 FP of a large blocked Bloom filter at 1, 2, ..., 100 bits per key
// with the better of one and two lines per key, and that line count. The
// exact large-n formula (BlockedBloomFpRate with OptimalBlockedBloomProbes)
// costs ~1 ms a point, 0.2 s for the table, too slow for the first flush, so
// it is precomputed; tests/level_allocation_test.cc recomputes it
// (BlockedBloomTableMatchesTheFormula) and prints it on a mismatch.
struct BlockedPoint {
  double log2_fp;
  int lines;
};
constexpr BlockedPoint kBlockedBloomTable[kWholePoints] = {
    {-0.66173, 1}, {-1.34568, 1}, {-2.07849, 2}, {-2.75520, 1},
    {-3.43903, 2}, {-4.15081, 2}, {-4.79137, 2}, {-5.51041, 2},
    {-6.20467, 2}, {-6.85131, 2}, {-7.54729, 2}, {-8.22845, 2},
    {-8.87377, 2}, {-9.54300, 2}, {-10.21169, 2}, {-10.85159, 2},
    {-11.48955, 2}, {-12.14535, 2}, {-12.77708, 2}, {-13.38610, 2},
    {-14.02200, 2}, {-14.64358, 2}, {-15.24551, 2}, {-15.83585, 2},
    {-16.44582, 2}, {-17.03850, 2}, {-17.61465, 2}, {-18.18000, 2},
    {-18.76190, 2}, {-19.32901, 2}, {-19.88193, 2}, {-20.42124, 2},
    {-20.97042, 2}, {-21.51430, 2}, {-22.04579, 2}, {-22.56537, 2},
    {-23.07347, 2}, {-23.59446, 2}, {-24.10594, 2}, {-24.60688, 2},
    {-25.09762, 2}, {-25.57852, 2}, {-26.06329, 2}, {-26.54652, 2},
    {-27.02063, 2}, {-27.48592, 2}, {-27.94265, 2}, {-28.39110, 2},
    {-28.84429, 2}, {-29.29450, 2}, {-29.73698, 2}, {-30.17194, 2},
    {-30.59962, 2}, {-31.02020, 2}, {-31.43555, 2}, {-31.85737, 2},
    {-32.27254, 2}, {-32.68123, 2}, {-33.08363, 2}, {-33.47990, 2},
    {-33.87019, 2}, {-34.25466, 2}, {-34.64188, 2}, {-35.02750, 2},
    {-35.40761, 2}, {-35.78236, 2}, {-36.15188, 2}, {-36.51629, 2},
    {-36.87571, 2}, {-37.23026, 2}, {-37.58297, 2}, {-37.93850, 2},
    {-38.28940, 2}, {-38.63577, 2}, {-38.97773, 2}, {-39.31537, 2},
    {-39.64878, 2}, {-39.97805, 2}, {-40.30328, 2}, {-40.62456, 2},
    {-40.94846, 2}, {-41.27070, 2}, {-41.58916, 2}, {-41.90392, 2},
    {-42.21505, 2}, {-42.52262, 2}, {-42.82671, 2}, {-43.12738, 2},
    {-43.42470, 2}, {-43.71874, 2}, {-44.00956, 2}, {-44.30364, 2},
    {-44.59542, 2}, {-44.88411, 2}, {-45.16976, 2}, {-45.45244, 2},
    {-45.73219, 2}, {-46.00908, 2}, {-46.28314, 2}, {-46.55444, 2},
};

FpCurve BlockedBloomCurve() {
  std::vector<double> log_fp;
  std::vector<int> lines;
  for (const BlockedPoint& p : kBlockedBloomTable) {
    log_fp.push_back(p.log2_fp * std::log(2.0));
    lines.push_back(p.lines);
  }
  return Interpolated(log_fp, lines);
}

const FpCurve& CurveFor(FilterKind kind) {
  static const FpCurve* const ribbon = new FpCurve(RibbonCurve());
  static const FpCurve* const blocked = new FpCurve(BlockedBloomCurve());
  return kind == FilterKind::kBlockedBloom ? *blocked : *ribbon;
}

// One level of the optimisation: free (bits chosen) or fixed by the
// bottommost option.
struct Term {
  double share;
  double checks;
  FilterKind kind;
  bool fixed;
  double bits;  // chosen or fixed; 0 = no filter
};

// The bits minimising checks * fp(b) + lambda * share * b over the grid and
// b = 0 (no filter, fp = 1): the level's bits at Lagrange multiplier lambda
// (the largest minimiser, so that the memory spent falls monotonically as
// lambda grows). No filter wins only when memory is very scarce: at a
// budget of 1 bit per key, 1 bit in the last level (FP 0.5) is worth less
// than ~10 more bits for every key above it.
double BestBits(const Term& t, double lambda, bool allow_no_filter) {
  const FpCurve& curve = CurveFor(t.kind);
  double best_bits = 0;
  double best_cost = allow_no_filter ? t.checks : std::numeric_limits<double>::infinity();
  for (int j = 0; j < kGridPoints; ++j) {
    const double cost = t.checks * curve.fp[j] + lambda * t.share * GridBits(j);
    if (cost <= best_cost) {
      best_cost = cost;
      best_bits = GridBits(j);
    }
  }
  return best_bits;
}

double Spend(const std::vector<Term>& terms) {
  double spend = 0;
  for (const Term& t : terms) spend += t.share * t.bits;
  return spend;
}

void Solve(double budget, bool allow_no_filter, std::vector<Term>* terms) {
  auto spend_at = [&](double log_lambda) {
    for (Term& t : *terms) {
      if (!t.fixed) t.bits = BestBits(t, std::exp(log_lambda), allow_no_filter);
    }
    return Spend(*terms);
  };
  // Memory spent falls as lambda (the price of a bit) rises. Bisect for the
  // cheapest price at which the plan fits the budget.
  double lo = -700, hi = 700;
  if (spend_at(lo) <= budget) return;  // every free level at kMaxBitsPerKey
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (spend_at(mid) > budget ? lo : hi) = mid;
  }
  // Leftover below one grid step: to the largest levels with a filter
  // first, so the plan spends exactly the budget.
  double residual = budget - spend_at(hi);
  std::vector<Term*> by_share;
  for (Term& t : *terms) {
    if (!t.fixed && t.share > 0 && t.bits > 0) by_share.push_back(&t);
  }
  std::sort(by_share.begin(), by_share.end(),
            [](const Term* a, const Term* b) { return a->share > b->share; });
  for (Term* t : by_share) {
    if (residual <= 0) break;
    const double add = std::min(residual / t->share, kMaxBitsPerKey - t->bits);
    t->bits += add;
    residual -= add * t->share;
  }
}

LevelPlan ToPlan(const Term& t) {
  LevelPlan p;
  p.key_share = t.share;
  p.checks = t.checks;
  p.has_filter = t.bits > 0;
  p.filter.kind = t.kind;
  p.filter.bits_per_key = t.bits;
  p.filter.lines_per_key =
      t.kind == FilterKind::kBlockedBloom ? CurveFor(t.kind).LinesAt(t.bits) : 1;
  p.fp_rate = p.has_filter ? CurveFor(t.kind).At(t.bits) : 1.0;
  return p;
}

}  // namespace

bool LevelModel::operator==(const LevelModel& o) const {
  return budget_bits_per_key == o.budget_bits_per_key &&
         level_size_ratio == o.level_size_ratio && populated_levels == o.populated_levels &&
         l0_files == o.l0_files && bottommost_bits_per_key == o.bottommost_bits_per_key;
}

std::vector<LevelPlan> PlanLevels(const LevelModel& model, int num_levels) {
  const double budget = std::clamp(model.budget_bits_per_key, kMinBitsPerKey, kMaxBitsPerKey);
  if (num_levels <= 1) {
    // One level: every file holds an equal part and is consulted alike, so
    // equal FP rates are optimal.
    return {ToPlan(Term{1.0, std::max(model.l0_files, 1.0), FilterKind::kRibbon, true, budget})};
  }
  const int last = num_levels - 1;
  const int first = std::max(1, last - std::max(model.populated_levels, 1) + 1);
  const double ratio = std::max(model.level_size_ratio, 1.0);
  // Shares T^(level - last), L0 as large as the first populated level.
  std::vector<Term> terms(num_levels);
  double total = 0;
  for (int level = 0; level <= last; ++level) {
    Term& t = terms[level];
    t = Term{0.0, 0.0, FilterKind::kRibbon, false, 0.0};
    if (level == 0) {
      t.share = std::pow(ratio, first - last);
      t.checks = std::max(model.l0_files, 0.0);
      t.kind = FilterKind::kBlockedBloom;  // short-lived, consulted by every lookup: fast
    } else if (level >= first) {
      t.share = std::pow(ratio, level - last);
      t.checks = 1.0;
    } else {
      t.fixed = true;  // not expected to hold data; copied from `first` below
    }
    total += t.share;
  }
  for (Term& t : terms) t.share /= total;
  if (model.bottommost_bits_per_key >= 0) {
    terms[last].fixed = true;
    terms[last].bits = std::min(model.bottommost_bits_per_key, kMaxBitsPerKey);
  }
  // Dropping a filter is a jump (no filter, then kMinBitsPerKey or more),
  // which the Lagrangian can step over: between 1 and ~1.5 bits per key the
  // best plan may give the last level exactly the minimum. So solve with and
  // without the "no filter" choice and keep the plan that wastes less.
  std::vector<LevelPlan> best;
  bool best_fits = false;
  for (bool allow_no_filter : {false, true}) {
    std::vector<Term> solved = terms;
    Solve(budget, allow_no_filter, &solved);
    if (allow_no_filter) {
      // Keep the levels it dropped, and share the budget among the rest
      // again: Solve hands the gap of a jump to one level.
      for (Term& t : solved) t.fixed |= t.bits == 0;
      Solve(budget, false, &solved);
    }
    for (int level = 1; level < first; ++level) solved[level].bits = solved[first].bits;
    std::vector<LevelPlan> plan;
    for (const Term& t : solved) plan.push_back(ToPlan(t));
    const bool fits = PlannedBitsPerKey(plan) <= budget * (1 + 1e-9);
    if (best.empty() || (fits && !best_fits) ||
        (fits && PlannedWastedReads(plan) < PlannedWastedReads(best))) {
      best = plan;
      best_fits = fits;
    }
  }
  return best;
}

double PlannedFpRate(FilterKind kind, double bits_per_key) {
  return CurveFor(kind).At(bits_per_key);
}

int PlannedLinesPerKey(double bits_per_key) {
  return CurveFor(FilterKind::kBlockedBloom).LinesAt(bits_per_key);
}

double PlannedBitsPerKey(const std::vector<LevelPlan>& plan) {
  double bits = 0;
  for (const LevelPlan& p : plan) bits += p.has_filter ? p.key_share * p.filter.bits_per_key : 0;
  return bits;
}

double PlannedWastedReads(const std::vector<LevelPlan>& plan) {
  double reads = 0;
  for (const LevelPlan& p : plan) reads += p.checks * p.fp_rate;
  return reads;
}

const std::vector<LevelPlan>& LevelPlanner::Plan(int num_levels) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plans_.find(num_levels);
  if (it == plans_.end()) it = plans_.emplace(num_levels, PlanLevels(model_, num_levels)).first;
  return it->second;
}

LevelPlan LevelPlanner::ForFile(const FileSite& site) const {
  if (site.style == LsmStyle::kFifo || site.num_levels == 1) return Plan(1)[0];
  if (site.static_level_sizing && site.level >= 0) {
    LevelPlan plan = Plan(1)[0];
    if (site.is_bottommost && model_.bottommost_bits_per_key >= 0) {
      plan.has_filter = model_.bottommost_bits_per_key > 0;
      plan.filter.bits_per_key = model_.bottommost_bits_per_key;
      plan.fp_rate = plan.has_filter ? PlannedFpRate(FilterKind::kRibbon, plan.filter.bits_per_key) : 1.0;
    }
    return plan;
  }
  const int num_levels = site.num_levels > 1 ? site.num_levels : kDefaultNumLevels;
  if (site.level < 0) {
    if (model_.bottommost_bits_per_key < 0) return Plan(num_levels).back();
    std::lock_guard<std::mutex> lock(mu_);
    auto it = plans_no_override_.find(num_levels);
    if (it == plans_no_override_.end()) {
      LevelModel planned = model_;
      planned.bottommost_bits_per_key = -1;
      it = plans_no_override_.emplace(num_levels, PlanLevels(planned, num_levels)).first;
    }
    return it->second.back();
  }
  const std::vector<LevelPlan>& plan = Plan(num_levels);
  if (site.is_bottommost && model_.bottommost_bits_per_key >= 0) return plan.back();
  return plan[std::min(site.level, num_levels - 1)];
}

}  // namespace sstfilter
