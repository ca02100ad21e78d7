// memory_bench: filters of many sizes at the same ALLOCATED memory.
//
// What a filter costs a RocksDB user is the allocation that holds its
// block (filter bytes + 5-byte block trailer, rounded up by the allocator),
// not its filter bytes. For every --key_ranges range and every --filters
// policy, memory_bench builds --num_filters filters whose key counts are
// log-uniform in the range (the same counts for every policy), each the way
// RocksDB builds a table's filter (FilterBuildingContext, with
// --optimize_filters_for_memory as in RocksDB 9.2+'s default), and reports:
//   filter_bits_per_key  filter bytes * 8 / keys, over all filters
//   alloc_bits_per_key   malloc_usable_size(filter bytes + 5) * 8 / keys:
//                        what the block cache is charged for the blocks
//   slack_pct            allocated bytes beyond filter bytes + 5, in % of
//                        the filter bytes
//   fp_rate              false positives / queries, the same number of
//                        absent keys per filter (an average over filters)
//   fp_at_budget         the FP rate at exactly --alloc_bits_per_key
//   fp_vs                fp_at_budget / that of the RocksDB built-in of the
//                        same family (rocksdb.Ribbon for Ribbon,
//                        rocksdb.Bloom for the Bloom kinds)
// Every policy's setting is calibrated (bisection) to two settings whose
// alloc_bits_per_key bracket --alloc_bits_per_key; the table shows the upper
// one, fp_at_budget interpolates log(FP rate) between the two. Every added key is checked
// (false negatives stop the run). Run with --allocator=jemalloc for
// RocksDB's production allocator.
//
// `bound.Ribbon` is computed, not built (bench/ribbon_bound.h): a Ribbon
// filter with no overhead at all, at the lengths sstfilter's rounding picks
// under the same allocator. Its fp_rate is the expected one, and its fp_vs
// says how far any Ribbon filter can get from rocksdb.Ribbon's. With
// sstfilter.Ribbon among the filters, a second table takes its filters
// apart (bench/ribbon_costs.h): per range, its trailer, header, bump-code
// and padding bytes and empty slots per filter, and its FP rate over the
// bound's at its own lengths as each cost is added in turn.
//
//   ./build/bench/memory_bench --allocator=jemalloc --csv=out/memory_bench.csv
#include <gflags/gflags.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench/allocator.h"
#include "bench/bench_util.h"
#include "bench/csv.h"
#include "bench/flag_help.h"
#include "bench/keys.h"
#include "bench/ribbon_bound.h"
#include "bench/ribbon_costs.h"
#include "plugin/core/bisect.h"
#include "plugin/core/hash.h"
#include "plugin/core/alloc_fit.h"
#include "plugin/core/block_allocation.h"
#include "plugin/rocksdb/filter_bits.h"
#include "plugin/tools/policy_factory.h"
#include "plugin/tools/text_output.h"

DEFINE_string(filters, "rocksdb.Bloom,rocksdb.Ribbon,sstfilter.StandardBloom,"
              "sstfilter.BlockedBloom,sstfilter.Ribbon,bound.Ribbon",
              "Comma-separated filter names (as filter_bench's --filters), and "
              "bound.Ribbon: the computed FP rate of a Ribbon filter without overhead.");
DEFINE_double(alloc_bits_per_key, 10, "Allocated bits per key every policy is calibrated to.");
DEFINE_string(key_ranges, "1000-5000,1000-200000",
              "Comma-separated LO-HI ranges of keys per filter (log-uniform).");
DEFINE_uint64(num_filters, 400, "Filters per range and policy.");
DEFINE_uint64(queries_per_filter, 20000, "Absent keys queried per filter.");
DEFINE_bool(optimize_filters_for_memory, true,
            "BlockBasedTableOptions::optimize_filters_for_memory of every build "
            "(RocksDB's default since 9.2).");
DEFINE_string(allocator, "system", "jemalloc (re-runs with libjemalloc2 preloaded) or system.");
DEFINE_string(csv, "", "If set, also write the results as CSV to this file.");
DEFINE_uint64(seed, 1, "Seed for the filter sizes and keys.");
DEFINE_bool(ribbon_costs, true,
            "With sstfilter.Ribbon: a second table of where its FP rate goes over bound.Ribbon's "
            "at its own lengths (trailer and header, bump codes, empty slots, column split).");

namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using sstfilter::kBlockTrailerBytes;
using sstfilter::tools::FormatNumber;

using sstfilter::bench::Fatal;
using sstfilter::bench::WriteCsv;

