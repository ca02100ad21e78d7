// production_bench's rows: one per layout × policy × budget × workload, as a
// table on stdout, CSV and a plot.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/direct_reads.h"
#include "bench/production_lookups.h"

namespace sstfilter::bench {

struct Row {
  std::string policy;
  char layout = 'a';
  double budget = 0;
  std::string setting;
  double bits_per_key = 0;        // filter bytes × 8 / entries (SST files)
  double alloc_bits_per_key = 0;  // allocated (malloc_usable_size) bytes × 8 / entries
  bool alloc_budget = false;      // the budget counts allocated bits (jemalloc)
  uint64_t filter_bytes = 0;
  uint64_t cache_bytes = 0;
  std::string shape;              // files per level, L0/.../L6
  double files_per_miss = 0;      // files whose key range holds an absent key
  double wasted_per_miss = 0;     // over --fp_misses absent keys
  // The same lookups by level: false positives, and block-cache misses
  // (device reads with direct reads), per absent key.
  double wasted_per_miss_at[kMaxLevels] = {};
  double device_reads_per_miss_at[kMaxLevels] = {};
  bool by_level = false;          // the two above were counted
  int hit_percent = 0;
  int threads = 1;
  size_t run = 0;                 // the rows of one rewrite share it
  // Direct reads of this database's own SST files just before its timed
  // workloads (--probe_reads); copy_probed false when none were made.
  LatencySummary copy_reads;
  bool copy_probed = false;
  WorkloadResult result;

  double BudgetedBitsPerKey() const { return alloc_budget ? alloc_bits_per_key : bits_per_key; }
  double BudgetDeviationPct() const {
    return budget > 0 ? 100.0 * (BudgetedBitsPerKey() / budget - 1) : 0;
  }
};

// Filter "may match" answers for files without the key, per absent key.
double WastedPerMiss(const WorkloadResult& r);

// Ops/s of each --rounds slice, rounded, separated by spaces.
std::string SliceOps(const WorkloadResult& r);

// Fills row's by-level figures from a workload of absent keys run with
// Workload::by_level.
void SetByLevel(const WorkloadResult& misses, Row* row);

// "# ..." lines naming the run's settings, for the table and the CSV;
// `device` is "disk" or the emulated device's model.
std::string Header(const std::string& load, uint64_t cache_bytes, bool direct_reads,
                   const char* allocator, bool optimize_filters_for_memory, uint64_t ops,
                   double min_seconds, int rounds, const std::string& device);

void PrintRows(const std::vector<Row>& rows, const std::string& header);

// Writes `path` whole or not at all: a run stopped half-way leaves at most
// `path`.partial.
bool WriteRowsCsv(const std::string& path, const std::vector<Row>& rows, const std::string& header);

// Ops/s of the 50%-hit workload (most threads) against bits per key, one
// line per policy and layout (bench/plot_production_bench.gp); exits on
// failure.
void PlotRows(const std::string& csv, const std::string& png);

}  // namespace sstfilter::bench
