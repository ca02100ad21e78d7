#include "bench/lsm_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>

#include "bench/allocator.h"
#include "bench/csv.h"
#include "bench/flag_help.h"
#include "bench/gnuplot.h"
#include "plugin/core/level_allocation.h"
#include "plugin/tools/text_output.h"

namespace sstfilter::bench {
namespace {

using tools::FormatNumber;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

double PerMiss(uint64_t count, uint64_t misses) {
  return misses ? static_cast<double>(count) / misses : kNaN;
}

double LevelFpRate(const RunResult& r, int level) {
  const auto it = r.miss_get.by_level.find(level);
  if (!r.has_filter || it == r.miss_get.by_level.end() || it->second.checks() == 0) return kNaN;
  return static_cast<double>(it->second.false_positives()) /
         (it->second.useful + it->second.false_positives());
}

double LevelChecksPerMiss(const RunResult& r, int level) {
  const auto it = r.miss_get.by_level.find(level);
  return it == r.miss_get.by_level.end() ? 0 : PerMiss(it->second.checks(), r.misses);
}

// Share of all keys in `level`, in percent, and its filter bits per key.
double LevelKeySharePct(const RunResult& r, int level) {
  return r.tables.entries ? 100.0 * r.tables.by_level[level].entries / r.tables.entries : kNaN;
}

double LevelBitsPerKey(const RunResult& r, int level) {
  return r.tables.by_level[level].entries ? r.tables.by_level[level].BitsPerKey() : kNaN;
}

// The run's LSM as its lookups saw it: keys and filter checks per level.
LsmShape MeasuredShape(const RunResult& r) {
  LsmShape shape(kMaxLevels);
  for (int level = 0; level < kMaxLevels; ++level) {
    shape[level] = LevelLoad{static_cast<double>(r.tables.by_level[level].entries),
                             LevelChecksPerMiss(r, level)};
  }
  return shape;
}

// Monkey's optimum for the run's shape at its filter memory: filters at
// the information-theoretic bound (fp = 2^-bits), split by level.
double OptimalWastedReads(const RunResult& r) {
  return sstfilter::OptimalWastedReads(MeasuredShape(r), r.tables.BitsPerKey());
}

std::string BudgetCheck(const RunResult& r) {
  if (!r.has_filter) return "-";
  const double pct = r.BudgetDeviationPct();
  if (std::fabs(pct) <= kBudgetTolerancePct) return "ok";
  return "MISSED" + FormatNumber(pct, "%+.1f%%");
}

using Row = CsvRow;

// One place defines the columns, so the table and the CSV cannot drift. The
// first nine are the stable CSV interface; extras follow.
Row Columns(const RunResult& r) {
  const double mget_wasted = r.WastedReadsPerMiss(r.miss_multiget);
  return {
      {"policy", r.policy},
      {"budget_bits_per_key", FormatNumber(r.budget_bits_per_key, "%g")},
      {"bits_per_key", FormatNumber(r.tables.BitsPerKey(), "%.3f")},
      {"wasted_reads_per_miss", FormatNumber(r.WastedReadsPerMiss(r.miss_get), "%.5f")},
      {"fp_rate", FormatNumber(r.FpRate(), "%.5f")},
      {"miss_get_us", FormatNumber(r.miss_get_latency.mean_us, "%.2f")},
      {"miss_get_p99_us", FormatNumber(r.miss_get_latency.p99_us, "%.2f")},
      {"hit_get_us", FormatNumber(r.hit_get_latency.mean_us, "%.2f")},
      {"filter_bytes", std::to_string(r.tables.filter_bytes)},
      {"budget", BudgetCheck(r)},
      {"data_blocks_per_miss", FormatNumber(r.DataBlocksPerMiss(r.miss_get), "%.5f")},
      {"files_per_miss", FormatNumber(r.files_per_miss, "%.3f")},
      {"mget_wasted_reads_per_miss", FormatNumber(mget_wasted, "%.5f")},
      {"miss_mget_us", FormatNumber(r.miss_multiget_us, "%.2f")},
      {"hit_mget_us", FormatNumber(r.hit_multiget_us, "%.2f")},
      {"hit_wasted_reads", FormatNumber(r.WastedReadsPerHit(), "%.5f")},
      {"false_positives", std::to_string(r.miss_get.false_positives())},
      {"sst_files", std::to_string(r.tables.files)},
      {"files_per_level", r.shape},
      {"load_s", FormatNumber(r.load_seconds, "%.1f")},
      {"setting", r.setting},
      {"alloc_bits_per_key", FormatNumber(r.tables.AllocBitsPerKey(), "%.3f")},
      {"optimal_wasted_reads_per_miss", FormatNumber(OptimalWastedReads(r), "%.5f")},
  };
}

void PrintAligned(const std::vector<Row>& rows) {
  if (rows.empty()) return;
  std::vector<size_t> widths;
  for (const auto& cell : rows[0]) widths.push_back(cell.first.size());
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].second.size());
  }
  // First column left-aligned, the rest right-aligned.
  auto print_cell = [&](size_t c, const std::string& text) {
    std::printf(c == 0 ? "%-*s" : "  %*s", static_cast<int>(widths[c]), text.c_str());
  };
  for (size_t c = 0; c < rows[0].size(); ++c) print_cell(c, rows[0][c].first);
  std::printf("\n");
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) print_cell(c, row[c].second);
    std::printf("\n");
  }
}