// 16-byte key: 8-byte tag, then a bijective mix of (filter, index).
struct KeyMaker {
  char buf[16];
  rdb::Slice Make(const char* tag, uint64_t filter, uint64_t i) {
    sstfilter::bench::TaggedKey(tag, (filter << 32) + i, FLAGS_seed, buf);
    return rdb::Slice(buf, sizeof(buf));
  }
};

struct Measured {
  double setting = 0;
  uint64_t keys = 0, filter_bytes = 0, alloc_bytes = 0, queries = 0, fps = 0, fns = 0;
  double FilterBitsPerKey() const { return 8.0 * filter_bytes / keys; }
  double AllocBitsPerKey() const { return 8.0 * alloc_bytes / keys; }
  double SlackPct() const {
    const double trailers = static_cast<double>(kBlockTrailerBytes) * FLAGS_num_filters;
    return 100.0 * (alloc_bytes - filter_bytes - trailers) / filter_bytes;
  }
  double FpRate() const {
    if (!std::isnan(expected_fp_rate)) return expected_fp_rate;
    return queries ? static_cast<double>(fps) / queries : NAN;
  }
  double expected_fp_rate = NAN;  // bound.Ribbon: computed, not counted
  double fp_at_target = NAN;  // interpolated to --alloc_bits_per_key
  sstfilter::bench::RibbonCosts costs;  // sstfilter.Ribbon with --ribbon_costs
};

constexpr char kSstRibbon[] = "sstfilter.Ribbon";

std::shared_ptr<const rdb::FilterPolicy> MakePolicy(const std::string& filter, double setting) {
  sstfilter::tools::PolicyRequest request;
  request.filter = filter;
  request.bits_per_key = setting;
  request.ribbon_bloom_before_level = -1;  // Ribbon in every file
  sstfilter::tools::MadePolicy made;
  const rdb::Status s = sstfilter::tools::MakeFilterPolicy(request, &made);
  if (!s.ok()) Fatal(s.ToString());
  return made.policy;
}

constexpr char kBound[] = "bound.Ribbon";

// bound.Ribbon: each filter's length, what is allocated for it and the
// expected false positives.
Measured RunBound(double setting, const std::vector<uint64_t>& sizes, bool query) {
  std::atomic<int64_t> balance{0};
  const sstfilter::AllocatorFit fit = sstfilter::AllocatorFitForBlocks(&balance);
  Measured m;
  m.setting = setting;
  double expected_fps = 0;
  for (const uint64_t n : sizes) {
    const size_t len = sstfilter::bench::BoundRibbonLength(
        n, setting, FLAGS_optimize_filters_for_memory ? &fit : nullptr);
    m.keys += n;
    m.filter_bytes += len;
    m.alloc_bytes += sstfilter::AllocatedBlockBytes(len);
    if (!query) continue;
    expected_fps += sstfilter::bench::BoundRibbonFpRate(len, n) *
                    static_cast<double>(FLAGS_queries_per_filter);
  }
  if (!query) return m;
  m.queries = FLAGS_queries_per_filter * sizes.size();
  m.fps = static_cast<uint64_t>(std::llround(expected_fps));
  if (m.queries > 0) m.expected_fp_rate = expected_fps / static_cast<double>(m.queries);
  return m;
}

// Builds every filter with a fresh policy (so its rounding balance starts
// at zero, as in a fresh process); with `query`, checks and queries them.
Measured Run(const std::string& filter, double setting, const std::vector<uint64_t>& sizes,
             bool query) {
  if (filter == kBound) return RunBound(setting, sizes, query);
  const auto policy = MakePolicy(filter, setting);
  rdb::BlockBasedTableOptions table_options;
  table_options.optimize_filters_for_memory = FLAGS_optimize_filters_for_memory;
  const rdb::FilterBuildingContext context(table_options);
  Measured m;
  m.setting = setting;
  KeyMaker key;
  for (size_t f = 0; f < sizes.size(); ++f) {
    sstfilter::bits::Builder builder(*policy, context);
    if (!builder) Fatal(filter + ": no builder");
    for (uint64_t i = 0; i < sizes[f]; ++i) builder.AddKey(key.Make("sstfmemp", f, i));
    std::unique_ptr<const char[]> buf;
    const rdb::Slice block = builder.Finish(&buf);
    m.keys += sizes[f];
    m.filter_bytes += block.size();
    m.alloc_bytes += sstfilter::AllocatedBlockBytes(block.size());
    if (!query) continue;
    const sstfilter::bits::Reader reader(*policy, block);
    for (uint64_t i = 0; i < sizes[f]; ++i) m.fns += !reader.MayMatch(key.Make("sstfmemp", f, i));
    if (FLAGS_ribbon_costs && filter == kSstRibbon) {
      std::vector<uint64_t> hashes;
      for (uint64_t i = 0; i < sizes[f]; ++i) {
        const rdb::Slice k = key.Make("sstfmemp", f, i);
        hashes.push_back(sstfilter::HashKey(k.data(), k.size()));
      }
      sstfilter::bench::AddRibbonCosts(block.data(), block.size(), hashes.data(), hashes.size(),
                                       &m.costs);
    }
    for (uint64_t i = 0; i < FLAGS_queries_per_filter; ++i) {
      m.fps += reader.MayMatch(key.Make("sstfmemn", f, i));
    }
    m.queries += FLAGS_queries_per_filter;
  }
  return m;
}

