// bound.Ribbon in lsm_bench's LSM (bench/ribbon_bound.h): the wasted reads
// per miss of Ribbon filters with no overhead, in exactly the SST files the
// databases are built with. Computed from the probe build (lsm_bench.cc,
// ProbeFiles): every file's level and key count in the order the files are
// written, and how many of the absent keys looked up consult each live one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bench/lsm_stats.h"

namespace sstfilter::bench {

struct ProbedFile {
  int level = 0;        // where it was written (its filter's context)
  uint64_t keys = 0;
  bool live = false;    // in the finished database
  int live_level = 0;   // where it is in the finished database
  uint64_t checks = 0;  // absent keys whose lookup consults it (live files)
};

// The deepest level any of `files` was written to: the calibration trial
// and the bound alike take a file written there as bottommost (RocksDB's
// FilterBuildingContext::is_bottommost), and no other.
inline int LastLevelWritten(const std::vector<ProbedFile>& files) {
  int last_level = 0;
  for (const ProbedFile& f : files) last_level = std::max(last_level, f.level);
  return last_level;
}

struct LsmBound {
  double setting = 0;         // bits per key the lengths were picked from
  double bits_per_key = 0;    // filter bits / keys, live files
  double alloc_bits_per_key = 0;
  double checks_per_miss = 0;  // filters consulted per absent key
  double wasted_reads_per_miss = 0;
  double level_fp_rate[kMaxLevels] = {};      // expected FP rate per check
  double level_checks_per_miss[kMaxLevels] = {};
};

// bound.Ribbon at `budget` bits per key for `files` and `misses` absent
// keys. With `fit_allocator` (optimize_filters_for_memory) every file's
// length is picked for the allocator by sstfilter's rounding, its balance
// running over every file written and its L0 and upper-level files taking
// the class above where they can, as a uniform policy's do. With `alloc_budget`
// the budget counts allocated bits per key and the setting is calibrated
// as the policies' are (CalibrateSetting, lsm_policies.h) on the live
// files; otherwise the setting is the budget.
LsmBound ComputeLsmBound(const std::vector<ProbedFile>& files, uint64_t misses, double budget,
                         bool alloc_budget, bool fit_allocator);

}  // namespace sstfilter::bench