int DeepestLevel(const std::vector<RunResult>& results) {
  int deepest = 0;
  for (const RunResult& r : results) {
    for (const auto& [level, counts] : r.miss_get.by_level) {
      if (counts.checks() > 0) deepest = std::max(deepest, level);
    }
  }
  return deepest;
}

}  // namespace

double RunResult::DataBlocksPerMiss(const LookupCounters& c) const {
  return PerMiss(block_cache ? c.data_cache_accesses : c.data_block_reads, misses);
}

double RunResult::WastedReadsPerMiss(const LookupCounters& c) const {
  if (!has_filter) return DataBlocksPerMiss(c);
  const double unfiltered =
      some_unfiltered ? std::max(0.0, files_per_miss - PerMiss(c.useful + c.positive, misses)) : 0;
  return PerMiss(c.false_positives(), misses) + unfiltered;
}

double RunResult::WastedReadsPerHit() const {
  const uint64_t blocks = block_cache ? hit_get.data_cache_accesses : hit_get.data_block_reads;
  return hits ? static_cast<double>(blocks - std::min(blocks, hits)) / hits : kNaN;
}

double RunResult::FpRate() const {
  if (!has_filter) return 1.0;
  const uint64_t checks = miss_get.useful + miss_get.false_positives();
  return checks ? static_cast<double>(miss_get.false_positives()) / checks : kNaN;
}

double RunResult::BudgetDeviationPct() const {
  if (!has_filter || budget_bits_per_key <= 0) return 0;
  return 100.0 * (BudgetedBitsPerKey() / budget_bits_per_key - 1.0);
}

void PrintTable(const std::vector<RunResult>& results, const std::string& header_comment) {
  std::printf("%s", header_comment.c_str());
  std::vector<Row> rows;
  for (const RunResult& r : results) rows.push_back(Columns(r));
  PrintAligned(rows);

  // Per level: FP rate of the filters consulted there, and how many of them
  // an absent key consults (all overlapping L0 files count at level 0).
  const int deepest = DeepestLevel(results);
  std::printf("\n# FP rate by level for absent keys (filter checks per miss)\n");
  std::vector<Row> level_rows;
  for (const RunResult& r : results) {
    if (!r.has_filter) continue;
    Row row = {{"policy", r.policy}, {"budget", FormatNumber(r.budget_bits_per_key, "%g")}};
    for (int level = 0; level <= deepest; ++level) {
      row.push_back({"L" + std::to_string(level), FormatNumber(LevelFpRate(r, level), "%.5f") + " (" +
                                                      FormatNumber(LevelChecksPerMiss(r, level), "%.2f") +
                                                      ")"});
    }
    level_rows.push_back(row);
  }
  PrintAligned(level_rows);

  // Where the keys and the filter memory are: the same for every policy
  // (deterministic compaction), except the memory.
  std::printf("\n# Share of the keys (%%) and filter bits per key by level\n");
  level_rows.clear();
  for (const RunResult& r : results) {
    if (!r.has_filter) continue;
    Row row = {{"policy", r.policy}, {"budget", FormatNumber(r.budget_bits_per_key, "%g")}};
    for (int level = 0; level <= deepest; ++level) {
      row.push_back({"L" + std::to_string(level), FormatNumber(LevelKeySharePct(r, level), "%.2f") + " " +
                                                      FormatNumber(LevelBitsPerKey(r, level), "%.2f")});
    }
    level_rows.push_back(row);
  }
  PrintAligned(level_rows);

  std::printf("\n# Against the optimum for the same shape and filter memory (Monkey's split, "
              "filters at log2(1/fp) bits per key)\n");
  level_rows.clear();
  for (const RunResult& r : results) {
    if (!r.has_filter) continue;
    const double optimum = OptimalWastedReads(r);
    const double wasted = r.WastedReadsPerMiss(r.miss_get);
    level_rows.push_back({{"policy", r.policy},
                          {"budget", FormatNumber(r.budget_bits_per_key, "%g")},
                          {"bits_per_key", FormatNumber(r.tables.BitsPerKey(), "%.3f")},
                          {"wasted_reads_per_miss", FormatNumber(wasted, "%.5f")},
                          {"optimum", FormatNumber(optimum, "%.5f")},
                          {"ratio", FormatNumber(wasted / optimum, "%.3f")}});
  }
  PrintAligned(level_rows);
}