// Two settings whose alloc_bits_per_key bracket the target, close together
// (bisection: allocated memory grows with the setting, in steps).
std::pair<double, double> Calibrate(const std::string& filter, const std::vector<uint64_t>& sizes) {
  const double target = FLAGS_alloc_bits_per_key;
  // rocksdb.Ribbon's setting is "Bloom-equivalent": ~1.46x its actual bits.
  const double lo = filter == "rocksdb.Ribbon" ? target : target * 0.6;
  const double hi = filter == "rocksdb.Ribbon" ? target * 2.5 : target * 1.4;
  return sstfilter::Bisect(lo, hi, 14, [&](double setting) {
    return !(Run(filter, setting, sizes, false).AllocBitsPerKey() < target);
  });
}

// The FP rate at exactly the target allocated memory: log-linear between
// the two bracketing measurements (the FP rate falls exponentially with
// memory), so every policy is compared at the same allocated bits per key.
double FpRateAtTarget(const Measured& lo, const Measured& hi) {
  const double x0 = lo.AllocBitsPerKey(), x1 = hi.AllocBitsPerKey();
  if (!(x1 > x0) || !(lo.FpRate() > 0) || !(hi.FpRate() > 0)) return hi.FpRate();
  const double t = (FLAGS_alloc_bits_per_key - x0) / (x1 - x0);
  return std::exp(std::log(lo.FpRate()) + t * (std::log(hi.FpRate()) - std::log(lo.FpRate())));
}

const char* Family(const std::string& filter) {
  return filter.find("Ribbon") != std::string::npos ? "rocksdb.Ribbon" : "rocksdb.Bloom";
}

using Row = std::vector<std::string>;

const Row& Header() {
  static const Row header = {"range", "filter", "setting", "filter_bits_per_key",
                             "alloc_bits_per_key", "slack_pct", "fp_rate", "fp_at_budget",
                             "fp_vs", "vs", "false_negatives", "fp_count", "queries"};
  return header;
}

// --num_filters key counts spread log-uniformly over `range` ("LO-HI").
std::vector<uint64_t> RangeSizes(const std::string& range) {
  const size_t dash = range.find('-');
  const double lo = dash == std::string::npos ? 0 : std::atof(range.substr(0, dash).c_str());
  const double hi = dash == std::string::npos ? 0 : std::atof(range.substr(dash + 1).c_str());
  if (!(lo >= 1 && hi >= lo)) Fatal("bad range '" + range + "' in --key_ranges (want LO-HI)");
  std::mt19937_64 rng(FLAGS_seed);
  std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
  std::vector<uint64_t> sizes;
  for (uint64_t i = 0; i < FLAGS_num_filters; ++i) {
    sizes.push_back(static_cast<uint64_t>(std::llround(std::exp(u(rng)))));
  }
  return sizes;
}

// Where sstfilter.Ribbon's FP rate goes over the bound's at its own
// lengths (bench/ribbon_costs.h), at the upper calibrated setting.
const Row& CostsHeader() {
  static const Row header = {"range", "filters", "skipped", "trailer_bytes", "header_bytes",
                             "code_bytes", "padding_bytes", "empty_slots", "x_trailer_header",
                             "x_codes", "x_empty_slots", "x_built", "x_counted"};
  return header;
}

Row CostsRow(const std::string& range, const Measured& m) {
  const sstfilter::bench::RibbonCosts& c = m.costs;
  const double f = static_cast<double>(c.filters);
  auto per_filter = [&](uint64_t v) { return FormatNumber(static_cast<double>(v) / f, "%.1f"); };
  auto over_bound = [&](double v) { return FormatNumber(v / c.bound, "%.4f"); };
  // The counted FP rate covers every filter; the bound's mean is over the
  // Ribbon filters taken apart, which are all of them unless some were
  // skipped.
  return {range, std::to_string(c.filters), std::to_string(c.skipped),
          per_filter(c.trailer_bytes), per_filter(c.header_bytes), per_filter(c.code_bytes),
          per_filter(c.padding_bytes), per_filter(c.empty_slots), over_bound(c.no_header),
          over_bound(c.no_codes), over_bound(c.no_empty), over_bound(c.built),
          FormatNumber(m.FpRate() / (c.bound / f), "%.4f")};
}

