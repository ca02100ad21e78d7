// sstfilter.LevelAware: one memory budget (average bits per key over the
// whole DB) split across the LSM's levels to minimise the data-block reads
// that lookups of absent keys waste: more bits per key in the small upper
// levels, fewer in the large last level. It plans each new file for the
// shape the DB has now, which the sstfilter.LsmShape listener publishes
// (shape_listener.h); without it, every file gets the budget. The
// allocation is plugin/core/level_allocation.h; the derivation is in
// docs/LEVEL_AWARE.md.
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
#include "plugin/rocksdb/shape_listener.h"

namespace sstfilter {

constexpr const char* kLevelAwareId = "sstfilter.LevelAware";

// Option values; NaN means "not set". level_size_ratio, populated_levels and
// l0_files described the shape an earlier planner assumed: they are still
// read (OPTIONS files carry them) and checked, and change nothing.
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
  // Notes whether the DB has an sstfilter.LsmShape listener: without one
  // the shape stays unknown and every file gets the budget (uniform
  // Ribbon), which the first file built then says in the DB's info log.
  ROCKSDB_NAMESPACE::Status ValidateOptions(
      const ROCKSDB_NAMESPACE::DBOptions& db_opts,
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& cf_opts) const override;

  double BudgetBitsPerKey() const { return ResolvedConfig().bits_per_key; }
  // bottommost_bits_per_key, or < 0 when unset.
  double BottommostBitsPerKey() const;
  struct Bounds {
    double floor;
    double cap;
  };
  // What a new SST file at `context` gets (no filter: !has_filter), given
  // the live shape of its column family (null: unknown). With `bounds`,
  // also the fewest and most bits per key the file could get (FileBounds;
  // [0, kMaxBitsPerKey] when its plan is not bounded).
  LevelPlan PlanFor(const ROCKSDB_NAMESPACE::FilterBuildingContext& context,
                    const std::shared_ptr<const LiveShape>& shape,
                    Bounds* bounds = nullptr) const;
  // The budget the plan for `shape` spends so that the live files, with
  // the new ones, come back to bits_per_key: 2 * bits_per_key minus the
  // bits per key the live files held on average over the last flushes
  // (or hold now, before the first), within 10% of bits_per_key.
  double PlanningBudget(const LiveShape& shape) const;
  // How far from the budget a job may take the live files, its files'
  // trailers counted: the promise is 3%, and a Ribbon filter's length (the
  // kind the plans use) rounds up to a byte, and BlockedBloom's to a
  // 64-byte line.
  static constexpr double kJobHeadroom = 0.028;
  // The fewest and most bits per key the job writing into `level` may
  // give its files and keep the live files within kJobHeadroom of the
  // budget once they replace its inputs, their trailers counted (the cap:
  // one per file the job reads, a flush one; the floor: one). The job is a
  // flush (`flush`, shape.flushes) or a compaction (shape.pending[level]);
  // [0, kMaxBitsPerKey] when no job is known there. A flush of unknown size
  // (none has completed since the DB opened) gets the bounds that hold at
  // any size: the budget +-kJobHeadroom. A job below L0 also leaves room
  // for the L0 files the shape expects and does not hold now, at their
  // plan's bits: under leveled compaction (`leveled`) L0 as full as its
  // peak, at most L0Limit's bits, above the floor; otherwise (or before the
  // first flush) L0 as full as its mean, above the budget.
  Bounds JobBounds(const std::shared_ptr<const LiveShape>& shape, int level,
                   bool leveled = true, bool flush = false) const;
  // Under leveled compaction L0 fills to a peak (the files a compaction is
  // merging down still count until it ends) and then drains at once. The
  // most bits per key L0's files may get so that L0 at its peak
  // (shape.l0_peak_keys) at these bits, beside the live files outside L0
  // at the bits they hold, is at the cap: the flushes still to come before
  // the peak then find room for as many bits as the earlier ones took.
  // When the levels below hold fewer bits than the budget (their plan
  // gives them so), L0 takes what they leave of the band; when they hold
  // more, the limit falls below the cap. kMaxBitsPerKey when the peak is
  // unknown.
  double L0Limit(const LiveShape& shape) const;
  // The bounds of one file: its job's, and under leveled compaction an L0
  // file's cap at most L0Limit (but not below the floor).
  Bounds FileBounds(const std::shared_ptr<const LiveShape>& shape, int level, bool leveled,
                    bool flush) const;

 private:
  // One line in the DB's LOG per planned file: what the plan saw and chose.
  void LogPlan(const ROCKSDB_NAMESPACE::FilterBuildingContext& context,
               const std::shared_ptr<const LiveShape>& shape, const LevelPlan& plan,
               const Bounds& bounds) const;
  // The plan for `shape` at `budget`, computed once per published shape.
  std::shared_ptr<const std::vector<LevelPlan>> ShapePlan(
      const std::shared_ptr<const LiveShape>& shape) const;

  LevelAwareOptions level_options_;
  mutable std::atomic<bool> listener_missing_{false};
  mutable std::atomic<bool> warned_{false};
  mutable std::atomic<bool> warned_shared_{false};
  mutable std::mutex plan_mu_;
  mutable std::shared_ptr<const LiveShape> planned_shape_;  // keeps the key alive
  mutable std::shared_ptr<const std::vector<LevelPlan>> plan_;
};

}  // namespace sstfilter
