#include "plugin/core/level_allocation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "plugin/core/bisect.h"
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

// Ribbon's model at every grid point: a fractional budget mixes r- and
// (r+1)-column rows, so its FP rate is linear, not log-linear, between whole
// bits; the planner then prefers whole bits where they buy more.
FpCurve RibbonCurve() {
  const KindOps& ops = *OpsFor(FilterKind::kRibbon);
  FpCurve curve;
  for (int j = 0; j < kGridPoints; ++j) {
    const FilterConfig config{FilterKind::kRibbon, GridBits(j), 1};
    curve.fp.push_back(std::max(
        ops.predicted_fp_rate(config, kCurveKeys, ops.payload_bytes(config, kCurveKeys)),
        std::numeric_limits<double>::min()));
    curve.lines.push_back(1);
  }
  return curve;
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

// One level of the optimisation: free (kind and bits chosen) or fixed by
// the bottommost option, or empty (no keys: not part of the budget).
struct Term {
  double share;
  double checks;
  bool fixed;
  FilterKind kind;
  double bits;  // chosen or fixed; 0 = no filter
};

constexpr FilterKind kPlannedKinds[] = {FilterKind::kRibbon, FilterKind::kBlockedBloom};

struct HullPoint {
  double bits;
  double fp;
  FilterKind kind;
};

// The lower convex hull of every (bits, fp) choice: both kinds' grids, and
// (0, 1), no filter, if allowed. A level minimises checks * fp + price * bits,
// a linear cost, so its best choice is always a vertex of this hull, found
// by bisection on the hull's slopes instead of a scan of ~3,000 points.
std::vector<HullPoint> BuildHull(bool allow_no_filter) {
  std::vector<HullPoint> points;
  if (allow_no_filter) points.push_back({0.0, 1.0, FilterKind::kRibbon});
  for (FilterKind kind : kPlannedKinds) {
    for (int j = 0; j < kGridPoints; ++j) {
      points.push_back({GridBits(j), CurveFor(kind).fp[j], kind});
    }
  }
  // Ribbon first among equal bits: the lower FP (or, tied, the Ribbon) stays.
  std::stable_sort(points.begin(), points.end(), [](const HullPoint& a, const HullPoint& b) {
    return a.bits < b.bits || (a.bits == b.bits && a.fp < b.fp);
  });
  std::vector<HullPoint> hull;
  for (const HullPoint& p : points) {
    if (!hull.empty() && hull.back().bits == p.bits) continue;
    // Pop while the last vertex is not below the chord to p (cross product).
    while (hull.size() >= 2) {
      const HullPoint& a = hull[hull.size() - 2];
      const HullPoint& b = hull.back();
      if ((b.fp - a.fp) * (p.bits - a.bits) >= (p.fp - a.fp) * (b.bits - a.bits)) {
        hull.pop_back();
      } else {
        break;
      }
    }
    hull.push_back(p);
  }
  return hull;
}

const std::vector<HullPoint>& Hull(bool allow_no_filter) {
  static const auto* const with = new std::vector<HullPoint>(BuildHull(true));
  static const auto* const without = new std::vector<HullPoint>(BuildHull(false));
  return allow_no_filter ? *with : *without;
}

// The kind and bits minimising checks * fp(b) + lambda * share * b over
// both curves' grids and b = 0 (no filter, fp = 1): the level's choice at
// Lagrange multiplier lambda (the largest minimiser, so that the memory
// spent falls monotonically as lambda grows). Ribbon's curve is below
// BlockedBloom's up to ~31 bits, where it writes a standard Bloom filter
// (32-bit fingerprints); BlockedBloom with two lines wins above. No filter
// wins only when memory is very scarce: at a budget of 1 bit per key, 1 bit
// in the last level (FP 0.5) is worth less than ~10 more bits for every key
// above it.
void ChooseBits(double lambda, bool allow_no_filter, Term* t) {
  const std::vector<HullPoint>& hull = Hull(allow_no_filter);
  // Along the hull fp falls ever more slowly; the cost falls while a step's
  // fp drop times checks is at least its bits times the price.
  const double price = lambda * t->share;
  const size_t best = LastWhere(0, hull.size() - 1, [&](size_t i) {
    const HullPoint& a = hull[i - 1];
    const HullPoint& b = hull[i];
    return t->checks * (a.fp - b.fp) >= price * (b.bits - a.bits);
  });
  t->bits = hull[best].bits;
  t->kind = hull[best].kind;
}

double Spend(const std::vector<Term>& terms) {
  double spend = 0;
  for (const Term& t : terms) spend += t.share * t.bits;
  return spend;
}

void Solve(double budget, bool allow_no_filter, std::vector<Term>* terms) {
  auto spend_at = [&](double log_lambda) {
    for (Term& t : *terms) {
      if (!t.fixed) ChooseBits(std::exp(log_lambda), allow_no_filter, &t);
    }
    return Spend(*terms);
  };
  // Memory spent falls as lambda (the price of a bit) rises. Bisect for the
  // cheapest price at which the plan fits the budget.
  if (spend_at(-700) <= budget) return;  // every free level at kMaxBitsPerKey
  const double hi =
      Bisect(-700, 700, 100, [&](double log_lambda) { return !(spend_at(log_lambda) > budget); })
          .second;
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

std::vector<LevelPlan> PlanForShape(const LsmShape& shape, double budget,
                                    double bottommost_bits_per_key) {
  // NaN and infinities (a caller's bad input) count as the nearest sane
  // value: a plan never carries NaN.
  budget = std::isnan(budget) ? kMinBitsPerKey : std::clamp(budget, kMinBitsPerKey, kMaxBitsPerKey);
  auto keys_of = [](const LevelLoad& load) { return std::isfinite(load.keys) ? load.keys : 0.0; };
  double total = 0;
  int deepest = -1;
  for (size_t level = 0; level < shape.size(); ++level) {
    if (keys_of(shape[level]) > 0) {
      total += keys_of(shape[level]);
      deepest = static_cast<int>(level);
    }
  }
  std::vector<Term> terms;
  for (const LevelLoad& load : shape) {
    const bool empty = !(keys_of(load) > 0) || !(total > 0) || !std::isfinite(total);
    const double checks = std::isfinite(load.checks) ? std::max(load.checks, 0.0) : 0.0;
    terms.push_back(Term{empty ? 0.0 : keys_of(load) / total, checks, empty, FilterKind::kRibbon,
                         empty ? budget : 0.0});
  }
  if (deepest >= 0 && bottommost_bits_per_key >= 0) {
    terms[deepest].fixed = true;
    terms[deepest].bits = std::min(bottommost_bits_per_key, kMaxBitsPerKey);
  }
  // Dropping a filter is a jump (no filter, then kMinBitsPerKey or more),
  // which the Lagrangian can step over: between 1 and ~1.5 bits per key the
  // best plan may give the last level exactly the minimum. So solve with and
  // without the "no filter" choice and keep the plan that wastes less.
  std::vector<LevelPlan> best;
  bool best_fits = false;
  for (bool allow_no_filter : {false, true}) {
    std::vector<Term> solved = terms;
    // Empty levels hold no keys: they take no part in the budget.
    for (Term& t : solved) t.share = t.fixed && !(t.share > 0) ? 0.0 : t.share;
    Solve(budget, allow_no_filter, &solved);
    if (allow_no_filter) {
      // Keep the levels it dropped, and share the budget among the rest
      // again: Solve hands the gap of a jump to one level.
      for (Term& t : solved) t.fixed |= t.bits == 0;
      Solve(budget, false, &solved);
    }
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

LsmShape GeometricShape(int num_levels, int populated_levels, double level_size_ratio,
                        double l0_files) {
  if (num_levels <= 1) return {LevelLoad{1.0, std::max(l0_files, 1.0)}};
  const int last = num_levels - 1;
  const int first = std::max(1, last - std::max(populated_levels, 1) + 1);
  const double ratio = std::max(level_size_ratio, 1.0);
  LsmShape shape(num_levels);
  shape[0] = LevelLoad{std::pow(ratio, first - last), std::max(l0_files, 0.0)};
  for (int level = first; level <= last; ++level) {
    shape[level] = LevelLoad{std::pow(ratio, level - last), 1.0};
  }
  return shape;
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

double UniformRibbonWastedReads(const LsmShape& shape, double bits_per_key) {
  const double fp = bits_per_key >= kMinBitsPerKey
                        ? PlannedFpRate(FilterKind::kRibbon, bits_per_key)
                        : 1.0;
  double reads = 0;
  for (const LevelLoad& load : shape) reads += load.keys > 0 ? load.checks * fp : 0.0;
  return reads;
}

double OptimalWastedReads(const LsmShape& shape, double bits_per_key) {
  double total = 0;
  for (const LevelLoad& load : shape) total += load.keys > 0 ? load.keys : 0.0;
  if (!(total > 0)) return 0;
  // checks * ln2 * 2^-b = mu * share at the optimum: b = log2(checks / share)
  // - log2(mu / ln2), floored at 0 (no filter). Bisect log2(mu / ln2) until
  // the memory is spent.
  auto bits_at = [&](const LevelLoad& load, double m) {
    return std::max(0.0, std::log2(load.checks / (load.keys / total)) - m);
  };
  auto spend_at = [&](double m) {
    double spend = 0;
    for (const LevelLoad& load : shape) {
      if (load.keys > 0 && load.checks > 0) spend += load.keys / total * bits_at(load, m);
    }
    return spend;
  };
  // Spend falls as m rises.
  const double hi = Bisect(-2000, 2000, 200, [&](double m) {
                      return !(spend_at(m) > std::max(bits_per_key, 0.0));
                    }).second;
  double reads = 0;
  for (const LevelLoad& load : shape) {
    if (load.keys > 0 && load.checks > 0) reads += load.checks * std::exp2(-bits_at(load, hi));
  }
  return reads;
}

}  // namespace sstfilter
