#include "bench/lsm_bound.h"

#include <atomic>
#include <cmath>

#include "bench/lsm_policies.h"
#include "bench/ribbon_bound.h"
#include "plugin/core/block_allocation.h"

namespace sstfilter::bench {
namespace {

LsmBound AtSetting(const std::vector<ProbedFile>& files, uint64_t misses, double setting,
                   bool fit_allocator) {
  std::atomic<int64_t> balance{0};
  AllocatorFit fit = AllocatorFitForBlocks(&balance);
  const int last_level = LastLevelWritten(files);
  LsmBound b;
  b.setting = setting;
  uint64_t keys = 0, filter_bytes = 0, alloc_bytes = 0;
  uint64_t level_checks[kMaxLevels] = {};
  double level_fps[kMaxLevels] = {};
  for (const ProbedFile& f : files) {
    fit.reserve = OftenCheckedReserve(f.level, f.level == last_level);
    const size_t len = BoundRibbonLength(f.keys, setting, fit_allocator ? &fit : nullptr);
    if (!f.live || f.keys == 0) continue;
    const double fp = BoundRibbonFpRate(len, f.keys);
    keys += f.keys;
    filter_bytes += len;
    alloc_bytes += AllocatedBlockBytes(len);
    const int level = f.live_level < kMaxLevels ? f.live_level : kMaxLevels - 1;
    level_checks[level] += f.checks;
    level_fps[level] += fp * static_cast<double>(f.checks);
  }
  if (keys == 0 || misses == 0) return b;
  b.bits_per_key = 8.0 * static_cast<double>(filter_bytes) / keys;
  b.alloc_bits_per_key = 8.0 * static_cast<double>(alloc_bytes) / keys;
  for (int level = 0; level < kMaxLevels; ++level) {
    b.wasted_reads_per_miss += level_fps[level] / misses;
    b.level_checks_per_miss[level] = static_cast<double>(level_checks[level]) / misses;
    b.checks_per_miss += b.level_checks_per_miss[level];
    if (level_checks[level] > 0) b.level_fp_rate[level] = level_fps[level] / level_checks[level];
  }
  return b;
}

}  // namespace

LsmBound ComputeLsmBound(const std::vector<ProbedFile>& files, uint64_t misses, double budget,
                         bool alloc_budget, bool fit_allocator) {
  if (!alloc_budget) return AtSetting(files, misses, budget, fit_allocator);
  double alloc = 0;
  const double setting = CalibrateSetting(
      budget,
      [&](double s) { return AtSetting(files, misses, s, fit_allocator).alloc_bits_per_key; },
      &alloc);
  return AtSetting(files, misses, setting, fit_allocator);
}

}  // namespace sstfilter::bench
