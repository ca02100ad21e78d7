#include "plugin/rocksdb/level_aware_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstddef>
#include <limits>
#include <unordered_map>

#include <rocksdb/env.h>
#include <rocksdb/options.h>

#include "plugin/core/bloom_math.h"
#include "plugin/core/filter_config.h"
#include "plugin/rocksdb/bits_builder.h"
#include "plugin/rocksdb/option_types.h"

namespace sstfilter {

using ROCKSDB_NAMESPACE::FilterBuildingContext;
using ROCKSDB_NAMESPACE::OptionTypeInfo;
using ROCKSDB_NAMESPACE::Status;

namespace {

constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();
// The ranges the shape options were checked against, as before.
constexpr double kMaxLevelSizeRatio = 1000.0;
constexpr int kMaxPopulatedLevels = 64;
constexpr double kMaxL0Files = 100.0;

// Parses a number in [lo, hi] ((lo, hi] with `open_lo`; whole numbers only
// with `whole`).
Status ParseRange(const char* name, const std::string& value, double lo, double hi,
                  bool open_lo, bool whole, double* out) {
  double v = 0;
  const bool in_range = ParseFiniteDouble(value, &v) && (open_lo ? v > lo : v >= lo) &&
                        v <= hi && (!whole || v == std::floor(v));
  if (!in_range) {
    return Status::InvalidArgument(std::string("sstfilter.LevelAware: ") + name + " must be " +
                                   (whole ? "a whole number" : "a number") + " in " +
                                   (open_lo ? "(" : "[") + FormatDouble(lo) + ", " +
                                   FormatDouble(hi) + "], got '" + value + "'");
  }
  *out = v;
  return Status::OK();
}

Status ParseLevelSizeRatio(const std::string& value, double* out) {
  return ParseRange("level_size_ratio", value, 1.0, kMaxLevelSizeRatio, true, false, out);
}

Status ParsePopulatedLevels(const std::string& value, double* out) {
  return ParseRange("populated_levels", value, 1.0, kMaxPopulatedLevels, false, true, out);
}

Status ParseL0Files(const std::string& value, double* out) {
  return ParseRange("l0_files", value, 0.0, kMaxL0Files, false, false, out);
}

Status ParseBottommostBitsPerKey(const std::string& value, double* out) {
  if (value == "0") {
    *out = 0.0;
    return Status::OK();
  }
  const Status s = ParseRange("bottommost_bits_per_key", value, kMinBitsPerKey, kMaxBitsPerKey,
                              false, false, out);
  return s.ok() ? s : Status::InvalidArgument(s.getState() + std::string(" (or 0: no filter)"));
}

const std::unordered_map<std::string, OptionTypeInfo>& LevelAwareOptionTypes() {
  static const auto* types = new std::unordered_map<std::string, OptionTypeInfo>{
      {"level_size_ratio",
       DoubleOption(offsetof(LevelAwareOptions, level_size_ratio), ParseLevelSizeRatio)},
      {"populated_levels",
       DoubleOption(offsetof(LevelAwareOptions, populated_levels), ParsePopulatedLevels)},
      {"l0_files", DoubleOption(offsetof(LevelAwareOptions, l0_files), ParseL0Files)},
      {"bottommost_bits_per_key", DoubleOption(offsetof(LevelAwareOptions, bottommost_bits_per_key),
                                               ParseBottommostBitsPerKey)},
  };
  return *types;
}

}  // namespace

LevelAwarePolicy::LevelAwarePolicy()
    : SstFilterPolicy(FilterKind::kRibbon, kLevelAwareId),
      level_options_{kUnset, kUnset, kUnset, kUnset} {
  RegisterOptions("LevelAwareOptions", &level_options_, &LevelAwareOptionTypes());
}

std::string LevelAwarePolicy::ConfigError() const {
  if (!std::isnan(options().fp_rate)) {
    return std::string(kLevelAwareId) +
           ": the budget is memory: set bits_per_key, not fp_rate";
  }
  std::string error = SstFilterPolicy::ConfigError();
  if (!error.empty()) return error;
  if (BottommostBitsPerKey() > BudgetBitsPerKey()) {
    return std::string(kLevelAwareId) + ": bottommost_bits_per_key (" +
           FormatDouble(BottommostBitsPerKey()) + ") must not exceed bits_per_key (" +
           FormatDouble(BudgetBitsPerKey()) + ")";
  }
  return "";
}

double LevelAwarePolicy::BottommostBitsPerKey() const {
  return std::isnan(level_options_.bottommost_bits_per_key)
             ? -1.0
             : level_options_.bottommost_bits_per_key;
}

Status LevelAwarePolicy::ValidateOptions(const ROCKSDB_NAMESPACE::DBOptions& db_opts,
                                         const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_opts) const {
  bool has_listener = false;
  for (const auto& listener : db_opts.listeners) {
    has_listener |= listener != nullptr && std::string(listener->Name()) == kShapeListenerId;
  }
  listener_missing_ = !has_listener;
  return SstFilterPolicy::ValidateOptions(db_opts, cf_opts);
}

double LevelAwarePolicy::PlanningBudget(const LiveShape& shape) const {
  const double budget = BudgetBitsPerKey();
  // The memory the live files hold on average over the last flushes, or
  // now; files the listener did not see written count as the budget.
  const FilterMemory& memory = shape.sampled.keys > 0 ? shape.sampled : shape.live;
  if (!(memory.keys > 0)) return budget;
  const double corrected = 2 * budget - memory.SpentBits(budget) / memory.keys;
  return std::clamp(corrected, 0.9 * budget, 1.1 * budget);
}

double LevelAwarePolicy::L0Limit(const LiveShape& shape) const {
  const double peak = shape.l0_peak_keys;
  if (!(peak > 0)) return kMaxBitsPerKey;
  const double budget = BudgetBitsPerKey();
  const double others = std::max(0.0, shape.live.keys - shape.l0_files.keys);
  const double others_bits =
      std::max(0.0, shape.live.SpentBits(budget) - shape.l0_files.SpentBits(budget));
  return ((1 + kJobHeadroom) * budget * (peak + others) - others_bits) / peak;
}

LevelAwarePolicy::Bounds LevelAwarePolicy::JobBounds(
    const std::shared_ptr<const LiveShape>& shape_ptr, int level, bool leveled,
    bool flush) const {
  const LiveShape& shape = *shape_ptr;
  Bounds bounds{0.0, kMaxBitsPerKey};
  if (!flush && (level < 0 || static_cast<size_t>(level) >= shape.pending.size())) return bounds;
  const PendingWrite& w = flush ? shape.flushes : shape.pending[level];
  const double keys = w.inputs.keys;
  const double budget = BudgetBitsPerKey();
  if (!(keys > 0)) {
    // A flush of unknown size: a file of any size within this band leaves
    // live files within it where they are.
    if (flush && w.files > 0) bounds = {(1 - kJobHeadroom) * budget, (1 + kJobHeadroom) * budget};
    return bounds;
  }
  const double spent = shape.live.SpentBits(budget);
  const double freed = w.adds_keys ? 0 : w.inputs.SpentBits(budget);
  const double keys_after = shape.live.keys + (w.adds_keys ? keys : 0);
  // Each file the job writes adds its trailer to the bits per key it is
  // given. A job writes about as many files as it reads (a flush: one):
  // the cap counts that many, the floor one, so that neither bound moves
  // past the budget's when the job writes fewer.
  const double trailer_bits =
      8.0 * static_cast<double>(TrailerBytes(WrittenVersion(ResolvedConfig())));
  // The bits per key of the job's keys that leave the live files at
  // (1 + x) times the budget with `files` trailers.
  auto at = [&](double x, int files) {
    return ((1 + x) * budget * keys_after - spent + freed - files * trailer_bits) / keys;
  };
  bounds.floor = at(-kJobHeadroom, 1);
  bounds.cap = at(kJobHeadroom, std::max(w.files, 1));
  if (level > 0 && !shape.levels.empty()) {
    // Flushes refill L0 at its plan's bits. A compaction that takes all the
    // headroom while L0 is empty leaves them none, and L0's files, checked
    // by every lookup, then get less than the levels below them. Leveled:
    // room for L0 up to its peak at L0Limit's bits, counted from the floor,
    // more than those files take above the cap (from the budget, the
    // compactions during L0's fill take the band, and a load may end with
    // two of three L0 files cut to the cap). Universal compaction, whose
    // merges of runs follow no such cycle, or no flush seen yet: up to its
    // mean, from the budget.
    const bool to_peak = leveled && shape.l0_peak_keys > 0;
    const double l0_keys = to_peak ? shape.l0_peak_keys : shape.levels[0].keys;
    const double missing = std::max(0.0, l0_keys - shape.l0_keys_now);
    const auto plan = ShapePlan(shape_ptr);
    double l0_bits = plan->empty() || !(*plan)[0].has_filter ? 0 : (*plan)[0].filter.bits_per_key;
    if (to_peak) l0_bits = std::min(l0_bits, L0Limit(shape));
    const double from = to_peak ? 1 - kJobHeadroom : 1.0;
    const double excess = std::max(0.0, l0_bits - from * budget);
    bounds.cap = std::max(bounds.floor, bounds.cap - missing * excess / keys);
  }
  return bounds;
}

LevelAwarePolicy::Bounds LevelAwarePolicy::FileBounds(
    const std::shared_ptr<const LiveShape>& shape, int level, bool leveled, bool flush) const {
  Bounds bounds = JobBounds(shape, level, leveled, flush);
  if (leveled && level == 0) {
    bounds.cap = std::min(bounds.cap, std::max(L0Limit(*shape), bounds.floor));
  }
  return bounds;
}

std::shared_ptr<const std::vector<LevelPlan>> LevelAwarePolicy::ShapePlan(
    const std::shared_ptr<const LiveShape>& shape) const {
  std::lock_guard<std::mutex> lock(plan_mu_);
  if (planned_shape_ != shape || plan_ == nullptr) {
    plan_ = std::make_shared<const std::vector<LevelPlan>>(
        PlanForShape(shape->levels, PlanningBudget(*shape), BottommostBitsPerKey()));
    planned_shape_ = shape;
  }
  return plan_;
}

namespace {

bool IsLeveled(const FilterBuildingContext& context) {
  return context.compaction_style == ROCKSDB_NAMESPACE::kCompactionStyleLevel;
}

LevelPlan UniformPlan(double bits_per_key) {
  LevelPlan plan;
  plan.key_share = 1.0;
  plan.has_filter = bits_per_key > 0;
  plan.filter = FilterConfig{FilterKind::kRibbon, bits_per_key, 1};
  plan.fp_rate = plan.has_filter ? PlannedFpRate(FilterKind::kRibbon, bits_per_key) : 1.0;
  return plan;
}

}  // namespace

LevelPlan LevelAwarePolicy::PlanFor(const FilterBuildingContext& context,
                                    const std::shared_ptr<const LiveShape>& shape,
                                    Bounds* bounds_out) const {
  Bounds unbounded{0.0, kMaxBitsPerKey};
  Bounds& bounds = bounds_out != nullptr ? *bounds_out : unbounded;
  bounds = unbounded;
  const double bottommost = BottommostBitsPerKey();
  if (context.is_bottommost && bottommost >= 0) return UniformPlan(bottommost);
  // A file written while the DB opens (its WAL's keys) comes before any
  // callback of this DB session: a shape found now is an earlier session's,
  // or another DB's that shares this info log. The budget never overspends.
  if (context.reason == ROCKSDB_NAMESPACE::TableFileCreationReason::kRecovery) {
    return UniformPlan(BudgetBitsPerKey());
  }
  // RocksDB fills the level fields only for files of the LSM (flush,
  // compaction, recovery); kMisc is SstFileWriter, i.e. ingestion, whose
  // level is unknown. FIFO files are alike. Without a shape nothing is
  // known. Each of these gets the budget: it never overspends.
  const int level = context.reason == ROCKSDB_NAMESPACE::TableFileCreationReason::kMisc
                        ? -1
                        : context.level_at_creation;
  if (shape == nullptr || !(shape->live.keys > 0)) return UniformPlan(BudgetBitsPerKey());
  if (level < 0 || context.compaction_style == ROCKSDB_NAMESPACE::kCompactionStyleFIFO) {
    return UniformPlan(PlanningBudget(*shape));
  }
  const auto plan = ShapePlan(shape);
  if (static_cast<size_t>(level) >= plan->size() || !((*plan)[level].key_share > 0)) {
    return UniformPlan(PlanningBudget(*shape));  // a level the shape has no keys in
  }
  LevelPlan planned = (*plan)[level];
  // Files already written keep their bits, however the shape has changed
  // since: a job may take the live files no further than kJobHeadroom from
  // the budget once it replaces its inputs, above (overspending) nor below
  // (a job that rewrites most of the DB sets most of its memory).
  const bool flush = context.reason == ROCKSDB_NAMESPACE::TableFileCreationReason::kFlush;
  bounds = FileBounds(shape, level, IsLeveled(context), flush);
  // A plan without a filter (a tiny budget) is 0 bits per key, and bounded
  // as any other.
  const double planned_bits = planned.has_filter ? planned.filter.bits_per_key : 0.0;
  const double bits = std::min(std::max(planned_bits, bounds.floor), bounds.cap);
  if (bits != planned_bits) {
    planned = UniformPlan(bits > 0 ? std::clamp(bits, kMinBitsPerKey, kMaxBitsPerKey) : 0.0);
    planned.key_share = (*plan)[level].key_share;
    planned.checks = (*plan)[level].checks;
  }
  return planned;
}

void LevelAwarePolicy::LogPlan(const FilterBuildingContext& context,
                               const std::shared_ptr<const LiveShape>& shape,
                               const LevelPlan& plan, const Bounds& bounds) const {
  std::string levels = " unknown";
  double live = 0, planning = BudgetBitsPerKey();
  if (shape != nullptr) {
    levels.clear();
    for (size_t i = 0; i < shape->levels.size(); ++i) {
      if (!(shape->levels[i].keys > 0)) continue;
      char buf[64];
      std::snprintf(buf, sizeof(buf), " L%zu:%.0f/%.2f", i, shape->levels[i].keys,
                    shape->levels[i].checks);
      levels += buf;
    }
    if (shape->live.keys > 0) live = shape->live.SpentBits(BudgetBitsPerKey()) / shape->live.keys;
    planning = PlanningBudget(*shape);
  }
  ROCKSDB_NAMESPACE::Log(ROCKSDB_NAMESPACE::InfoLogLevel::INFO_LEVEL, context.info_log,
                         "%s: L%d file: %s %.3f bits/key; shape (keys/checks)%s; live %.3f "
                         "bits/key, planning budget %.3f, cap %.3f",
                         kLevelAwareId, context.level_at_creation,
                         plan.has_filter ? KindName(plan.filter.kind) : "no filter",
                         plan.has_filter ? plan.filter.bits_per_key : 0.0, levels.c_str(), live,
                         planning, std::clamp(bounds.cap, kMinBitsPerKey, kMaxBitsPerKey));
}

ROCKSDB_NAMESPACE::FilterBitsBuilder* LevelAwarePolicy::GetBuilderWithContext(
    const FilterBuildingContext& context) const {
  if (!ConfigError().empty()) return nullptr;  // see SstFilterPolicy
  bool shared_log = false;
  const std::shared_ptr<const LiveShape> shape =
      FindLiveShape(context.info_log, context.column_family_name, &shared_log);
  if (shared_log && context.info_log != nullptr && !warned_shared_.exchange(true)) {
    ROCKSDB_NAMESPACE::Log(ROCKSDB_NAMESPACE::InfoLogLevel::WARN_LEVEL, context.info_log,
                           "%s: several open DBs write to this info log, and a filter builder "
                           "cannot tell which one it writes for, so their files get the budget, "
                           "as Ribbon; give each DB its own info_log to plan by level",
                           kLevelAwareId);
  }
  if (shape == nullptr && listener_missing_ && context.info_log != nullptr &&
      !warned_.exchange(true)) {
    ROCKSDB_NAMESPACE::Log(ROCKSDB_NAMESPACE::InfoLogLevel::WARN_LEVEL, context.info_log,
                           "%s: the DB has no %s listener (DBOptions listeners), so the shape "
                           "of the LSM is unknown and every file gets the budget, as Ribbon",
                           kLevelAwareId, kShapeListenerId);
  }
  Bounds bounds{};
  const LevelPlan plan = PlanFor(context, shape, &bounds);
  if (context.info_log != nullptr) LogPlan(context, shape, plan, bounds);
  if (!plan.has_filter) return nullptr;  // bottommost_bits_per_key=0
  // The plan already gives each level its share of bits, and the budget's
  // band is kept on filters that round on the balance alone: no reserve.
  return NewBuilder(plan.filter, context, /*round_down_reserve=*/0.0);
}

}  // namespace sstfilter
