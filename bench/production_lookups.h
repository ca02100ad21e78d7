// The read workloads of production_bench: Get of present and absent keys in
// a stated mix, from one or more reader threads, each lookup timed and
// checked, with what the lookups cost in filter answers, block-cache hits
// and misses, and reads the OS saw.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/statistics.h>

#include "bench/lsm_stats.h"

namespace sstfilter::bench {

// Process-wide counters: the DB's statistics and /proc/self/io.
struct ReadCounters {
  enum Counter {
    kUseful, kPositive, kTruePositive,            // filter answers
    kDataHit, kDataMiss, kIndexHit, kIndexMiss,   // block cache
    kFilterHit, kFilterMiss,
    kOsReads, kOsReadBytes,                       // /proc/self/io syscr, read_bytes
    kCounters
  };
  uint64_t value[kCounters] = {};
  uint64_t operator[](Counter c) const { return value[c]; }

  static ReadCounters Capture(ROCKSDB_NAMESPACE::Statistics* statistics);
  ReadCounters Minus(const ReadCounters& before) const;
  void Add(const ReadCounters& other);
  // Every block-cache miss reads its block from the file: with direct reads,
  // from the device.
  uint64_t device_reads() const { return value[kDataMiss] + value[kIndexMiss] + value[kFilterMiss]; }
};

struct Workload {
  int hit_percent = 0;  // share of lookups for present keys
  int threads = 1;
  uint64_t ops = 0;     // lookups in all at least, split over the threads
  uint64_t salt = 0;    // picks the keys: same salt, same lookups
  // Each thread goes on past its share until this long has passed: a run
  // of fast lookups (misses, ~3 µs) must outlast the device's rare
  // multi-millisecond reads, or one of them sets its ops/s.
  double min_seconds = 0;
  // Counts filter answers and block-cache misses by level (the per-level
  // perf context: a map update per count, so not in timed workloads).
  bool by_level = false;
};

struct WorkloadResult {
  uint64_t hits = 0, misses = 0;
  double seconds = 0;
  LatencySummary hit_latency, miss_latency;
  ReadCounters counters;
  std::map<int, LevelFilterCounts> by_level;  // with Workload::by_level
  std::vector<double> slice_ops_per_second;   // one per run (--rounds slice)
  double OpsPerSecond() const { return seconds > 0 ? (hits + misses) / seconds : 0; }
};

// The lookups of one or more runs of a workload, summed: production_bench
// --rounds runs each workload in slices, policy after policy, and a row
// summarises its policy's slices (latency percentiles over every lookup).
struct WorkloadTally {
  double seconds = 0;
  ReadCounters counters;
  std::vector<double> hit_us, miss_us;
  std::map<int, LevelFilterCounts> by_level;
  std::vector<double> slice_ops_per_second;  // one per run added
  WorkloadResult Result() const;
};

// Keys of the database: key(i) for i < keys is present with value(i); any
// i >= keys is absent. Returns false and sets *error if a present key is
// not found with its value or an absent one is found.
bool RunWorkload(ROCKSDB_NAMESPACE::DB* db, ROCKSDB_NAMESPACE::Statistics* statistics,
                 const Workload& workload, uint64_t keys,
                 const std::function<std::string(uint64_t)>& key,
                 const std::function<std::string(uint64_t)>& value, WorkloadResult* result,
                 std::string* error);

// The same, adding the run's lookups to *tally.
bool AddWorkloadRun(ROCKSDB_NAMESPACE::DB* db, ROCKSDB_NAMESPACE::Statistics* statistics,
                    const Workload& workload, uint64_t keys,
                    const std::function<std::string(uint64_t)>& key,
                    const std::function<std::string(uint64_t)>& value, WorkloadTally* tally,
                    std::string* error);

}  // namespace sstfilter::bench
