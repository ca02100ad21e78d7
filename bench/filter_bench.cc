// filter_bench: sstfilter filters and RocksDB's built-ins side by side.
//
// For every --filters name × --bits_per_key value, in one process and over
// the same keys, it builds a filter through FilterPolicy (exactly the path
// RocksDB takes when writing an SST file) and reports:
//   - size: actual bits per key = filter bytes * 8 / keys. For rocksdb.Ribbon
//     the configured value is "Bloom-equivalent", so 10 gives ~7 actual bits,
//     unless --ribbon_same_memory calibrates it to the same actual memory.
//   - correctness: every added key must read back "may match", through both
//     the single and the batched MayMatch, in every build type. Any false
//     negative is a loud error and a non-zero exit status.
//   - FP rate over --queries keys that were never added, next to the rate the
//     builder predicts (EstimatedFpRate), with a z-score so "off by more than
//     noise" is visible at a glance, and overhead_pct against the information-
//     theoretic bound log2(1/fp) bits per key (FastFilter's "wasted space").
//   - timings (ns): build per key (AddKey + Finish), single negative and
//     positive queries, batched negative queries (MultiGet's path).
//   - temp_bytes_per_key: peak heap bytes held during AddKey + Finish beyond
//     what was held before and beyond the finished filter itself, per key.
//     Counted by replacing the global operator new/delete (every sized and
//     aligned form) with versions that add malloc_usable_size to an atomic
//     counter, so RocksDB's builders are measured exactly like ours.
//   - peak_rss_delta_bytes_per_key: how far the process's resident memory
//     rose above its level before construction, at its highest during
//     AddKey + Finish of the first build pass, per key. The finished filter
//     is included (it is resident memory), so this is about
//     temp_bytes_per_key + bits_per_key / 8 plus allocator and page
//     rounding. Freed heap is returned to the OS first (malloc_trim) and the
//     kernel's high-water mark reset (bench/rss.h), so the key set and
//     earlier filters do not count; nan where /proc/self/clear_refs is not
//     writable.
//   - FP queries are scaled so the overhead's own noise stays below
//     --max_overhead_noise points: overhead = bits / log2(1/fp) - 1 has
//     sd ~ (1 + overhead) / (ln(1/fp) sqrt(false positives)), so 0.3 points
//     at fp = 1e-6 needs ~580 false positives, ~5e8 queries. Keys beyond
//     --queries are generated on the fly, in chunks; only the FP count uses
//     them (timings use the first --queries).
//
// Keys: 16 bytes, an 8-byte fixed prefix then a bijective mix of a 64-bit
// index, little-endian. Positives use indices [0, keys), negatives
// [keys, keys + queries), so negatives are truly absent. All keys are made
// before any timing.
//
//   ./build/bench/filter_bench --filters=sstfilter.StandardBloom,rocksdb.Bloom
//       --bits_per_key=6,10 --csv=out/bench.csv   (one command line)
#include <gflags/gflags.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/allocator.h"
#include "bench/bench_util.h"
#include "bench/csv.h"
#include "bench/flag_help.h"
#include "bench/heap_counter.h"
#include "bench/keys.h"
#include "bench/lsm_policies.h"
#include "bench/rss.h"
#include "plugin/core/block_allocation.h"
#include "plugin/rocksdb/filter_bits.h"
#include "plugin/tools/policy_factory.h"
#include "plugin/tools/text_output.h"

DEFINE_string(allocator, "system",
              "jemalloc: re-run with Debian's libjemalloc2 preloaded (RocksDB's "
              "production allocator); system: the C library's malloc.");
DEFINE_bool(optimize_filters_for_memory, false,
            "BlockBasedTableOptions::optimize_filters_for_memory of every build: "
            "each filter's length chosen for the allocator's size classes (RocksDB's "
            "default since 9.2; see alloc_bits_per_key).");
DEFINE_int32(rounds, 1,
             "Measure every configuration this many times, one after the "
             "other in turn, and report the fastest times (FP counts come "
             "from the first round): comparisons stay fair when other load "
             "on the machine comes and goes.");
