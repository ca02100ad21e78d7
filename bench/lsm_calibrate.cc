#include "bench/lsm_calibrate.h"

#include <rocksdb/table.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "plugin/core/block_allocation.h"
#include "plugin/rocksdb/filter_bits.h"
#include "plugin/tools/text_output.h"

namespace sstfilter::bench {

namespace rdb = ROCKSDB_NAMESPACE;

double TrialAllocBitsPerKey(const rdb::FilterPolicy& policy, const std::vector<ProbedFile>& files,
                            const TrialFilters& trial) {
  rdb::BlockBasedTableOptions table;
  table.optimize_filters_for_memory = trial.optimize_for_memory;
  const int last_level = LastLevelWritten(files);
  uint64_t alloc_bytes = 0, keys = 0, next_key = 0;
  for (const ProbedFile& f : files) {
    rdb::FilterBuildingContext context(table);
    context.compaction_style = rdb::kCompactionStyleLevel;
    context.num_levels = trial.num_levels;
    context.level_at_creation = f.level;
    context.is_bottommost = f.level == last_level;
    context.reason = f.level == 0 ? rdb::TableFileCreationReason::kFlush
                                  : rdb::TableFileCreationReason::kCompaction;
    sstfilter::bits::Builder builder(policy, context);
    if (!builder) continue;  // a level without a filter
    uint64_t per_filter = f.keys;
    if (trial.partition_bytes > 0) {
      per_filter = std::max<uint64_t>(builder.ApproximateNumEntries(trial.partition_bytes), 1) +
                   trial.keys_past_cut;
    }
    for (uint64_t added = 0; added < f.keys;) {
      const uint64_t n = std::min(per_filter, f.keys - added);
      for (uint64_t i = 0; i < n; ++i) builder.AddKey(trial.key(next_key++));
      added += n;
      std::unique_ptr<const char[]> buf;
      const rdb::Slice filter = builder.Finish(&buf);
      if (f.live && !filter.empty()) alloc_bytes += sstfilter::AllocatedBlockBytes(filter.size());
    }
    if (f.live) keys += f.keys;
  }
  return keys ? 8.0 * static_cast<double>(alloc_bytes) / static_cast<double>(keys) : 0;
}

PolicySpec CalibrateToAllocated(const PolicySpec& spec, const std::vector<ProbedFile>& files,
                                const TrialFilters& trial,
                                const std::function<PolicySpec(double)>& remake,
                                const char* program) {
  const double budget = spec.budget;
  double best_alloc = 0;
  const double best = CalibrateSetting(
      budget,
      [&](double setting) {
        if (setting == budget) return TrialAllocBitsPerKey(*spec.filter_policy, files, trial);
        return TrialAllocBitsPerKey(*remake(setting).filter_policy, files, trial);
      },
      &best_alloc);
  PolicySpec out = remake(best);
  out.budget = budget;
  // No commas: the setting is a CSV field.
  out.setting += " (calibrated: " + tools::FormatNumber(best, "%.4g") + " for " +
                 tools::FormatNumber(budget, "%g") + " allocated bits/key; trial " +
                 tools::FormatNumber(best_alloc, "%.3f") +
                 (trial.partition_bytes > 0 ? "; partitioned)" : ")");
  std::fprintf(stderr, "[%s] %s @%s: %s\n", program, spec.policy.c_str(), spec.param.c_str(),
               out.setting.c_str());
  return out;
}

}  // namespace sstfilter::bench