bool WriteResultsCsv(const std::string& path, const std::vector<RunResult>& results) {
  auto per_level = [](const RunResult& r) {
    Row row;
    for (int level = 0; level < kMaxLevels; ++level) {
      row.push_back({"fp_rate_L" + std::to_string(level), FormatNumber(LevelFpRate(r, level), "%.6f")});
    }
    for (int level = 0; level < kMaxLevels; ++level) {
      row.push_back({"checks_per_miss_L" + std::to_string(level),
                     FormatNumber(LevelChecksPerMiss(r, level), "%.4f")});
    }
    for (int level = 0; level < kMaxLevels; ++level) {
      row.push_back({"key_share_L" + std::to_string(level),
                     FormatNumber(LevelKeySharePct(r, level) / 100, "%.5f")});
    }
    for (int level = 0; level < kMaxLevels; ++level) {
      row.push_back(
          {"bits_per_key_L" + std::to_string(level), FormatNumber(LevelBitsPerKey(r, level), "%.3f")});
    }
    return row;
  };
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  for (const RunResult& r : results) {
    Row row = Columns(r);
    const Row levels = per_level(r);
    row.insert(row.end(), levels.begin(), levels.end());
    if (columns.empty()) columns = ColumnNames(row);
    rows.push_back(Cells(row));
  }
  return WriteCsv(path, columns, rows);
}

// bound.Ribbon beside the built Ribbons, one line per budget, and its FP
// rate and checks per miss by level.
void PrintRibbonBound(const std::vector<ProbedFile>& files, const std::vector<RunResult>& results,
                      uint64_t misses, bool optimize_filters_for_memory) {
  std::set<double> budgets;
  for (const RunResult& r : results) {
    if (r.has_filter) budgets.insert(r.budget_bits_per_key);
  }
  std::printf("\n# bound.Ribbon: Ribbon filters with no overhead in the same SST files "
              "(computed, not built; bench/ribbon_bound.h)\n");
  for (const double budget : budgets) {
    const LsmBound b = ComputeLsmBound(files, misses, budget,
                                       sstfilter::bench::RunningOnJemalloc(),
                                       optimize_filters_for_memory);
    std::string line = "budget " + tools::FormatNumber(budget, "%g") + ": setting " +
                       tools::FormatNumber(b.setting, "%.4f") + ", bits_per_key " +
                       tools::FormatNumber(b.bits_per_key, "%.3f") + ", alloc_bits_per_key " +
                       tools::FormatNumber(b.alloc_bits_per_key, "%.3f") + ", checks_per_miss " +
                       tools::FormatNumber(b.checks_per_miss, "%.3f") + ", wasted_reads_per_miss " +
                       tools::FormatNumber(b.wasted_reads_per_miss, "%.5f");
    for (const RunResult& r : results) {
      const bool ribbon = r.policy == "rocksdb.Ribbon" || r.policy == "sstfilter.Ribbon";
      if (r.budget_bits_per_key != budget || !ribbon) continue;
      const double wasted = r.WastedReadsPerMiss(r.miss_get);
      line += "; " + tools::FormatNumber(b.wasted_reads_per_miss / wasted, "%.3f") + "x " +
              r.policy + "'s " + tools::FormatNumber(wasted, "%.5f");
    }
    std::printf("%s\n  FP rate (checks per miss) by level:", line.c_str());
    for (int level = 0; level < kMaxLevels; ++level) {
      if (b.level_checks_per_miss[level] == 0) continue;
      std::printf(" L%d %s (%s)", level,
                  tools::FormatNumber(b.level_fp_rate[level], "%.5f").c_str(),
                  tools::FormatNumber(b.level_checks_per_miss[level], "%.3f").c_str());
    }
    std::printf("\n");
  }
}

void PlotLsmBench(const std::string& csv, const std::string& png) {
  RunGnuplot("plot_lsm_bench.gp", {{"csv", csv}, {"png", png}},
             {{"alloc", sstfilter::bench::RunningOnJemalloc() ? 1 : 0}});
}

}  // namespace sstfilter::bench