DEFINE_bool(ribbon_same_memory, false,
            "Give rocksdb.Ribbon the same actual memory as the others: its "
            "--bits_per_key value is then actual bits per key, the "
            "Bloom-equivalent setting calibrated on trial filters of --keys "
            "keys (at most 1M). Without it the value is the setting itself "
            "(10 gives ~7 actual bits per key).");
DEFINE_string(filters, "sstfilter.*,rocksdb.Bloom,rocksdb.Ribbon",
              "Comma-separated filter names. rocksdb.Bloom and rocksdb.Ribbon "
              "are RocksDB's built-ins (NewBloomFilterPolicy / "
              "NewRibbonFilterPolicy); 'sstfilter.*' expands to every "
              "registered sstfilter filter kind (not sstfilter.LevelAware, "
              "which needs a level); any other name N is created from "
              "the id 'N:<bits_per_key>' through RocksDB's object registry; "
              "'N/opt=v' adds policy options, e.g. "
              "sstfilter.BlockedBloom/lines_per_key=2.");
DEFINE_string(bits_per_key, "6,10,16,20",
              "Comma-separated bits-per-key values to configure each filter "
              "with (fractions allowed).");
DEFINE_uint64(keys, 1000000, "Keys added to each filter.");
// 10M negatives: at 20 bits/key (FP ~7e-5) that still gives ~670 false
// positives, a relative error of ~4%; with --repeat=3 the default run takes
// about 20 s on one core of a 2-core machine (queries dominate).
DEFINE_uint64(queries, 10000000,
              "Negative (never added) keys queried per filter; the FP rate is "
              "measured over all of them.");
DEFINE_string(csv, "", "If set, also write the results as CSV to this file.");
DEFINE_uint64(seed, 0, "Seed for the key sets; same seed, same keys.");
// At most RocksDB's MultiGet batch (sstfilter::bits::Reader::kMaxBatch).
DEFINE_int32(batch, 32, "Keys per batched MayMatch call (1..32).");
DEFINE_int32(repeat, 3,
             "Timed passes per measurement; the fastest is reported.");
DEFINE_double(max_overhead_noise, 0.3,
              "Query enough negatives that one standard deviation of "
              "overhead_pct's sampling noise is at most this many points "
              "(0: exactly --queries).");
DEFINE_uint64(max_fp_queries, 2000000000,
              "Upper limit on the negatives queried for the FP rate.");
DEFINE_double(max_fp_z, 6.0,
              "Warn loudly when a measured FP count exceeds the predicted one "
              "by more than this many standard deviations (0: never).");

