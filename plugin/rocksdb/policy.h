// The sstfilter FilterPolicy: one class for every filter kind, configured
// through RocksDB's options machinery.
//
// Ids (see docs/OPTIONS.md):
//   sstfilter.<Kind>                    default budget, 10 bits per key
//   sstfilter.<Kind>:<bits_per_key>     actual filter memory per key
//   {id=sstfilter.<Kind>;bits_per_key=B}
//   {id=sstfilter.<Kind>;fp_rate=P}     sized for a target FP rate
//   {id=sstfilter.BlockedBloom;...;lines_per_key=2}   high-accuracy mode
// bits_per_key and fp_rate are exclusive.
//
// Invalid configurations are never replaced by a default. RocksDB 7.8
// silently drops a filter_policy parse error inside an options string
// parsed with input_strings_escaped (the default; BlockBasedTableFactory::
// ParseOption), which would leave the DB with no filter at all. So a bad
// value yields a policy that carries the error. It is reported as
// InvalidArgument by PrepareOptions (FilterPolicy::CreateFromString), by the
// parse itself where RocksDB passes errors on (input_strings_escaped=false,
// as in the legacy GetOptionsFromString(Options, string, Options*)), and in
// every case by ValidateOptions, i.e. DB::Open refuses to open.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>

#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include "plugin/core/filter_config.h"

namespace sstfilter {

// RocksDB names the filter meta block "fullfilter." + CompatibilityName()
// (or "partitionedfilter." + it) and looks up only its policy's name. Every
// sstfilter policy shares RocksDB's built-in name, so a database switched
// between sstfilter and the built-ins keeps its filters: each side's reader
// tells the blocks apart by the byte at len - 5 (docs/FORMAT.md).
constexpr const char* kCompatibilityName = "rocksdb.BuiltinBloomFilter";
// The name format-version-1 files were written under; RocksDB no longer
// looks it up for these policies (docs/FORMAT.md, "Version 1 files").
constexpr const char* kVersion1FamilyName = "sstfilter";

// Option values; NaN means "not set".
struct PolicyOptions {
  double bits_per_key;
  double fp_rate;
  double lines_per_key;  // BlockedBloom only: 1 or 2
  double format_version;  // 2 or 3 (docs/FORMAT.md)
};

class SstFilterPolicy : public ROCKSDB_NAMESPACE::FilterPolicy {
 public:
  explicit SstFilterPolicy(FilterKind kind);

  // "sstfilter.<Kind>"; also the table property rocksdb.filter.policy.
  const char* Name() const override;
  const char* CompatibilityName() const override { return kCompatibilityName; }
  ROCKSDB_NAMESPACE::FilterBitsBuilder* GetBuilderWithContext(
      const ROCKSDB_NAMESPACE::FilterBuildingContext& context) const override;
  ROCKSDB_NAMESPACE::FilterBitsReader* GetFilterBitsReader(
      const ROCKSDB_NAMESPACE::Slice& contents) const override;
  ROCKSDB_NAMESPACE::Status PrepareOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options) override;
  ROCKSDB_NAMESPACE::Status ValidateOptions(
      const ROCKSDB_NAMESPACE::DBOptions& db_opts,
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_opts) const override;

  // The configuration builders get: fp_rate resolved to bits per key.
  FilterConfig ResolvedConfig() const;
  // The same before the memory budget is decided.
  FilterConfig ResolvedConfigWithoutBudget() const;
  // Parses the <bits_per_key> of a "sstfilter.<Kind>:<bits_per_key>" id;
  // a bad value poisons the policy.
  void SetBitsPerKey(const std::string& value);
  // Marks the policy as misconfigured; see the header comment.
  void Poison(const std::string& error) { config_error_ = error; }
  // Empty if the configuration is valid, else what is wrong with it.
  virtual std::string ConfigError() const;

 protected:
  // For policies that are not one kind (LevelAware): `name` is Name(), and
  // `kind` only what ResolvedConfig reports.
  SstFilterPolicy(FilterKind kind, std::string name);
  const PolicyOptions& options() const { return options_; }

  ROCKSDB_NAMESPACE::Status ConfigureOptions(
      const ROCKSDB_NAMESPACE::ConfigOptions& config_options,
      const std::unordered_map<std::string, std::string>& opts_map,
      std::unordered_map<std::string, std::string>* unused) override;

 private:
  double BitsPerKeyForFpRateCached() const;

  FilterKind kind_;
  std::string name_;
  PolicyOptions options_;
  struct FpCache {
    double fp_rate;
    int lines_per_key;
    double bits_per_key;
  };
  mutable std::mutex fp_cache_mu_;
  mutable FpCache fp_cache_{-1.0, 0, 0.0};
  std::string config_error_;

 protected:
  // A builder for `config`, sized for the allocator when the table options
  // say optimize_filters_for_memory (alloc_fit.h), with this policy's
  // rounding balance and `round_down_reserve` (AllocatorFit::reserve), and
  // charging its memory to the block cache when they charge filter
  // construction (cache_reservation.h).
  ROCKSDB_NAMESPACE::FilterBitsBuilder* NewBuilder(
      const FilterConfig& config, const ROCKSDB_NAMESPACE::FilterBuildingContext& context,
      double round_down_reserve) const;

 private:
  mutable std::atomic<int64_t> rounding_balance_{0};
};

// Full policy id of a kind: "sstfilter.StandardBloom".
std::string PolicyId(FilterKind kind);

}  // namespace sstfilter
