// Calibrating a policy to a budget of *allocated* bits per key (what jemalloc
// and the block cache charge) on trial filters of a database's files, built
// in the context of each file's level as RocksDB builds them. Shared by
// lsm_bench and production_bench.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <rocksdb/filter_policy.h>

#include "bench/lsm_bound.h"
#include "bench/lsm_policies.h"

namespace sstfilter::bench {

// How the trial filters are built: key i of the trial, and whether
// optimize_filters_for_memory is on (it picks lengths for size classes).
struct TrialFilters {
  std::function<std::string(uint64_t)> key;
  bool optimize_for_memory = false;
  int num_levels = 7;
  // Partitioned filters: 0 builds one filter per file. Otherwise each
  // file's filter is cut as RocksDB cuts partitions: the builder's
  // ApproximateNumEntries(partition_bytes) keys, plus `keys_past_cut` (the
  // cut waits for the end of the data block).
  uint32_t partition_bytes = 0;
  uint64_t keys_past_cut = 0;
};

// Allocated bits per key of `policy`'s filters for the live `files`, every
// file's filter built in order in the context of its level.
double TrialAllocBitsPerKey(const ROCKSDB_NAMESPACE::FilterPolicy& policy,
                            const std::vector<ProbedFile>& files, const TrialFilters& trial);

// The spec whose trial filters come within 0.2% of spec.budget allocated
// bits per key (CalibrateSetting over the setting; a fresh policy per
// trial, so no trial's FP balance carries into the database's builds).
// `remake(setting)` makes spec's policy at another setting; `program`
// prefixes the progress line.
PolicySpec CalibrateToAllocated(const PolicySpec& spec, const std::vector<ProbedFile>& files,
                                const TrialFilters& trial,
                                const std::function<PolicySpec(double)>& remake,
                                const char* program);

}  // namespace sstfilter::bench
