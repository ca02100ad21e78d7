#include "bench/lsm_lookups.h"

#include <rocksdb/statistics.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "bench/bench_util.h"
#include "bench/flag_help.h"
#include "bench/lsm_stats.h"

namespace sstfilter::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using Clock = std::chrono::steady_clock;

// Get of every key, timed one by one; returns the number of keys whose
// status differs from `want_found` (a present key must be found with its
// value, an absent one must be NotFound).
uint64_t TimedGets(rdb::DB* db, const LookupPlan& plan, const std::vector<uint64_t>& indexes,
                   bool want_found, std::vector<double>* latencies_us) {
  uint64_t wrong = 0;
  rdb::PinnableSlice value;
  for (uint64_t i : indexes) {
    const std::string key = plan.key(i);
    value.Reset();
    const auto start = Clock::now();
    const rdb::Status s = db->Get(rdb::ReadOptions(), db->DefaultColumnFamily(), key, &value);
    latencies_us->push_back(
        std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    if (!s.ok() && !s.IsNotFound()) Fatal("Get: " + s.ToString());
    wrong += want_found ? !(s.ok() && value == plan.value(i)) : s.ok();
  }
  return wrong;
}

// The same through MultiGet; returns the number of wrong answers and sets
// the mean time per key.
uint64_t TimedMultiGets(rdb::DB* db, const LookupPlan& plan, const std::vector<uint64_t>& indexes,
                        bool want_found, double* us_per_key) {
  uint64_t wrong = 0;
  double total_us = 0;
  const size_t batch = static_cast<size_t>(plan.multiget_batch);
  for (size_t start = 0; start < indexes.size(); start += batch) {
    const size_t n = std::min(batch, indexes.size() - start);
    std::vector<std::string> keys;
    for (size_t j = 0; j < n; ++j) keys.push_back(plan.key(indexes[start + j]));
    std::vector<rdb::Slice> slices(keys.begin(), keys.end());
    std::vector<rdb::PinnableSlice> values(n);
    std::vector<rdb::Status> statuses(n);
    const auto t0 = Clock::now();
    db->MultiGet(rdb::ReadOptions(), db->DefaultColumnFamily(), n, slices.data(), values.data(),
                 statuses.data());
    total_us += std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    for (size_t j = 0; j < n; ++j) {
      const rdb::Status& s = statuses[j];
      if (!s.ok() && !s.IsNotFound()) Fatal("MultiGet: " + s.ToString());
      wrong += want_found ? !(s.ok() && values[j] == plan.value(indexes[start + j])) : s.ok();
    }
  }
  *us_per_key = indexes.empty() ? 0 : total_us / indexes.size();
  return wrong;
}

}  // namespace

// Looks up the absent and present keys in the open database and fills in
// `r`'s lookup figures; `expected_policies` are the filter policy names its
// files may carry.
void MeasureLookups(rdb::DB* db, const rdb::Options& options, const LookupPlan& plan,
                    const std::string& label,
                    const std::vector<std::string>& expected_policies, bool some_unfiltered,
                    RunResult* r) {
  r->tables = SummarizeTables(db, expected_policies, some_unfiltered);
  if (!r->tables.wrong_policy.empty()) {
    for (const std::string& w : r->tables.wrong_policy) std::fprintf(stderr, "  %s\n", w.c_str());
    Fatal(label + ": " + std::to_string(r->tables.wrong_policy.size()) + " of " +
          std::to_string(r->tables.files) + " SST files do not carry filter policy '" +
          expected_policies[0] + "': not the filter requested");
  }
  const FileRanges ranges(db);
  r->shape = ranges.Shape();

  std::vector<uint64_t> misses, hits;
  uint64_t files_consulted = 0;
  for (uint64_t j = 0; j < plan.misses; ++j) {
    misses.push_back(plan.keys + j);
    files_consulted += ranges.FilesFor(plan.key(misses.back()));
  }
  r->misses = misses.size();
  r->files_per_miss = r->misses ? static_cast<double>(files_consulted) / r->misses : 0;
  // Present keys in a scrambled order, uniformly over the stream (fast range
  // reduction of a mixed index).
  for (uint64_t j = 0; j < plan.hits; ++j) {
    hits.push_back(static_cast<uint64_t>(
        (static_cast<unsigned __int128>(Mix64(j ^ 0x5bd1e995)) * plan.keys) >> 64));
  }
  r->hits = hits.size();

  std::fprintf(stderr, "[lsm_bench] %s: looking up %zu absent and %zu present keys ...\n",
               label.c_str(), misses.size(), hits.size());
  EnableLookupCounting();
  rdb::Statistics* stats = options.statistics.get();
  std::vector<double> latencies;
  LookupCounters before = LookupCounters::Capture(stats);
  uint64_t wrong = TimedGets(db, plan, misses, false, &latencies);
  LookupCounters after = LookupCounters::Capture(stats);
  r->miss_get = after.Minus(before);
  r->miss_get_latency = Summarize(std::move(latencies));
  wrong += TimedMultiGets(db, plan, misses, false, &r->miss_multiget_us);
  r->miss_multiget = LookupCounters::Capture(stats).Minus(after);
  if (wrong > 0) Fatal(label + ": " + std::to_string(wrong) + " absent keys were found");

  latencies.clear();
  before = LookupCounters::Capture(stats);
  r->hits_not_found = TimedGets(db, plan, hits, true, &latencies);
  r->hit_get = LookupCounters::Capture(stats).Minus(before);
  r->hit_get_latency = Summarize(std::move(latencies));
  r->hits_not_found += TimedMultiGets(db, plan, hits, true, &r->hit_multiget_us);

  if (r->has_filter && r->miss_get.useful + r->miss_get.positive == 0 && r->misses > 0) {
    Fatal(label + ": the filter was never consulted");
  }
}

}  // namespace sstfilter::bench
