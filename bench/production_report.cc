#include "bench/production_report.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bench/flag_help.h"

namespace sstfilter::bench {

namespace {

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

std::string Header(const std::string& load, uint64_t cache_bytes, bool direct_reads,
                   const char* allocator, bool optimize_filters_for_memory, uint64_t ops,
                   double min_seconds) {
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "# %s block_cache=%llu direct_reads=%d allocator=%s "
                "optimize_filters_for_memory=%d ops=%llu min_seconds=%g compression=default "
                "format_version=5 dynamic_level_bytes=1\n",
                load.c_str(), static_cast<unsigned long long>(cache_bytes), direct_reads ? 1 : 0,
                allocator, optimize_filters_for_memory ? 1 : 0,
                static_cast<unsigned long long>(ops), min_seconds);
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
}

bool WriteRowsCsv(const std::string& path, const std::vector<Row>& rows, const std::string& header) {
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial);
    if (!out) return false;
    out << header;
    out << "policy,layout,budget_bits_per_key,bits_per_key,alloc_bits_per_key,filter_bytes,"
           "block_cache_bytes,files_per_level,files_per_miss,hit_percent,threads,ops_per_sec,"
           "device_reads_per_lookup,os_reads_per_lookup,os_read_kib_per_lookup,"
           "wasted_reads_per_miss,workload_wasted_reads_per_miss,hit_mean_us,hit_p50_us,hit_p99_us,hit_p999_us,miss_mean_us,"
           "miss_p50_us,miss_p99_us,miss_p999_us,data_cache_hit_ratio,index_cache_hit_ratio,"
           "filter_cache_hit_ratio,setting\n";
    for (const Row& r : rows) {
      const WorkloadResult& w = r.result;
      char buf[1024];
      std::snprintf(
          buf, sizeof(buf),
          "%s,%c,%g,%.4f,%.4f,%llu,%llu,%s,%.3f,%d,%d,%.1f,%.5f,%.5f,%.3f,%.6f,%.6f,%.2f,%.2f,%.2f,"
          "%.2f,%.2f,%.2f,%.2f,%.2f,%.4f,%.4f,%.4f,",
          r.policy.c_str(), r.layout, r.budget, r.bits_per_key, r.alloc_bits_per_key,
          static_cast<unsigned long long>(r.filter_bytes),
          static_cast<unsigned long long>(r.cache_bytes), r.shape.c_str(), r.files_per_miss,
          r.hit_percent, r.threads, w.OpsPerSecond(), PerOp(w.counters.device_reads(), w),
          PerOp(w.counters[ReadCounters::kOsReads], w), PerOp(w.counters[ReadCounters::kOsReadBytes], w) / 1024,
          r.wasted_per_miss, WastedPerMiss(w), w.hit_latency.mean_us, w.hit_latency.p50_us, w.hit_latency.p99_us,
          w.hit_latency.p999_us, w.miss_latency.mean_us, w.miss_latency.p50_us,
          w.miss_latency.p99_us, w.miss_latency.p999_us,
          Ratio(w.counters[ReadCounters::kDataHit], w.counters[ReadCounters::kDataMiss]),
          Ratio(w.counters[ReadCounters::kIndexHit], w.counters[ReadCounters::kIndexMiss]),
          Ratio(w.counters[ReadCounters::kFilterHit], w.counters[ReadCounters::kFilterMiss]));
      out << buf << r.setting << "\n";
    }
    if (!out.flush()) return false;
  }
  std::error_code ec;
  std::filesystem::rename(partial, path, ec);
  return !ec;
}

void PlotRows(const std::string& csv, const std::string& png) {
  const std::string script = std::string(SSTFILTER_SOURCE_DIR) + "/bench/plot_production_bench.gp";
  const std::string command =
      "gnuplot -e \"csv='" + csv + "'; png='" + png + "'\" '" + script + "'";
  if (std::system(command.c_str()) != 0) Fatal("plot failed: " + command);
}

}  // namespace sstfilter::bench
