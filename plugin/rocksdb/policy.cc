#include "plugin/rocksdb/policy.h"

#include <cmath>
#include <limits>
#include <unordered_map>
#include <utility>

#include <rocksdb/convenience.h>
#include <rocksdb/utilities/options_type.h>

#include "plugin/core/bloom_math.h"
#include "plugin/core/kind_ops.h"
#include "plugin/rocksdb/bits_builder.h"
#include "plugin/rocksdb/bits_reader.h"
#include "plugin/rocksdb/option_types.h"

namespace sstfilter {

using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::OptionTypeInfo;
using ROCKSDB_NAMESPACE::Status;

namespace {

constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();
constexpr double kDefaultBitsPerKey = 10.0;

Status ParseBitsPerKey(const std::string& value, double* out) {
  double v = 0;
  if (!ParseFiniteDouble(value, &v) || v < kMinBitsPerKey || v > kMaxBitsPerKey) {
    return Status::InvalidArgument(
        "sstfilter: bits_per_key must be a number in [" +
        std::to_string(static_cast<int>(kMinBitsPerKey)) + ", " +
        std::to_string(static_cast<int>(kMaxBitsPerKey)) + "], got '" + value + "'");
  }
  *out = v;
  return Status::OK();
}

Status ParseFpRate(const std::string& value, double* out) {
  double v = 0;
  if (!ParseFiniteDouble(value, &v) || !(v > 0.0) || !(v < 1.0)) {
    return Status::InvalidArgument(
        "sstfilter: fp_rate must be a number in the open interval (0, 1), got '" +
        value + "'");
  }
  *out = v;
  return Status::OK();
}

Status ParseLinesPerKey(const std::string& value, double* out) {
  if (value != "1" && value != "2") {
    return Status::InvalidArgument("sstfilter: lines_per_key must be 1 or 2, got '" + value + "'");
  }
  *out = value == "1" ? 1.0 : 2.0;
  return Status::OK();
}

Status ParseFormatVersion(const std::string& value, double* out) {
  if (value != "2" && value != "3") {
    return Status::InvalidArgument("sstfilter: format_version must be 2 or 3, got '" + value + "'");
  }
  *out = value == "2" ? 2.0 : 3.0;
  return Status::OK();
}

const std::unordered_map<std::string, OptionTypeInfo>& PolicyOptionTypes() {
  static const auto* types = new std::unordered_map<std::string, OptionTypeInfo>{
      {"bits_per_key", DoubleOption(offsetof(PolicyOptions, bits_per_key), ParseBitsPerKey)},
      {"fp_rate", DoubleOption(offsetof(PolicyOptions, fp_rate), ParseFpRate)},
      {"lines_per_key", DoubleOption(offsetof(PolicyOptions, lines_per_key), ParseLinesPerKey)},
      {"format_version",
       DoubleOption(offsetof(PolicyOptions, format_version), ParseFormatVersion)},
  };
  return *types;
}

}  // namespace

std::string PolicyId(FilterKind kind) {
  return std::string("sstfilter.") + KindName(kind);
}

SstFilterPolicy::SstFilterPolicy(FilterKind kind)
    : SstFilterPolicy(kind, OpsFor(kind) != nullptr ? PolicyId(kind) : "sstfilter.Invalid") {}

SstFilterPolicy::SstFilterPolicy(FilterKind kind, std::string name)
    : kind_(kind), name_(std::move(name)), options_{kUnset, kUnset, kUnset, kUnset} {
  RegisterOptions("SstFilterPolicyOptions", &options_, &PolicyOptionTypes());
}

const char* SstFilterPolicy::Name() const { return name_.c_str(); }

void SstFilterPolicy::SetBitsPerKey(const std::string& value) {
  const Status s = ParseBitsPerKey(value, &options_.bits_per_key);
  if (!s.ok()) Poison(s.getState());
}

std::string SstFilterPolicy::ConfigError() const {
  if (!config_error_.empty()) return config_error_;
  if (!std::isnan(options_.bits_per_key) && !std::isnan(options_.fp_rate)) {
    return std::string(Name()) + ": set bits_per_key or fp_rate, not both";
  }
  if (!std::isnan(options_.lines_per_key) && kind_ != FilterKind::kBlockedBloom) {
    return std::string(Name()) + ": lines_per_key applies to sstfilter.BlockedBloom only";
  }
  if (!std::isnan(options_.fp_rate) &&
      BitsPerKeyForFpRateCached() > kMaxBitsPerKey) {
    return std::string(Name()) + ": fp_rate " + FormatDouble(options_.fp_rate) +
           " needs more than " + FormatDouble(kMaxBitsPerKey) + " bits per key";
  }
  return "";
}

Status SstFilterPolicy::ConfigureOptions(
    const ConfigOptions& config_options,
    const std::unordered_map<std::string, std::string>& opts_map,
    std::unordered_map<std::string, std::string>* unused) {
  ConfigOptions copy = config_options;
  copy.invoke_prepare_options = false;
  const Status s = FilterPolicy::ConfigureOptions(copy, opts_map, unused);
  if (!s.ok()) Poison(std::string(Name()) + ": " + s.ToString());
  if (config_options.invoke_prepare_options) return PrepareOptions(config_options);
  // Without input_strings_escaped RocksDB passes our error up to the caller
  // (GetOptionsFromString's legacy form): report it now rather than at Open.
  const std::string error = ConfigError();
  if (!config_options.input_strings_escaped && !error.empty()) {
    return Status::InvalidArgument(error);
  }
  return Status::OK();
}

Status SstFilterPolicy::PrepareOptions(const ConfigOptions& config_options) {
  const std::string error = ConfigError();
  if (!error.empty()) return Status::InvalidArgument(error);
  return FilterPolicy::PrepareOptions(config_options);
}

Status SstFilterPolicy::ValidateOptions(
    const ROCKSDB_NAMESPACE::DBOptions& db_opts,
    const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_opts) const {
  const std::string error = ConfigError();
  if (!error.empty()) return Status::InvalidArgument(error);
  return FilterPolicy::ValidateOptions(db_opts, cf_opts);
}

// Sizing from an FP rate can take tens of ms (the exact blocked-Bloom
// formula), and builders are made per SST file: remember the answer.
double SstFilterPolicy::BitsPerKeyForFpRateCached() const {
  const FilterConfig config = ResolvedConfigWithoutBudget();
  std::lock_guard<std::mutex> lock(fp_cache_mu_);
  if (!(fp_cache_.fp_rate == options_.fp_rate && fp_cache_.lines_per_key == config.lines_per_key)) {
    fp_cache_ = {options_.fp_rate, config.lines_per_key,
                 BitsPerKeyForFpRate(config, options_.fp_rate)};
  }
  return fp_cache_.bits_per_key;
}

FilterConfig SstFilterPolicy::ResolvedConfigWithoutBudget() const {
  FilterConfig config;
  config.kind = kind_;
  config.lines_per_key =
      std::isnan(options_.lines_per_key) ? 1 : static_cast<int>(options_.lines_per_key);
  if (!std::isnan(options_.format_version)) {
    config.format_version = static_cast<uint8_t>(options_.format_version);
  }
  return config;
}

FilterConfig SstFilterPolicy::ResolvedConfig() const {
  FilterConfig config = ResolvedConfigWithoutBudget();
  if (!std::isnan(options_.bits_per_key)) {
    config.bits_per_key = options_.bits_per_key;
  } else if (!std::isnan(options_.fp_rate)) {
    config.bits_per_key = std::min(kMaxBitsPerKey, BitsPerKeyForFpRateCached());
  } else {
    config.bits_per_key = kDefaultBitsPerKey;
  }
  return config;
}

ROCKSDB_NAMESPACE::FilterBitsBuilder* SstFilterPolicy::GetBuilderWithContext(
    const ROCKSDB_NAMESPACE::FilterBuildingContext& context) const {
  // Unreachable through RocksDB's checks (DB::Open validates); if someone
  // bypasses them, write no filter rather than one the user did not ask for.
  if (!ConfigError().empty()) return nullptr;
  // Every lookup checks an L0 file's filter, and a file above the last
  // level is checked by about ten times the lookups per key of a last-level
  // file: where the allocator's classes leave a choice, these take the
  // class above and last-level filters the one below (alloc_fit.h). The FP
  // rate averaged over filters stays the budget's, and the one a miss sees
  // falls. A filter of no known level (SstFileWriter's) rounds on the
  // balance alone.
  return NewBuilder(ResolvedConfig(), context,
                    OftenCheckedReserve(context.level_at_creation, context.is_bottommost));
}

ROCKSDB_NAMESPACE::FilterBitsBuilder* SstFilterPolicy::NewBuilder(
    const FilterConfig& config, const ROCKSDB_NAMESPACE::FilterBuildingContext& context,
    double round_down_reserve) const {
  const ROCKSDB_NAMESPACE::BlockBasedTableOptions& table_options = context.table_options;
  auto* builder =
      new SstFilterBitsBuilder(config, table_options.detect_filter_construct_corruption);
  if (table_options.optimize_filters_for_memory) {
    AllocatorFit fit = AllocatorFitForBlocks(&rounding_balance_);
    fit.reserve = round_down_reserve;
    builder->SetAllocatorFit(fit);
  }
  if (ChargesFilterConstruction(table_options)) {
    builder->ChargeConstructionTo(table_options.block_cache, context.info_log);
  }
  return builder;
}

ROCKSDB_NAMESPACE::FilterBitsReader* SstFilterPolicy::GetFilterBitsReader(
    const ROCKSDB_NAMESPACE::Slice& contents) const {
  return NewFamilyBitsReader(contents);
}

}  // namespace sstfilter