std::vector<Row> g_cost_rows;

// One row per filter for one range of key counts: each filter calibrated
// to the target, its FP rate at the target, and that against the built-in
// of its family.
std::vector<Row> MeasureRange(const std::string& range, const std::vector<std::string>& filters) {
  const std::vector<uint64_t> sizes = RangeSizes(range);
  std::vector<std::pair<std::string, Measured>> results;
  for (const std::string& filter : filters) {
    std::fprintf(stderr, "[memory_bench] %s: calibrating %s ...\n", range.c_str(), filter.c_str());
    const auto [lo_setting, hi_setting] = Calibrate(filter, sizes);
    std::fprintf(stderr, "[memory_bench] %s: measuring %s at %.4f and %.4f ...\n", range.c_str(),
                 filter.c_str(), lo_setting, hi_setting);
    const Measured lo_m = Run(filter, lo_setting, sizes, true);
    Measured m = Run(filter, hi_setting, sizes, true);
    if (lo_m.fns + m.fns != 0) Fatal(filter + ": false negatives");
    m.fp_at_target = FpRateAtTarget(lo_m, m);
    if (m.costs.filters > 0) g_cost_rows.push_back(CostsRow(range, m));
    results.emplace_back(filter, m);
  }
  std::vector<Row> rows;
  for (const auto& [filter, m] : results) {
    double reference = NAN;
    for (const auto& [other, om] : results) {
      if (other == Family(filter)) reference = om.fp_at_target;
    }
    rows.push_back({range, filter, FormatNumber(m.setting, "%.4f"),
                    FormatNumber(m.FilterBitsPerKey(), "%.3f"),
                    FormatNumber(m.AllocBitsPerKey(), "%.3f"), FormatNumber(m.SlackPct(), "%.2f"),
                    FormatNumber(m.FpRate(), "%.5g"), FormatNumber(m.fp_at_target, "%.5g"),
                    FormatNumber(m.fp_at_target / reference, "%.3f"),
                    Family(filter), std::to_string(m.fns), std::to_string(m.fps),
                    std::to_string(m.queries)});
  }
  return rows;
}

void PrintRows(const Row& header, const std::vector<Row>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  auto print_row = [&](const Row& row) {
    for (size_t c = 0; c < row.size(); ++c) {
      std::printf(c < 2 ? "%-*s  " : "%*s  ", static_cast<int>(width[c]), row[c].c_str());
    }
    std::printf("\n");
  };
  print_row(header);
  for (const auto& row : rows) print_row(row);
}

void PrintTable(const std::vector<Row>& rows) {
  std::printf("# allocator=%s optimize_filters_for_memory=%d alloc_bits_per_key=%g num_filters=%llu "
              "queries_per_filter=%llu seed=%llu\n",
              sstfilter::bench::AllocatorName(), FLAGS_optimize_filters_for_memory ? 1 : 0,
              FLAGS_alloc_bits_per_key, static_cast<unsigned long long>(FLAGS_num_filters),
              static_cast<unsigned long long>(FLAGS_queries_per_filter),
              static_cast<unsigned long long>(FLAGS_seed));
  PrintRows(Header(), rows);
  if (g_cost_rows.empty()) return;
  std::printf("\n# sstfilter.Ribbon's FP rate over bound.Ribbon's at its own lengths, each "
              "fixed cost added in turn (bytes and slots per filter)\n");
  PrintRows(CostsHeader(), g_cost_rows);
}

void WriteCsvFile(const std::string& path, const std::vector<Row>& rows) {
  if (!WriteCsv(path, Header(), rows)) Fatal("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "Builds filters of many sizes per policy, each calibrated to the same allocated "
      "bits per key, and reports filter and allocated memory, allocator slack and FP rate.";
  sstfilter::bench::StartBenchmark(&argc, &argv, "memory_bench", usage, __FILE__, FLAGS_allocator);
  if (FLAGS_num_filters == 0 || !(FLAGS_alloc_bits_per_key > 0)) {
    Fatal("need --num_filters > 0 and --alloc_bits_per_key > 0");
  }
  const std::vector<std::string> filters = sstfilter::bench::SplitCommas(FLAGS_filters);
  std::vector<Row> rows;
  for (const std::string& range : sstfilter::bench::SplitCommas(FLAGS_key_ranges)) {
    for (Row& row : MeasureRange(range, filters)) rows.push_back(std::move(row));
  }
  PrintTable(rows);
  if (!FLAGS_csv.empty()) WriteCsvFile(FLAGS_csv, rows);
  return 0;
}
