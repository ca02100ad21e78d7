// Level-aware filter memory: which filter kind, and how many bits per key,
// each level of an LSM tree gets out of one memory budget, so that lookups
// of absent keys waste as few data-block reads as possible.
//
// A lookup of an absent key consults the filters of every L0 file and of one
// file per deeper level, so its expected wasted reads are
//   W = sum_i checks_i * fp_i(bits_i),
// while the filter memory is sum_i keys_i * bits_i. Minimising W at fixed
// memory (Lagrange) gives checks_i * (-fp_i'(bits_i)) = lambda * keys_i: with
// fp = 2^-bits (Ribbon), fp_i is proportional to keys_i / checks_i, i.e.
// every level gets the bits of the budget plus log2 of how much smaller its
// share of the keys is (Monkey: Dayan, Athanassoulis, Idreos, SIGMOD 2017).
// The planner solves the general form numerically on the core's own FP
// models, so a level can use a different kind (BlockedBloom in L0).
// Derivation, model and the cases (universal, FIFO, ingested files):
// docs/LEVEL_AWARE.md. Pure math; the RocksDB adapter maps
// FilterBuildingContext onto FileSite.
#pragma once

#include <map>
#include <mutex>
#include <vector>

#include "plugin/core/filter_config.h"

namespace sstfilter {

// What the planner assumes about the LSM: the policy's documented options.
struct LevelModel {
  // Filter memory averaged over all keys of the DB, filters' payload only.
  double budget_bits_per_key = 10.0;
  // T: keys in level i+1 / keys in level i (max_bytes_for_level_multiplier).
  double level_size_ratio = 10.0;
  // Levels below L0 that hold data; the last of them is num_levels - 1, as
  // with level_compaction_dynamic_level_bytes. L0 holds about as many keys
  // as the first of them (one base level's worth).
  int populated_levels = 3;
  // L0 files an absent key consults (each L0 file covers the key space).
  double l0_files = 2.0;
  // Files RocksDB marks bottommost: < 0 planned like every level; 0 no
  // filter; otherwise this many bits per key (Ribbon).
  double bottommost_bits_per_key = -1.0;

  bool operator==(const LevelModel& o) const;
  bool operator!=(const LevelModel& o) const { return !(*this == o); }
};

// Defaults and limits the policy validates against.
constexpr double kMaxLevelSizeRatio = 1000.0;
constexpr int kMaxPopulatedLevels = 64;
constexpr double kMaxL0Files = 100.0;
// RocksDB's default num_levels: assumed when a file's context has none.
constexpr int kDefaultNumLevels = 7;

struct LevelPlan {
  double key_share = 0.0;  // expected fraction of all keys in this level
  double checks = 0.0;     // expected filters an absent key consults here
  bool has_filter = true;
  FilterConfig filter;     // meaningful when has_filter
  double fp_rate = 1.0;    // predicted FP rate of one check; 1 without filter
};

// Plan for a leveled or universal LSM of num_levels >= 1 levels (index =
// level). With num_levels == 1 every file is alike: Ribbon at the budget.
// The planned levels keep sum(key_share * bits) == budget (less only when
// every level is at kMaxBitsPerKey); levels above the populated ones get the
// plan of the first populated level and a zero share.
std::vector<LevelPlan> PlanLevels(const LevelModel& model, int num_levels);

// The FP model the planner uses: a large filter of `kind` (kRibbon or
// kBlockedBloom) at bits_per_key in [kMinBitsPerKey, kMaxBitsPerKey], for
// BlockedBloom with the better of one and two lines per key, which
// PlannedLinesPerKey returns.
double PlannedFpRate(FilterKind kind, double bits_per_key);
int PlannedLinesPerKey(double bits_per_key);

// sum(key_share * bits_per_key) and sum(checks * fp_rate) of a plan.
double PlannedBitsPerKey(const std::vector<LevelPlan>& plan);
double PlannedWastedReads(const std::vector<LevelPlan>& plan);

// Where a new SST file goes, as far as RocksDB says (FilterBuildingContext).
enum class LsmStyle { kLeveled, kUniversal, kFifo, kNone };
struct FileSite {
  LsmStyle style = LsmStyle::kLeveled;
  int num_levels = -1;  // -1: unknown
  int level = -1;       // level_at_creation; -1: unknown (SstFileWriter)
  bool is_bottommost = false;
  // Leveled compaction with static level targets (RocksDB 7.8's default,
  // level_compaction_dynamic_level_bytes=false): levels fill from L1 down
  // and the last one is partly full, a shape the model cannot describe.
  bool static_level_sizing = false;
};

// Plans of one LevelModel, computed once per num_levels; thread-safe.
class LevelPlanner {
 public:
  explicit LevelPlanner(const LevelModel& model) : model_(model) {}
  const LevelModel& model() const { return model_; }

  // The plan a new file at `site` gets:
  // - FIFO, num_levels == 1 or static level sizing: every file alike
  //   (Ribbon at the budget), except bottommost files when
  //   bottommost_bits_per_key is set.
  // - unknown level: the last level's, as if bottommost_bits_per_key were
  //   unset (RocksDB ingests a file that overlaps nothing into the last
  //   level, and the last level has the fewest bits, so ingestion never
  //   overspends; it may also land higher, so it always gets a filter).
  // - is_bottommost with bottommost_bits_per_key set: that setting.
  // - otherwise: its level's plan (levels past the last: the last).
  LevelPlan ForFile(const FileSite& site) const;

  const std::vector<LevelPlan>& Plan(int num_levels) const;

 private:
  LevelModel model_;
  mutable std::mutex mu_;
  mutable std::map<int, std::vector<LevelPlan>> plans_;              // by num_levels
  mutable std::map<int, std::vector<LevelPlan>> plans_no_override_;  // for unknown levels
};

}  // namespace sstfilter