namespace {

using ROCKSDB_NAMESPACE::FilterPolicy;
using ROCKSDB_NAMESPACE::Slice;
using Clock = std::chrono::steady_clock;

constexpr size_t kKeyBytes = 16;
constexpr char kKeyPrefix[8] = {'s', 's', 't', 'f', 'b', 'e', 'n', 'c'};
constexpr int kMaxBatch = sstfilter::bits::Reader::kMaxBatch;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Printed on stderr and above the table: numbers from such builds mislead.
std::vector<std::string> BuildWarnings() {
  std::vector<std::string> warnings;
#if !defined(__OPTIMIZE__)
  warnings.push_back("filter_bench compiled WITHOUT optimisation (-O0)");
#endif
#ifndef NDEBUG
  warnings.push_back("filter_bench compiled with assertions (NDEBUG not defined)");
#endif
  bool sanitized = false;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || \
    defined(SSTFILTER_BENCH_SANITIZED)
  sanitized = true;
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
  sanitized = true;
#endif
#endif
  if (sanitized) warnings.push_back("filter_bench built with sanitizers");
  return warnings;
}

using sstfilter::bench::Cells;
using sstfilter::bench::ColumnNames;
using sstfilter::bench::CsvRow;
using sstfilter::bench::Fatal;

using sstfilter::bench::SplitCommas;
using sstfilter::bench::WriteCsv;
using sstfilter::tools::FormatNumber;

// `count` keys for indices [first_index, first_index + count), packed.
std::vector<char> MakeKeys(uint64_t first_index, size_t count, uint64_t seed) {
  std::vector<char> keys(count * kKeyBytes);
  for (size_t i = 0; i < count; ++i) {
    sstfilter::bench::TaggedKey(kKeyPrefix, first_index + i, seed, &keys[i * kKeyBytes]);
  }
  return keys;
}

// One requested configuration, with its policy created up front so a typo
// fails before minutes of benchmarking.
struct Config {
  std::string filter;  // as requested, e.g. "sstfilter.StandardBloom"
  std::string param;   // bits per key as typed, e.g. "10"
  std::shared_ptr<const FilterPolicy> policy;
};

std::shared_ptr<const FilterPolicy> MakePolicy(const std::string& filter, double bits_per_key) {
  sstfilter::tools::PolicyRequest request;
  request.filter = filter;
  request.bits_per_key = bits_per_key;
  request.ribbon_same_memory = FLAGS_ribbon_same_memory;
  request.ribbon_calibration_keys = std::min<uint64_t>(FLAGS_keys, 1000000);
  sstfilter::tools::MadePolicy made;
  const auto status = sstfilter::tools::MakeFilterPolicy(request, &made);
  if (!status.ok()) Fatal(status.ToString());
  return made.policy;
}

std::vector<Config> ParseConfigs() {
  // sstfilter.* is the filter kinds: name sstfilter.LevelAware to see its
  // last-level plan.
  std::vector<std::string> filters;
  if (std::string bad; !sstfilter::bench::ExpandPolicyList(FLAGS_filters, true, &filters, &bad)) {
    Fatal(bad.empty() ? "empty name in --filters='" + FLAGS_filters + "'"
                      : "filter '" + bad + "': give names only, bits per key go in --bits_per_key");
  }
  std::vector<std::pair<std::string, double>> params;
  if (std::string bad; !sstfilter::bench::ParseBitsPerKeyList(FLAGS_bits_per_key, &params, &bad)) {
    Fatal("bad value '" + bad + "' in --bits_per_key (want positive numbers)");
  }
  std::vector<Config> configs;
  for (const std::string& filter : filters) {
    for (const auto& [param, value] : params) {
      configs.push_back({filter, param, MakePolicy(filter, value)});
    }
  }
  return configs;
}

struct Result {
  std::string filter;
  std::string param;
  size_t keys = 0;
  size_t filter_bytes = 0;
  uint64_t queries = 0;     // negatives in the timed passes
  uint64_t fp_queries = 0;  // negatives behind fp_count (>= queries)
  uint64_t fp_count = 0;
  uint64_t false_negatives = 0;
  double expected_fp_rate = kNaN;
  // Who predicted expected_fp_rate: "sstfilter", "rocksdb" or "none".
  const char* predictor = "none";
  double build_ns_per_key = kNaN;
  double neg_query_ns = kNaN;
  double pos_query_ns = kNaN;
  double batch_neg_query_ns = kNaN;
  double temp_bytes_per_key = kNaN;
  double peak_rss_delta_bytes_per_key = kNaN;

