// lsm_bench's results: one RunResult per policy and budget, the derived
// figures, and the stdout table and CSV that present them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench/lsm_bound.h"
#include "bench/lsm_stats.h"

namespace sstfilter::bench {

struct RunResult {
  std::string policy;               // as requested: "none", "rocksdb.Bloom", ...
  double budget_bits_per_key = 0;   // 0 for "none"
  std::string setting;              // what the policy was configured with
  bool has_filter = false;
  bool some_unfiltered = false;     // ... but not in every file (PolicySpec)
  bool block_cache = false;         // data blocks went through a block cache
  // The budget counts allocated bits per key (the allocator's usable size of
  // each filter block as RocksDB holds it), not filter bits: under jemalloc,
  // whose size classes leave slack unless lengths are chosen for them.
  bool alloc_budget = false;
  TableSummary tables;
  std::string shape;                // SST files per level, "L0/L1/..."
  double files_per_miss = 0;        // files whose key range holds the key
  uint64_t misses = 0;
  uint64_t hits = 0;
  uint64_t hits_not_found = 0;      // must be 0
  LookupCounters miss_get;          // counters added by the missing-key Gets
  LookupCounters miss_multiget;     // ... by the same keys through MultiGet
  LookupCounters hit_get;           // ... by the present-key Gets
  LatencySummary miss_get_latency;
  LatencySummary hit_get_latency;
  double miss_multiget_us = 0;      // per key
  double hit_multiget_us = 0;       // per key
  double load_seconds = 0;

  // Data blocks touched per absent key: the reads a lookup costs.
  double DataBlocksPerMiss(const LookupCounters& c) const;
  // False positives per absent key; with no filter every file consulted is a
  // wasted read, so it is DataBlocksPerMiss. With some_unfiltered, the
  // files consulted without a filter (files per miss - filter checks per
  // miss) are added.
  double WastedReadsPerMiss(const LookupCounters& c) const;
  // Data blocks read per present-key Get beyond the one holding the key:
  // the files above the key's that a filter did not rule out (false
  // positives, or files without a filter). A filter on the key's own file
  // cannot help a hit, which is what bottommost_bits_per_key=0 trades on.
  double WastedReadsPerHit() const;
  // False positives / filter checks of absent keys; 1 with no filter.
  double FpRate() const;
  // Signed deviation of the actual from the budget memory, in percent.
  double BudgetDeviationPct() const;  // of BudgetedBitsPerKey from the budget
  double BudgetedBitsPerKey() const {
    return alloc_budget ? tables.AllocBitsPerKey() : tables.BitsPerKey();
  }
};

// Rows whose actual bits per key deviate from the budget by more than this
// are flagged "MISSED".
constexpr double kBudgetTolerancePct = 3.0;

void PrintTable(const std::vector<RunResult>& results, const std::string& header_comment);
// Returns false if the file could not be written.
bool WriteResultsCsv(const std::string& path, const std::vector<RunResult>& results);

// bound.Ribbon beside the built Ribbons, one line per budget, and its FP
// rate and checks per miss by level, for `misses` absent keys.
void PrintRibbonBound(const std::vector<ProbedFile>& files, const std::vector<RunResult>& results,
                      uint64_t misses, bool optimize_filters_for_memory);

// Plots the CSV with bench/plot_lsm_bench.gp (gnuplot); exits on failure.
void PlotLsmBench(const std::string& csv, const std::string& png);

}  // namespace sstfilter::bench
