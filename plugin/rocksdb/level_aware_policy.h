// sstfilter.LevelAware: one memory budget (average bits per key over the
// whole DB) split across the LSM's levels to minimise the data-block reads
// that lookups of absent keys waste: more bits per key in the small upper
// levels, fewer in the large last level, BlockedBloom for flushes and L0,
// Ribbon below. The allocation is plugin/core/level_allocation.h; the model
// and its derivation are in docs/LEVEL_AWARE.md.
//
// Ids (docs/OPTIONS.md):
//   sstfilter.LevelAware                 budget 10 bits per key
//   sstfilter.LevelAware:<bits_per_key>
//   {id=sstfilter.LevelAware;bits_per_key=B;level_size_ratio=T;
//    populated_levels=N;l0_files=F;bottommost_bits_per_key=X}
// fp_rate and lines_per_key are refused: the budget is memory, and the kind
// and line count of each file follow from its plan.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "plugin/core/level_allocation.h"
#include "plugin/rocksdb/policy.h"

namespace sstfilter {

constexpr const char* kLevelAwareId = "sstfilter.LevelAware";

// Option values; NaN means "not set" (the LevelModel default).
struct LevelAwareOptions {
  double level_size_ratio;
  double populated_levels;  // a whole number
  double l0_files;
  double bottommost_bits_per_key;
};

class LevelAwarePolicy : public SstFilterPolicy {
 public:
  LevelAwarePolicy();

  ROCKSDB_NAMESPACE::FilterBitsBuilder* GetBuilderWithContext(
      const ROCKSDB_NAMESPACE::FilterBuildingContext& context) const override;
  std::string ConfigError() const override;
  // Also notes a column family with leveled compaction and static level
  // sizing (level_compaction_dynamic_level_bytes=false): FilterBuildingContext
  // does not say which sizing a file's levels follow, and the model holds
  // only for dynamic sizing, so from then on this policy plans every
  // leveled file like a single-level tree (the budget in every file; see
  // docs/LEVEL_AWARE.md).
  ROCKSDB_NAMESPACE::Status ValidateOptions(
      const ROCKSDB_NAMESPACE::DBOptions& db_opts,
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_opts) const override;

  // The model the options describe, budget included.
  LevelModel Model() const;
  // What a new SST file at `context` gets (no filter: !has_filter).
  LevelPlan PlanFor(const ROCKSDB_NAMESPACE::FilterBuildingContext& context) const;

 private:
  std::shared_ptr<const LevelPlanner> Planner() const;

  LevelAwareOptions level_options_;
  mutable std::atomic<bool> static_level_sizing_{false};
  mutable std::mutex planner_mu_;
  mutable std::shared_ptr<const LevelPlanner> planner_;  // for the current Model()
};

}  // namespace sstfilter