  double BitsPerKey() const { return filter_bytes * 8.0 / keys; }
  // What the block cache is charged for the block read back: the
  // allocator's usable size of filter bytes + the 5-byte block trailer.
  double AllocBitsPerKey() const {
    return filter_bytes ? sstfilter::AllocatedBlockBytes(filter_bytes) * 8.0 / keys : kNaN;
  }
  double FpRate() const { return static_cast<double>(fp_count) / fp_queries; }
  // log2(1/0) is infinite, which would make the overhead a meaningless -100%.
  double OverheadPct() const {
    if (fp_count == 0 || fp_count >= fp_queries) return kNaN;
    return 100.0 * (BitsPerKey() / std::log2(1.0 / FpRate()) - 1.0);
  }
  // FP count is Binomial(queries, p) ~ Poisson for small p: sd = sqrt(mean).
  double FpZ() const {
    const double expected_count = expected_fp_rate * fp_queries;
    if (!(expected_count > 0)) return kNaN;
    return (fp_count - expected_count) / std::sqrt(expected_count);
  }
};

// Builders that know their own FP rate expose it on different classes.
// RocksDB's is documented (util/bloom_impl.h) as accurate enough only for
// user feedback: its cache-local Bloom measures ~1% above it at 10 bits/key
// and ~15% above at 20, so large fp_z there is RocksDB's model, not a bug.
void SetExpectedFpRate(sstfilter::bits::Builder* builder, size_t bytes, Result* result) {
  sstfilter::bits::FpModel model;
  const double fp_rate = builder->EstimatedFpRate(result->keys, bytes, &model);
  if (model == sstfilter::bits::FpModel::kNone) return;
  result->expected_fp_rate = fp_rate;
  result->predictor = model == sstfilter::bits::FpModel::kSstfilter ? "sstfilter" : "rocksdb";
}

// Stops the compiler from discarding query results we otherwise ignore.
volatile uint64_t g_sink = 0;

// Runs `pass` (which returns a count) --repeat times; returns the fastest
// time per op in ns and the count, which must not change between passes.
template <typename Pass>
std::pair<double, uint64_t> TimePass(const char* what, size_t ops, Pass pass) {
  double best_ns = std::numeric_limits<double>::infinity();
  uint64_t first_count = 0;
  for (int r = 0; r < FLAGS_repeat; ++r) {
    const auto start = Clock::now();
    const uint64_t count = pass();
    const std::chrono::duration<double, std::nano> elapsed = Clock::now() - start;
    g_sink = g_sink + count;
    if (r == 0) first_count = count;
    if (count != first_count) Fatal(std::string(what) + ": result changed between passes");
    best_ns = std::min(best_ns, elapsed.count() / ops);
  }
  return {best_ns, first_count};
}

uint64_t CountSingle(const sstfilter::bits::Reader& reader, const std::vector<char>& keys) {
  return reader.CountMayMatch(keys.data(), kKeyBytes, keys.size() / kKeyBytes);
}

uint64_t CountBatched(const sstfilter::bits::Reader& reader, const std::vector<char>& keys) {
  return reader.CountMayMatchBatched(keys.data(), kKeyBytes, keys.size() / kKeyBytes, FLAGS_batch);
}

// Queries negatives beyond --queries (made on the fly, 1M at a time) until
// the overhead's sampling noise is below --max_overhead_noise points.
void CountMoreFalsePositives(const sstfilter::bits::Reader& reader, Result* r) {
  if (!(FLAGS_max_overhead_noise > 0)) return;
  // Expected FP rate: the builder's prediction, else what was measured.
  double p = r->expected_fp_rate;
  if (!(p > 0) || !(p < 1)) p = std::max<double>(r->fp_count, 1) / r->fp_queries;
  const double ratio = r->BitsPerKey() / std::log2(1.0 / p);  // 1 + overhead
  const double sd_per_fp = 100.0 * ratio / std::log(1.0 / p);
  const double needed_fps = std::pow(sd_per_fp / FLAGS_max_overhead_noise, 2);
  const uint64_t target = static_cast<uint64_t>(
      std::min<double>(static_cast<double>(FLAGS_max_fp_queries), needed_fps / p));
  constexpr uint64_t kChunk = 1 << 20;
  uint64_t next_index = FLAGS_keys + FLAGS_queries;
  while (r->fp_queries < target) {
    const uint64_t count = std::min<uint64_t>(kChunk, target - r->fp_queries);
    const std::vector<char> keys = MakeKeys(next_index, count, FLAGS_seed);
    r->fp_count += CountSingle(reader, keys);
    r->fp_queries += count;
    next_index += count;
  }
}

// Builds and measures one configuration. `count_fps` adds the extra FP
// queries and the FP gate (once per configuration: later rounds only time).
// Builds the filter --repeat times: the fastest pass's time, the first
// pass's memory, the last pass's filter (in *buf, which the Slice points
// into).
Slice BuildFilter(const Config& config, const std::string& id, const std::vector<char>& positives,
                  std::unique_ptr<const char[]>* buf, Result* result) {
  ROCKSDB_NAMESPACE::BlockBasedTableOptions table_options;
  table_options.optimize_filters_for_memory = FLAGS_optimize_filters_for_memory;
  const ROCKSDB_NAMESPACE::FilterBuildingContext context(table_options);
  Slice filter;
  double best_build_ns = std::numeric_limits<double>::infinity();
  for (int r = 0; r < FLAGS_repeat; ++r) {
    sstfilter::bits::Builder builder(*config.policy, context);
    if (!builder) Fatal(id + ": policy returned no builder");
    buf->reset();
    // RSS on the first pass only: returning freed memory to the OS makes the
    // pass page-fault its memory in, which the fastest-of time should not
    // include.
    int64_t rss_before = -1;
    if (r == 0) {
      sstfilter_bench::ReleaseFreeHeap();
      rss_before = sstfilter_bench::ResidentBytes();
      if (!sstfilter_bench::ResetPeakResident()) rss_before = -1;
    }
    const int64_t heap_before = sstfilter_bench::HeapBytes();
    sstfilter_bench::ResetHeapPeak(heap_before);
    const auto start = Clock::now();
    builder.AddKeys(positives.data(), kKeyBytes, result->keys);
    filter = builder.Finish(buf);
    const std::chrono::duration<double, std::nano> elapsed = Clock::now() - start;
    // The finished filter's own allocation is not temporary.
    const int64_t temp = sstfilter_bench::HeapPeak() - heap_before -
                         static_cast<int64_t>(malloc_usable_size(const_cast<char*>(buf->get())));
    result->temp_bytes_per_key = static_cast<double>(temp) / result->keys;
    if (const int64_t rss_peak = sstfilter_bench::PeakResidentBytes();
        rss_before >= 0 && rss_peak >= 0) {
      result->peak_rss_delta_bytes_per_key =
          static_cast<double>(rss_peak - rss_before) / result->keys;
    }
    best_build_ns = std::min(best_build_ns, elapsed.count() / result->keys);
    SetExpectedFpRate(&builder, filter.size(), result);
  }
  result->build_ns_per_key = best_build_ns;
  result->filter_bytes = filter.size();
  return filter;
}

// Times every query pass. Correctness first: the positive passes (single
// and batched) double as the false-negative check, the first negative pass
// as the FP measurement; the batched one must agree with it.
void QueryFilter(const sstfilter::bits::Reader& reader, const std::string& id,
                 const std::vector<char>& positives, const std::vector<char>& negatives,
                 bool count_fps, Result* result) {
  std::fprintf(stderr, "[filter_bench] querying %s ...\n", id.c_str());
  auto [pos_ns, pos_hits] =
      TimePass("positive queries", result->keys, [&] { return CountSingle(reader, positives); });
  const uint64_t batch_pos_hits = CountBatched(reader, positives);
  result->pos_query_ns = pos_ns;
  result->false_negatives = result->keys - std::min(pos_hits, batch_pos_hits);
  if (result->false_negatives > 0) {
    std::fprintf(stderr,
                 "[filter_bench] !!!!! FALSE NEGATIVES: %s lost %llu of %zu keys "
                 "(single %llu, batched %llu) !!!!!\n",
                 id.c_str(), static_cast<unsigned long long>(result->false_negatives),
                 result->keys, static_cast<unsigned long long>(result->keys - pos_hits),
                 static_cast<unsigned long long>(result->keys - batch_pos_hits));
  }
  auto [neg_ns, fp_count] = TimePass("negative queries", result->queries,
                                     [&] { return CountSingle(reader, negatives); });
  result->neg_query_ns = neg_ns;
  result->fp_count = fp_count;
  result->fp_queries = result->queries;
  if (count_fps) CountMoreFalsePositives(reader, result);
  auto [batch_ns, batch_fp_count] = TimePass(
      "batched negative queries", result->queries,
      [&] { return CountBatched(reader, negatives); });
  result->batch_neg_query_ns = batch_ns;
  if (batch_fp_count != fp_count) {
    // Same keys, same filter: the two paths must give the same answers.
    Fatal(id + ": batched MayMatch found " + std::to_string(batch_fp_count) +
          " false positives, single MayMatch " + std::to_string(fp_count));
  }
  if (count_fps && FLAGS_max_fp_z > 0 && result->FpZ() > FLAGS_max_fp_z) {
    std::fprintf(stderr,
                 "[filter_bench] WARNING: %s FP rate %.4g is %.1f sd above the "
                 "predicted %.4g (%s's prediction)\n",
                 id.c_str(), result->FpRate(), result->FpZ(), result->expected_fp_rate,
                 result->predictor);
  }
}

Result RunOne(const Config& config, const std::vector<char>& positives,
              const std::vector<char>& negatives, bool count_fps) {
  const std::string id = config.filter + ":" + config.param;
  Result result;
  result.filter = config.filter;
  result.param = config.param;
  result.keys = positives.size() / kKeyBytes;
  result.queries = negatives.size() / kKeyBytes;

  std::fprintf(stderr, "[filter_bench] building %s ...\n", id.c_str());
  std::unique_ptr<const char[]> buf;
  const Slice filter = BuildFilter(config, id, positives, &buf, &result);
  // The reader points into `buf`, which outlives it.
  const sstfilter::bits::Reader reader(*config.policy, filter);
  if (!reader) Fatal(id + ": policy returned no reader");
  QueryFilter(reader, id, positives, negatives, count_fps, &result);
  return result;
}

// One place defines the columns, so the table and the CSV cannot drift.
// The first 12 are the stable CSV interface; extras go after them.
CsvRow Columns(const Result& r) {
  return {
      {"filter", r.filter},
      {"param", r.param},
      {"keys", std::to_string(r.keys)},
      {"bits_per_key", FormatNumber(r.BitsPerKey(), "%.3f")},
      {"fp_rate", FormatNumber(r.FpRate(), "%.5g")},
      {"expected_fp_rate", FormatNumber(r.expected_fp_rate, "%.5g")},
      {"overhead_pct", FormatNumber(r.OverheadPct(), "%.1f")},
      {"build_ns_per_key", FormatNumber(r.build_ns_per_key, "%.1f")},
      {"neg_query_ns", FormatNumber(r.neg_query_ns, "%.1f")},
      {"pos_query_ns", FormatNumber(r.pos_query_ns, "%.1f")},
      {"batch_neg_query_ns", FormatNumber(r.batch_neg_query_ns, "%.1f")},
      {"false_negatives", std::to_string(r.false_negatives)},
      {"fp_z", FormatNumber(r.FpZ(), "%.2f")},
      {"fp_count", std::to_string(r.fp_count)},
      {"queries", std::to_string(r.queries)},
      {"filter_bytes", std::to_string(r.filter_bytes)},
      {"predictor", r.predictor},
      {"fp_queries", std::to_string(r.fp_queries)},
      {"temp_bytes_per_key", FormatNumber(r.temp_bytes_per_key, "%.2f")},
      {"peak_rss_delta_bytes_per_key", FormatNumber(r.peak_rss_delta_bytes_per_key, "%.2f")},
      {"alloc_bits_per_key", FormatNumber(r.AllocBitsPerKey(), "%.3f")},
  };
}

void PrintTable(const std::vector<Result>& results,
                const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) std::printf("# WARNING: %s\n", w.c_str());
  std::printf("# allocator=%s optimize_filters_for_memory=%d\n", sstfilter::bench::AllocatorName(),
              FLAGS_optimize_filters_for_memory ? 1 : 0);
  std::printf("# keys=%llu queries=%llu batch=%d repeat=%d rounds=%d seed=%llu%s build=%s\n",
              static_cast<unsigned long long>(FLAGS_keys),
              static_cast<unsigned long long>(FLAGS_queries), FLAGS_batch,
              FLAGS_repeat, FLAGS_rounds, static_cast<unsigned long long>(FLAGS_seed),
              FLAGS_ribbon_same_memory ? " ribbon_same_memory" : "",
#ifdef SSTFILTER_BENCH_BUILD_TYPE
              SSTFILTER_BENCH_BUILD_TYPE
#else
              "?"
#endif
  );
  std::vector<CsvRow> rows;
  for (const Result& r : results) rows.push_back(Columns(r));
  const auto& header = Columns(Result{});
  std::vector<size_t> widths;
  for (const auto& column : header) widths.push_back(column.first.size());
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].second.size());
  }
  // Filter name left-aligned, numbers right-aligned.
  auto print_cell = [&](size_t c, const std::string& text) {
    std::printf(c == 0 ? "%-*s" : "  %*s", static_cast<int>(widths[c]), text.c_str());
  };
  for (size_t c = 0; c < header.size(); ++c) print_cell(c, header[c].first);
  std::printf("\n");
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) print_cell(c, row[c].second);
    std::printf("\n");
  }
}

