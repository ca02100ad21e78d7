// lsm_bench's lookups: absent and present keys with Get (each timed) and
// MultiGet, checked, with what they cost in filter answers and block reads.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include "bench/lsm_report.h"

namespace sstfilter::bench {

// Keys key(i) for i < keys are in the database with value(i); the misses
// are keys, keys + 1, ...; the hits spread uniformly over [0, keys).
struct LookupPlan {
  uint64_t keys = 0;
  uint64_t misses = 0;
  uint64_t hits = 0;
  int multiget_batch = 32;
  std::function<std::string(uint64_t)> key, value;
};

// Looks up the plan's absent and present keys in the open database and
// fills in `r`'s lookup figures; `expected_policies` are the filter policy
// names its files may carry. Exits (Fatal) on a wrong policy, an absent key
// found or a filter never consulted; counts present keys not found.
void MeasureLookups(ROCKSDB_NAMESPACE::DB* db, const ROCKSDB_NAMESPACE::Options& options,
                    const LookupPlan& plan, const std::string& label,
                    const std::vector<std::string>& expected_policies, bool some_unfiltered,
                    RunResult* r);

}  // namespace sstfilter::bench
