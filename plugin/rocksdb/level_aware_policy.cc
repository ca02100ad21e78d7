#include "plugin/rocksdb/level_aware_policy.h"

#include <cmath>
#include <cstddef>
#include <limits>
#include <unordered_map>

#include <rocksdb/options.h>

#include "plugin/core/bloom_math.h"
#include "plugin/rocksdb/bits_builder.h"
#include "plugin/rocksdb/option_types.h"

namespace sstfilter {

using ROCKSDB_NAMESPACE::FilterBuildingContext;
using ROCKSDB_NAMESPACE::OptionTypeInfo;
using ROCKSDB_NAMESPACE::Status;

namespace {

constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();

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

LsmStyle StyleOf(ROCKSDB_NAMESPACE::CompactionStyle style) {
  switch (style) {
    case ROCKSDB_NAMESPACE::kCompactionStyleLevel: return LsmStyle::kLeveled;
    case ROCKSDB_NAMESPACE::kCompactionStyleUniversal: return LsmStyle::kUniversal;
    case ROCKSDB_NAMESPACE::kCompactionStyleFIFO: return LsmStyle::kFifo;
    default: return LsmStyle::kNone;
  }
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
  const LevelModel model = Model();
  if (model.bottommost_bits_per_key > model.budget_bits_per_key) {
    return std::string(kLevelAwareId) + ": bottommost_bits_per_key (" +
           FormatDouble(model.bottommost_bits_per_key) + ") must not exceed bits_per_key (" +
           FormatDouble(model.budget_bits_per_key) + ")";
  }
  return "";
}

Status LevelAwarePolicy::ValidateOptions(const ROCKSDB_NAMESPACE::DBOptions& db_opts,
                                         const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_opts) const {
  if (cf_opts.compaction_style == ROCKSDB_NAMESPACE::kCompactionStyleLevel &&
      !cf_opts.level_compaction_dynamic_level_bytes && cf_opts.num_levels > 1) {
    static_level_sizing_ = true;
  }
  return SstFilterPolicy::ValidateOptions(db_opts, cf_opts);
}

LevelModel LevelAwarePolicy::Model() const {
  LevelModel model;
  model.budget_bits_per_key = ResolvedConfig().bits_per_key;
  const LevelAwareOptions& o = level_options_;
  if (!std::isnan(o.level_size_ratio)) model.level_size_ratio = o.level_size_ratio;
  if (!std::isnan(o.populated_levels)) model.populated_levels = static_cast<int>(o.populated_levels);
  if (!std::isnan(o.l0_files)) model.l0_files = o.l0_files;
  if (!std::isnan(o.bottommost_bits_per_key)) {
    model.bottommost_bits_per_key = o.bottommost_bits_per_key;
  }
  return model;
}

std::shared_ptr<const LevelPlanner> LevelAwarePolicy::Planner() const {
  const LevelModel model = Model();
  std::lock_guard<std::mutex> lock(planner_mu_);
  // Options can change after construction (RocksDB configures the object in
  // place), so the planner follows the model.
  if (planner_ == nullptr || planner_->model() != model) {
    planner_ = std::make_shared<const LevelPlanner>(model);
  }
  return planner_;
}

LevelPlan LevelAwarePolicy::PlanFor(const FilterBuildingContext& context) const {
  FileSite site;
  site.style = StyleOf(context.compaction_style);
  site.num_levels = context.num_levels;
  // RocksDB fills the level fields only for files of the LSM (flush,
  // compaction, recovery); kMisc is SstFileWriter, i.e. ingestion.
  site.level = context.reason == ROCKSDB_NAMESPACE::TableFileCreationReason::kMisc
                   ? -1
                   : context.level_at_creation;
  site.is_bottommost = context.is_bottommost;
  site.static_level_sizing = static_level_sizing_;
  return Planner()->ForFile(site);
}

ROCKSDB_NAMESPACE::FilterBitsBuilder* LevelAwarePolicy::GetBuilderWithContext(
    const FilterBuildingContext& context) const {
  if (!ConfigError().empty()) return nullptr;  // see SstFilterPolicy
  const LevelPlan plan = PlanFor(context);
  if (!plan.has_filter) return nullptr;  // bottommost_bits_per_key=0
  return NewBuilder(plan.filter, context);
}

}  // namespace sstfilter