void WriteCsvFile(const std::string& path, const std::vector<Result>& results) {
  std::vector<std::vector<std::string>> rows;
  for (const Result& r : results) rows.push_back(Cells(Columns(r)));
  if (!WriteCsv(path, ColumnNames(Columns(Result{})), rows)) {
    Fatal("cannot write --csv file '" + path + "'");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage =
      "Builds and queries RocksDB filter policies (sstfilter and built-in) "
      "and reports size, FP rate and speed.";
  sstfilter::bench::StartBenchmark(&argc, &argv, "filter_bench", usage, __FILE__, FLAGS_allocator);
  if (FLAGS_keys == 0 || FLAGS_queries == 0) Fatal("--keys and --queries must be positive");
  if (FLAGS_batch < 1 || FLAGS_batch > kMaxBatch) Fatal("--batch must be in 1..32");
  if (FLAGS_repeat < 1) Fatal("--repeat must be at least 1");
  if (FLAGS_rounds < 1) Fatal("--rounds must be at least 1");

  const auto wall_start = Clock::now();
  const std::vector<std::string> warnings = BuildWarnings();
  for (const std::string& w : warnings) {
    std::fprintf(stderr, "[filter_bench] WARNING: %s; timings are not representative\n",
                 w.c_str());
  }
  const std::vector<Config> configs = ParseConfigs();

  std::fprintf(stderr, "[filter_bench] generating %llu + %llu keys ...\n",
               static_cast<unsigned long long>(FLAGS_keys),
               static_cast<unsigned long long>(FLAGS_queries));
  const std::vector<char> positives = MakeKeys(0, FLAGS_keys, FLAGS_seed);
  const std::vector<char> negatives = MakeKeys(FLAGS_keys, FLAGS_queries, FLAGS_seed);

  // Rounds interleave the configurations in time, so a burst of other load
  // on the machine slows one round of each rather than every pass of one
  // filter; each time is the fastest over all rounds and repeats.
  std::vector<Result> results;
  for (int round = 0; round < FLAGS_rounds; ++round) {
    if (FLAGS_rounds > 1) {
      std::fprintf(stderr, "[filter_bench] round %d of %d\n", round + 1, FLAGS_rounds);
    }
    for (size_t c = 0; c < configs.size(); ++c) {
      const Result r = RunOne(configs[c], positives, negatives, round == 0);
      if (round == 0) {
        results.push_back(r);
        continue;
      }
      Result& best = results[c];
      best.build_ns_per_key = std::min(best.build_ns_per_key, r.build_ns_per_key);
      best.pos_query_ns = std::min(best.pos_query_ns, r.pos_query_ns);
      best.neg_query_ns = std::min(best.neg_query_ns, r.neg_query_ns);
      best.batch_neg_query_ns = std::min(best.batch_neg_query_ns, r.batch_neg_query_ns);
      best.false_negatives = std::max(best.false_negatives, r.false_negatives);
    }
  }

  PrintTable(results, warnings);
  if (!FLAGS_csv.empty()) WriteCsvFile(FLAGS_csv, results);

  const std::chrono::duration<double> wall = Clock::now() - wall_start;
  std::fprintf(stderr, "[filter_bench] done: %zu runs in %.1f s, process peak RSS %.0f MiB\n",
               results.size(), wall.count(),
               static_cast<double>(sstfilter_bench::ProcessPeakResidentBytes()) / (1 << 20));
  bool any_false_negative = false;
  for (const Result& r : results) {
    if (r.false_negatives > 0) {
      any_false_negative = true;
      std::fprintf(stderr, "[filter_bench] !!!!! FAILED: %s:%s has %llu false negatives\n",
                   r.filter.c_str(), r.param.c_str(),
                   static_cast<unsigned long long>(r.false_negatives));
    }
  }
  return any_false_negative ? 1 : 0;
}
