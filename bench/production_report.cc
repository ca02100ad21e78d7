#include "bench/production_report.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "bench/csv.h"
#include "bench/flag_help.h"
#include "bench/gnuplot.h"
#include "plugin/tools/text_output.h"

namespace sstfilter::bench {

namespace {

using tools::FormatNumber;

double PerOp(uint64_t count, const WorkloadResult& r) {
  const uint64_t ops = r.hits + r.misses;
  return ops ? static_cast<double>(count) / ops : 0;
}

double Ratio(uint64_t hit, uint64_t miss) {
  return hit + miss ? static_cast<double>(hit) / (hit + miss) : 0;
}

}  // namespace

double WastedPerMiss(const WorkloadResult& r) {
  const uint64_t wasted =
      r.counters[ReadCounters::kPositive] - r.counters[ReadCounters::kTruePositive];
  return r.misses ? static_cast<double>(wasted) / r.misses : 0;
}

std::string SliceOps(const WorkloadResult& r) {
  std::string out;
  for (double ops : r.slice_ops_per_second) {
    out += (out.empty() ? "" : " ") + std::to_string(std::llround(ops));
  }
  return out;
}

void SetByLevel(const WorkloadResult& misses, Row* row) {
  if (misses.misses == 0) return;
  row->by_level = true;
  for (const auto& [level, c] : misses.by_level) {
    if (level < 0 || level >= kMaxLevels) continue;
    row->wasted_per_miss_at[level] = static_cast<double>(c.false_positives()) / misses.misses;
    row->device_reads_per_miss_at[level] = static_cast<double>(c.cache_misses) / misses.misses;
  }
}

std::string Header(const std::string& load, uint64_t cache_bytes, bool direct_reads,
                   const char* allocator, bool optimize_filters_for_memory, uint64_t ops,
                   double min_seconds, int rounds, const std::string& device) {
  char buf[640];
  std::snprintf(buf, sizeof(buf),
                "# %s block_cache=%llu direct_reads=%d allocator=%s "
                "optimize_filters_for_memory=%d ops=%llu min_seconds=%g compression=default "
                "format_version=5 dynamic_level_bytes=1 rounds=%d device=%s\n",
                load.c_str(), static_cast<unsigned long long>(cache_bytes), direct_reads ? 1 : 0,
                allocator, optimize_filters_for_memory ? 1 : 0,
                static_cast<unsigned long long>(ops), min_seconds, rounds, device.c_str());
  return buf;
}

void PrintRows(const std::vector<Row>& rows, const std::string& header) {
  std::printf("%s", header.c_str());
  if (!rows.empty()) {
    std::printf("# files per level %s, %.2f files per absent key\n", rows[0].shape.c_str(),
                rows[0].files_per_miss);
  }
  std::printf("%-22s %1s %6s %6s %4s %3s %9s %9s %9s %9s %9s %9s %9s %6s %6s\n", "policy", "L",
              "budget", "bits", "hit%", "thr", "ops/s", "dev.rd/op", "wasted/m", "miss p50",
              "miss p99", "miss p999", "hit p99", "dataHR", "filtHR");
  for (const Row& r : rows) {
    const WorkloadResult& w = r.result;
    std::printf("%-22s %c %6g %6.3f %4d %3d %9.0f %9.4f %9.5f %9.1f %9.1f %9.1f %9.1f %6.3f %6.3f\n",
                r.policy.c_str(), r.layout, r.budget, r.BudgetedBitsPerKey(), r.hit_percent,
                r.threads, w.OpsPerSecond(), PerOp(w.counters.device_reads(), w), r.wasted_per_miss,
                w.miss_latency.p50_us, w.miss_latency.p99_us, w.miss_latency.p999_us,
                w.hit_latency.p99_us, Ratio(w.counters[ReadCounters::kDataHit], w.counters[ReadCounters::kDataMiss]),
                Ratio(w.counters[ReadCounters::kFilterHit], w.counters[ReadCounters::kFilterMiss]));
  }
  std::printf("# latencies in µs, Get as the application sees it%s; HR: block-cache hit ratio\n",
              " (direct reads: a block-cache miss is a device read)");
  // Where the misses' wasted reads are, and which of them reach the device
  // (a block of a small, hot level is often in the cache): once per policy
  // run, whose rows share the counts.
  std::printf("# by level, over the wasted/m lookups: false positives / device reads per miss\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (!r.by_level || (i > 0 && rows[i - 1].run == r.run)) continue;
    std::printf("%-22s %c %6g", r.policy.c_str(), r.layout, r.budget);
    for (int level = 0; level < kMaxLevels; ++level) {
      if (r.wasted_per_miss_at[level] == 0 && r.device_reads_per_miss_at[level] == 0) continue;
      std::printf("  L%d %.5f / %.5f", level, r.wasted_per_miss_at[level],
                  r.device_reads_per_miss_at[level]);
    }
    std::printf("\n");
  }
}

namespace {

// The CSV's columns (bench/production_smoke.sh checks them).
CsvRow CsvColumns(const Row& r) {
  const WorkloadResult& w = r.result;
  CsvRow row = {
      {"policy", r.policy},
      {"layout", std::string(1, r.layout)},
      {"budget_bits_per_key", FormatNumber(r.budget, "%g")},
      {"bits_per_key", FormatNumber(r.bits_per_key, "%.4f")},
      {"alloc_bits_per_key", FormatNumber(r.alloc_bits_per_key, "%.4f")},
      {"filter_bytes", std::to_string(r.filter_bytes)},
      {"block_cache_bytes", std::to_string(r.cache_bytes)},
      {"files_per_level", r.shape},
      {"files_per_miss", FormatNumber(r.files_per_miss, "%.3f")},
      {"hit_percent", std::to_string(r.hit_percent)},
      {"threads", std::to_string(r.threads)},
      {"ops_per_sec", FormatNumber(w.OpsPerSecond(), "%.1f")},
      {"device_reads_per_lookup", FormatNumber(PerOp(w.counters.device_reads(), w), "%.5f")},
      {"os_reads_per_lookup", FormatNumber(PerOp(w.counters[ReadCounters::kOsReads], w), "%.5f")},
      {"os_read_kib_per_lookup",
       FormatNumber(PerOp(w.counters[ReadCounters::kOsReadBytes], w) / 1024, "%.3f")},
      {"wasted_reads_per_miss", FormatNumber(r.wasted_per_miss, "%.6f")},
      {"workload_wasted_reads_per_miss", FormatNumber(WastedPerMiss(w), "%.6f")},
      {"hit_mean_us", FormatNumber(w.hit_latency.mean_us, "%.2f")},
      {"hit_p50_us", FormatNumber(w.hit_latency.p50_us, "%.2f")},
      {"hit_p99_us", FormatNumber(w.hit_latency.p99_us, "%.2f")},
      {"hit_p999_us", FormatNumber(w.hit_latency.p999_us, "%.2f")},
      {"miss_mean_us", FormatNumber(w.miss_latency.mean_us, "%.2f")},
      {"miss_p50_us", FormatNumber(w.miss_latency.p50_us, "%.2f")},
      {"miss_p99_us", FormatNumber(w.miss_latency.p99_us, "%.2f")},
      {"miss_p999_us", FormatNumber(w.miss_latency.p999_us, "%.2f")},
      {"data_cache_hit_ratio",
       FormatNumber(Ratio(w.counters[ReadCounters::kDataHit], w.counters[ReadCounters::kDataMiss]),
                    "%.4f")},
      {"index_cache_hit_ratio",
       FormatNumber(Ratio(w.counters[ReadCounters::kIndexHit], w.counters[ReadCounters::kIndexMiss]),
                    "%.4f")},
      {"filter_cache_hit_ratio",
       FormatNumber(
           Ratio(w.counters[ReadCounters::kFilterHit], w.counters[ReadCounters::kFilterMiss]),
           "%.4f")},
      {"setting", r.setting},
  };
  for (int level = 0; level < kMaxLevels; ++level) {
    row.push_back({"wasted_reads_per_miss_L" + std::to_string(level),
                   FormatNumber(r.wasted_per_miss_at[level], "%.6f")});
  }
  for (int level = 0; level < kMaxLevels; ++level) {
    row.push_back({"device_reads_per_miss_L" + std::to_string(level),
                   FormatNumber(r.device_reads_per_miss_at[level], "%.6f")});
  }
  row.push_back({"copy_read_median_us",
                 r.copy_probed ? FormatNumber(r.copy_reads.p50_us, "%.1f") : std::string("-")});
  row.push_back({"copy_read_p99_us",
                 r.copy_probed ? FormatNumber(r.copy_reads.p99_us, "%.1f") : std::string("-")});
  // bench/production_ratios.sh compares policies slice by slice with it.
  row.push_back({"ops_per_sec_by_round", SliceOps(w)});
  return row;
}

}  // namespace

bool WriteRowsCsv(const std::string& path, const std::vector<Row>& rows, const std::string& header) {
  std::vector<std::vector<std::string>> cells;
  for (const Row& r : rows) cells.push_back(Cells(CsvColumns(r)));
  return WriteCsv(path, ColumnNames(CsvColumns(Row{})), cells, header);
}

void PlotRows(const std::string& csv, const std::string& png) {
  RunGnuplot("plot_production_bench.gp", {{"csv", csv}, {"png", png}});
}

}  // namespace sstfilter::bench
