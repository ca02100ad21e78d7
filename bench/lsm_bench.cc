// lsm_bench: wasted reads per miss in a real multi-level LSM, sstfilter
// policies beside RocksDB's built-ins, every one given the same filter memory.
//
// For every --policies name × --bits_per_key budget it builds a database
// through RocksDB's normal write path (memtable flushes, leveled compaction)
// from the same deterministic key stream, then, on the reopened database:
//   - checks the filter policy named by every SST file (table property
//     rocksdb.filter.policy) against the policy requested, and measures the
//     actual filter memory, filter bytes × 8 / filter entries over all files.
//     A wrong policy is fatal: no numbers are ever reported under a filter's
//     name for a database that ran without it (the README's "trap").
//   - looks up --misses absent keys, spread uniformly over the key space so
//     they fall inside the SST files' key ranges, with Get and MultiGet, and
//     counts wasted reads per miss = false positives / absent lookups
//     (statistics: full.positive − full.true.positive), the FP rate, the FP
//     rate per level (per-level perf context) and, as a cross-check, the data
//     blocks actually read (perf context block_read_count, see lsm_stats.h).
//   - looks up --hits present keys with Get and MultiGet: every one must be
//     found with its value, else the exit status is non-zero.
//
// Shape of the default run: 500k keys of 16 bytes with 32-byte values, no
// compression (~30 MB of SST data); a flush every 2000 keys (~120 KB L0
// files), L0 trigger 4, max_bytes_for_level_base 128 KiB, multiplier 10,
// dynamic level sizing (level_compaction_dynamic_level_bytes, RocksDB's
// default since 8.4), files of 64 KiB in the base level doubling per level
// below the next. Compaction is deterministic (lsm_compactor.h), so every
// policy gets the same LSM, file for file: L0/L3/L4/L5/L6 hold 2/1/3/22/101
// files and 0.8/0.2/0.7/8.7/89.5% of the keys, and an absent key consults
// 4.4 of them (2 in L0, 0.15 in L3, 0.37 in L4, 0.91 in L5, 1 in L6: the
// upper levels' few files do not cover the whole key space).
// --dynamic_level_bytes=false gives the static shape of RocksDB 7.8's
// default, 2/1/10/52/56 files in L0..L4 with the keys split ~45/50 between
// L3 and L4 (4.6 files per absent key). The last --l0_tail_flushes
// memtables are flushed with no compaction after them, so L0 holds files
// too, as it usually does in a database taking writes.
//
// rocksdb.Ribbon's setting is "Bloom-equivalent" (10 gives ~7 actual bits
// per key), so it is calibrated by bisection over trial filters
// (lsm_policies.h): 14.6 for 10 actual bits per key. It is built with
// bloom_before_level=-1 (Ribbon in every file): RocksDB's default writes
// Bloom filters for flushes, at a different memory per key than the budget.
//
//   ./build/bench/lsm_bench --bits_per_key=10 --csv=out/lsm_bench.csv
//       --plot=out/lsm_bench.png   (one command line)
#include <gflags/gflags.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/listener.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "include/sstfilter/sstfilter.h"
#include "plugin/rocksdb/api_compat.h"
#include "bench/allocator.h"
#include "bench/db_util.h"
#include "bench/flag_help.h"
#include "bench/lsm_bound.h"
#include "bench/lsm_calibrate.h"
#include "bench/lsm_compactor.h"
#include "bench/keys.h"
#include "bench/lsm_lookups.h"
#include "bench/lsm_policies.h"
#include "bench/lsm_rewrite.h"
#include "bench/lsm_report.h"
#include "bench/lsm_stats.h"
#include "plugin/core/block_allocation.h"
#include "plugin/rocksdb/shape_listener.h"
#include "plugin/tools/text_output.h"

DEFINE_string(policies, "none,rocksdb.Bloom,rocksdb.Ribbon,sstfilter.*",
              "Comma-separated policies: none (no filter), rocksdb.Bloom "
              "(NewBloomFilterPolicy), rocksdb.Ribbon (NewRibbonFilterPolicy, "
              "calibrated to the budget), 'sstfilter.*' (every registered "
              "sstfilter policy), or any id N created as 'N:<bits_per_key>'; "
              "'N/opt=v/opt2=w' adds policy options, e.g. "
              "sstfilter.LevelAware/bottommost_bits_per_key=0.");
DEFINE_string(switch_to, "",
              "Look up through this policy (same budget) instead of the writer's: "
              "right after a switch, then after each of --rewrite_steps.");
DEFINE_string(rewrite_steps, "25,50,100",
              "With --switch_to: % of every level's files rewritten with the new "
              "policy before each further lookup (rows A->B@P%).");
DEFINE_string(allocator, "system",
              "jemalloc: re-run with Debian's libjemalloc2 preloaded (RocksDB's "
              "production allocator); system: the C library's malloc.");
DEFINE_string(optimize_filters_for_memory, "auto",
              "BlockBasedTableOptions::optimize_filters_for_memory of every "
              "policy: true, false, or auto (true under jemalloc).");
DEFINE_string(bits_per_key, "6,10,16",
              "Comma-separated budgets, bits per key (allocated under jemalloc: "
              "every policy is calibrated to it); one database per policy and budget.");
DEFINE_uint64(keys, 500000, "Keys written to each database.");
DEFINE_int32(value_bytes, 32, "Bytes per value (keys are 16 bytes).");
DEFINE_uint64(misses, 200000, "Absent keys looked up, with Get and again with MultiGet.");
DEFINE_uint64(hits, 50000, "Present keys looked up, with Get and again with MultiGet.");
DEFINE_int32(multiget_batch, 32, "Keys per MultiGet call.");
DEFINE_uint64(keys_per_flush, 2000,
              "Keys per memtable: the load flushes after every this many keys "
              "(~120 KB L0 files by default) and lets compactions finish.");
DEFINE_uint64(target_file_bytes, 64 << 10,
              "SST file size in L1, or in the base level with dynamic level "
              "sizing (target_file_size_base).");
DEFINE_int32(target_file_multiplier, 2, "target_file_size_multiplier: file size growth per level.");
DEFINE_uint64(level_base_bytes, 128 << 10,
              "max_bytes_for_level_base: L1's target, or with dynamic level "
              "sizing the most the base level may hold.");
DEFINE_int32(l0_trigger, 4, "level0_file_num_compaction_trigger.");
DEFINE_double(level_multiplier, 10, "max_bytes_for_level_multiplier (T).");
DEFINE_bool(dynamic_level_bytes, true,
            "level_compaction_dynamic_level_bytes (RocksDB's default since "
            "8.4): level targets from the last level up, so the last level "
            "holds ~(T-1)/T of the data. false: static targets from L1 down "
            "(RocksDB 7.8's default), the last level only partly full.");
DEFINE_string(compaction, "deterministic",
              "deterministic: leveled, from data bytes only (lsm_compactor.h), "
              "the same LSM for every policy; rocksdb: RocksDB's leveled "
              "picker (shapes vary a little); universal: RocksDB's universal.");
DEFINE_int32(l0_tail_flushes, 2,
              "Memtables written last with automatic compaction paused, so "
              "that L0 holds files when the lookups run.");
DEFINE_uint64(block_cache_bytes, 0,
              "Block cache for data blocks; 0: none (every data block is read).");
DEFINE_int32(ribbon_bloom_before_level, -1,
             "bloom_before_level for rocksdb.Ribbon; -1: Ribbon in every file.");
DEFINE_string(db_dir, "",
              "Parent directory for the databases (default: a fresh one under /tmp).");
DEFINE_bool(keep_db, false,
            "Keep the databases (for sst_dump); else each is deleted after its run.");
DEFINE_bool(ribbon_bound, false,
            "Also print bound.Ribbon: Ribbon filters with no overhead (computed).");
DEFINE_string(csv, "", "If set, also write the results as CSV to this file.");
DEFINE_string(plot, "", "If set, plot wasted reads per miss (gnuplot) to this PNG.");
DEFINE_uint64(seed, 0, "Seed for the key stream; same seed, same keys.");
DEFINE_bool(list_policies, false,
            "Print 'policy budget setting' per policy and budget (setting: the "
            "built-in's number or the sstfilter id) and exit.");

namespace sstfilter::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using Clock = std::chrono::steady_clock;

std::string g_root;  // directory this run created, removed at exit
bool g_created_root = false;

void RemoveRoot() {
  if (g_created_root && !FLAGS_keep_db) {
    std::error_code ignored;
    std::filesystem::remove_all(g_root, ignored);
  }
}


std::string Key(uint64_t i) { return LsmKey(i, FLAGS_seed); }
std::string Value(uint64_t i) { return LsmValue(i, FLAGS_value_bytes); }

// RocksDB's default since 9.2 where it matters (jemalloc), else off, as
// in RocksDB 7.8 (unless --optimize_filters_for_memory says otherwise).
bool OptimizeFiltersForMemory() {
  if (FLAGS_optimize_filters_for_memory == "auto") return sstfilter::bench::RunningOnJemalloc();
  return FLAGS_optimize_filters_for_memory == "true";
}

PolicySpec MakeSpec(const std::string& policy, const std::string& param, double budget) {
  // The trial filter for rocksdb.Ribbon's calibration holds the keys of a
  // 256 KiB file (target_file * multiplier^2): the last level's files in
  // the default (dynamic) shape, L3's in the static one, where most keys
  // are; Ribbon's overhead per key shrinks as filters grow. Entry: 16-byte
  // key + 8-byte sequence/type + value + ~3 bytes of lengths.
  const uint64_t l3_file_bytes =
      FLAGS_target_file_bytes * FLAGS_target_file_multiplier * FLAGS_target_file_multiplier;
  const RibbonCalibration ribbon{l3_file_bytes / (16 + 8 + FLAGS_value_bytes + 3),
                                 FLAGS_ribbon_bloom_before_level};
  PolicySpec spec;
  std::string error;
  if (!MakePolicySpec(policy, param, budget, ribbon, &spec, &error)) Fatal(error);
  return spec;
}

std::vector<PolicySpec> ParseSpecs() {
  std::vector<std::string> policies;
  if (std::string bad; !ExpandPolicyList(FLAGS_policies, false, &policies, &bad)) {
    Fatal("bad policy '" + bad + "' in --policies (names only; budgets go in --bits_per_key)");
  }
  std::vector<std::pair<std::string, double>> budgets;
  if (std::string bad; !ParseBitsPerKeyList(FLAGS_bits_per_key, &budgets, &bad)) {
    Fatal("bad value '" + bad + "' in --bits_per_key (want positive numbers)");
  }
  std::vector<PolicySpec> specs;
  for (const std::string& policy : policies) {
    for (const auto& [param, budget] : budgets) {
      specs.push_back(MakeSpec(policy, param, budget));
      if (policy == "none") break;  // the budget means nothing without a filter
    }
  }
  return specs;
}

rdb::Options DbOptions(const PolicySpec& spec) {
  rdb::Options options;
  options.create_if_missing = true;
  options.error_if_exists = true;
  options.compression = rdb::kNoCompression;  // sizes as planned; reads cost no inflate
  // Large enough never to fill: the load flushes by key count (LoadKeys).
  options.write_buffer_size = std::max<uint64_t>(
      4 << 20, 2 * FLAGS_keys_per_flush * (16 + FLAGS_value_bytes + 64));
  options.target_file_size_base = FLAGS_target_file_bytes;
  options.target_file_size_multiplier = FLAGS_target_file_multiplier;
  options.max_bytes_for_level_base = FLAGS_level_base_bytes;
  options.max_bytes_for_level_multiplier = FLAGS_level_multiplier;
  options.level0_file_num_compaction_trigger = FLAGS_l0_trigger;
  options.level_compaction_dynamic_level_bytes = FLAGS_dynamic_level_bytes;
  options.disable_auto_compactions = FLAGS_compaction == "deterministic";
  if (FLAGS_compaction == "universal") options.compaction_style = rdb::kCompactionStyleUniversal;
  options.max_background_jobs = 2;  // the machine's cores
  options.max_open_files = -1;      // every table reader opened at DB::Open, at its level
  options.statistics = rdb::CreateDBStatistics();
  // sstfilter.LevelAware plans for the shape this listener sees; the other
  // policies ignore it.
  options.listeners.push_back(std::make_shared<sstfilter::ShapeListener>());
  rdb::BlockBasedTableOptions table;
  table.filter_policy = spec.filter_policy;
  table.cache_index_and_filter_blocks = false;  // held by the table readers
  table.optimize_filters_for_memory = OptimizeFiltersForMemory();
  if (FLAGS_block_cache_bytes == 0) {
    table.no_block_cache = true;
  } else {
    table.block_cache = rdb::NewLRUCache(FLAGS_block_cache_bytes);
  }
  options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
  return options;
}

std::string FilesPerLevel(rdb::DB* db) {
  std::string shape;
  for (int level = 0; level < kMaxLevels; ++level) {
    std::string files;
    db->GetProperty("rocksdb.num-files-at-level" + std::to_string(level), &files);
    shape += (level ? "/" : "") + files;
  }
  return shape;
}

// Writes keys [begin, end), flushes after every --keys_per_flush keys and,
// if `compactor` is set, runs the compactions that flush calls for;
// otherwise waits for whatever RocksDB runs by itself. Flushing by key count
// and never writing while a compaction runs makes the LSM independent of
// thread timing. (Letting memtables fill and compactions run behind the
// writes gave 3.8 to 4.6 files per miss for four policies in one run.)
void LoadKeys(rdb::DB* db, const std::string& label, uint64_t begin, uint64_t end,
              LeveledCompactor* compactor, Clock::time_point start) {
  rdb::WriteOptions write_options;
  write_options.disableWAL = true;  // the WAL plays no part in SST files or filters
  constexpr uint64_t kBatch = 64;
  const uint64_t step = std::max<uint64_t>(FLAGS_keys / 10, 1);
  rdb::WriteBatch batch;
  for (uint64_t i = begin; i < end; ++i) {
    batch.Put(Key(i), Value(i));
    const bool flush = (i + 1 - begin) % FLAGS_keys_per_flush == 0 || i + 1 == end;
    if (batch.Count() == kBatch || flush) {
      Check(db->Write(write_options, &batch), "write");
      batch.Clear();
    }
    if (flush) {
      Check(db->Flush(rdb::FlushOptions()), "flush");
      if (compactor != nullptr) {
        int compactions = 0;
        Check(compactor->CompactUntilSettled(db, &compactions), "compaction");
      } else {
        WaitForBackgroundWork(db, /*include_pending_compactions=*/false);
      }
    }
    if ((i + 1) % step == 0) {
      std::fprintf(stderr, "[lsm_bench] %s: %3.0f%% loaded, %.1f s, files per level %s\n",
                   label.c_str(), 100.0 * (i + 1) / FLAGS_keys, Seconds(start),
                   FilesPerLevel(db).c_str());
    }
  }
}

std::unique_ptr<rdb::DB> Open(const rdb::Options& options, const std::string& dir) {
  std::unique_ptr<rdb::DB> db;
  Check(sstfilter::compat::OpenDB(options, dir, &db), "open " + dir);
  return db;
}

// Records the files that flushes and RocksDB's own compactions write
// (lsm_bench's compactor records its outputs itself: DB::CompactFiles
// notifies no listener).
class BuiltFileRecorder : public rdb::EventListener {
 public:
  explicit BuiltFileRecorder(std::vector<BuiltFile>* files) : files_(files) {}
  void OnFlushCompleted(rdb::DB*, const rdb::FlushJobInfo& info) override {
    std::lock_guard<std::mutex> lock(mu_);
    files_->push_back({info.file_number, 0, info.table_properties.num_entries});
  }
  void OnCompactionCompleted(rdb::DB*, const rdb::CompactionJobInfo& info) override {
    std::lock_guard<std::mutex> lock(mu_);
    AppendOutputs(info, files_);
  }

 private:
  std::mutex mu_;
  std::vector<BuiltFile>* files_;
};

// Builds the database through the normal write path; returns it closed.
// With `built` set, appends every SST file the build wrote (unordered).
double Build(const PolicySpec& spec, const std::string& label, const std::string& dir,
             std::vector<BuiltFile>* built = nullptr) {
  const auto start = Clock::now();
  rdb::Options options = DbOptions(spec);
  if (built != nullptr) options.listeners.push_back(std::make_shared<BuiltFileRecorder>(built));
  std::unique_ptr<rdb::DB> db = Open(options, dir);
  const uint64_t tail = FLAGS_l0_tail_flushes * FLAGS_keys_per_flush;
  LeveledCompactor compactor({FLAGS_l0_trigger, FLAGS_level_base_bytes, FLAGS_level_multiplier,
                              FLAGS_target_file_bytes, FLAGS_target_file_multiplier,
                              FLAGS_dynamic_level_bytes},
                             built);
  const bool rocksdb_picks = FLAGS_compaction != "deterministic";
  LoadKeys(db.get(), label, 0, FLAGS_keys - tail, rocksdb_picks ? nullptr : &compactor, start);
  if (rocksdb_picks) {
    // Universal compaction can report a compaction pending that its picker
    // then declines (size amplification within bounds): wait for the work
    // it runs, not for that flag.
    WaitForBackgroundWork(db.get(), /*include_pending_compactions=*/FLAGS_compaction != "universal");
    Check(db->SetOptions({{"disable_auto_compactions", "true"}}), "pause compactions");
  }
  // The tail: flushes with no compaction after them, so L0 holds files.
  LoadKeys(db.get(), label, FLAGS_keys - tail, FLAGS_keys, nullptr, start);
  std::fprintf(stderr, "[lsm_bench] %s: built in %.1f s, files per level %s\n", label.c_str(),
               Seconds(start), FilesPerLevel(db.get()).c_str());
  Check(db->Close(), "close");
  return Seconds(start);
}

// Under jemalloc the budget counts allocated bits per key, and no policy's
// setting gives that directly: optimize_filters_for_memory picks each
// filter's length for the size classes, with an FP balance over filters that
// spends a little more memory than the setting (more for 64-byte-line
// filters). So every policy is calibrated on trial filters of exactly the
// SST files the database will be built with: the LSM is deterministic, so
// one build without a filter gives every file's level and key count, in
// the order they are written. The trial builds them all, the files later
// compactions replace included, because they take turns of the policy's
// rounding balance as they do in the real build (trial filters of the
// final files alone missed the budget by up to 1.1% in the real build).
std::vector<ProbedFile> ProbeFiles(const std::string& dir) {
  PolicySpec none;
  none.policy = "none";
  std::vector<BuiltFile> built;
  Build(none, "probe (no filter)", dir, &built);
  rdb::Options options = DbOptions(none);
  options.create_if_missing = false;
  options.error_if_exists = false;
  options.disable_auto_compactions = true;  // the files stay as listed below
  std::unique_ptr<rdb::DB> db = Open(options, dir);
  std::vector<rdb::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  std::map<uint64_t, int> live_level;  // file number -> its level now
  for (const auto& f : live) live_level[f.file_number] = f.level;
  // A trivial move (RocksDB's own picker) reports a moved file again, with
  // its number: it builds no filter, so the first report stands.
  std::stable_sort(built.begin(), built.end(),
                   [](const BuiltFile& a, const BuiltFile& b) { return a.number < b.number; });
  const auto same_file = [](const BuiltFile& a, const BuiltFile& b) { return a.number == b.number; };
  built.erase(std::unique(built.begin(), built.end(), same_file), built.end());
  std::vector<ProbedFile> files;
  std::map<uint64_t, size_t> live_index;  // file number -> files[i]
  for (const BuiltFile& f : built) {
    const auto it = live_level.find(f.number);
    const bool is_live = it != live_level.end();
    if (is_live) live_index[f.number] = files.size();
    files.push_back({f.level, f.keys, is_live, is_live ? it->second : f.level, 0});
  }
  if (live_index.size() != live.size()) {
    Fatal("the probe build recorded " + std::to_string(live_index.size()) + " of its " +
          std::to_string(live.size()) + " live files");
  }
  // The files each absent key of RunLookups consults.
  const FileRanges ranges(db.get());
  std::vector<uint64_t> numbers;
  for (uint64_t j = 0; j < FLAGS_misses; ++j) {
    numbers.clear();
    ranges.FileNumbersFor(Key(FLAGS_keys + j), &numbers);
    for (const uint64_t number : numbers) files[live_index.at(number)].checks++;
  }
  Check(db->Close(), "close");
  db.reset();
  Check(rdb::DestroyDB(dir, options), "destroy " + dir);
  return files;
}

// Trial filters of lsm_bench's own keys (see lsm_calibrate.h).
TrialFilters Trial() { return {Key, OptimizeFiltersForMemory(), kMaxLevels}; }

// The lookups every run makes (lsm_lookups.h).
LookupPlan Plan() {
  return {FLAGS_keys, FLAGS_misses, FLAGS_hits, FLAGS_multiget_batch, Key, Value};
}

PolicySpec CalibrateToAllocated(const PolicySpec& spec, const std::vector<ProbedFile>& files) {
  return sstfilter::bench::CalibrateToAllocated(
      spec, files, Trial(),
      [&](double setting) { return MakeSpec(spec.policy, spec.param, setting); }, "lsm_bench");
}

std::vector<RunResult> RunOne(const PolicySpec& spec, const std::string& dir) {
  RunResult r;
  r.policy = spec.policy;
  r.budget_bits_per_key = spec.budget;
  r.setting = spec.setting;
  r.has_filter = spec.filter_policy != nullptr;
  r.some_unfiltered = spec.some_unfiltered;
  r.block_cache = FLAGS_block_cache_bytes > 0;
  r.alloc_budget = sstfilter::bench::RunningOnJemalloc();
  const std::string label = spec.policy + (r.has_filter ? " @" + spec.param : "");
  r.load_seconds = Build(spec, label, dir);

  // Reopened, so every table reader knows its level (per-level counters) and
  // nothing of the load is cached; compactions stay off to keep the shape.
  // With --switch_to, reopened with that policy instead: the files keep the
  // filters `spec` wrote, as right after a user switches policies.
  const bool switching = !FLAGS_switch_to.empty() && r.has_filter;
  PolicySpec reader_spec = spec;
  if (switching) {
    reader_spec = MakeSpec(FLAGS_switch_to, spec.param, spec.budget);
    r.policy = spec.policy + "->" + FLAGS_switch_to;
  }
  rdb::Options options = DbOptions(reader_spec);
  options.create_if_missing = false;
  options.error_if_exists = false;
  options.disable_auto_compactions = true;
  std::unique_ptr<rdb::DB> db = Open(options, dir);
  // The rewrites below use DB::CompactFiles only: a LevelAware reader
  // policy plans them for this shape, not uniformly.
  if (switching) Check(ObserveLsmShape(db.get()), "observe the shape");

  std::vector<RunResult> results;
  results.push_back(r);
  MeasureLookups(db.get(), options, Plan(), label, {spec.expected_name}, spec.some_unfiltered,
                 &results.back());
  if (switching) {
    // Then as compaction rewrites the files with the new policy's filters.
    const FilesByLevel original = LiveFiles(db.get());
    std::vector<size_t> done(kMaxLevels, 0);
    for (double percent : ParseRewriteSteps(FLAGS_rewrite_steps)) {
      RewriteFiles(db.get(), original, percent, &done);
      results.push_back(r);
      results.back().policy = r.policy + "@" + tools::FormatNumber(percent, "%g") + "%";
      MeasureLookups(db.get(), options, Plan(), label + " " + results.back().policy,
                     {spec.expected_name, reader_spec.expected_name},
                     spec.some_unfiltered || reader_spec.some_unfiltered, &results.back());
    }
  }
  Check(db->Close(), "close");
  db.reset();
  if (!FLAGS_keep_db) Check(rdb::DestroyDB(dir, options), "destroy " + dir);
  return results;
}

std::string HeaderComment() {
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "# keys=%llu value_bytes=%d misses=%llu hits=%llu keys_per_flush=%llu "
                "target_file=%llu*%d^(L-1) level_base=%llu T=%g l0_trigger=%d dynamic_level_bytes=%d compaction=%s block_cache=%llu seed=%llu "
                "build=%s\n",
                static_cast<unsigned long long>(FLAGS_keys), FLAGS_value_bytes,
                static_cast<unsigned long long>(FLAGS_misses),
                static_cast<unsigned long long>(FLAGS_hits),
                static_cast<unsigned long long>(FLAGS_keys_per_flush),
                static_cast<unsigned long long>(FLAGS_target_file_bytes), FLAGS_target_file_multiplier,
                static_cast<unsigned long long>(FLAGS_level_base_bytes), FLAGS_level_multiplier,
                FLAGS_l0_trigger,
                FLAGS_dynamic_level_bytes ? 1 : 0, FLAGS_compaction.c_str(),
                static_cast<unsigned long long>(FLAGS_block_cache_bytes),
                static_cast<unsigned long long>(FLAGS_seed),
#ifdef SSTFILTER_BENCH_BUILD_TYPE
                SSTFILTER_BENCH_BUILD_TYPE
#else
                "?"
#endif
  );
  std::string comment = buf;
  comment += std::string("# allocator=") + sstfilter::bench::AllocatorName() +
             " optimize_filters_for_memory=" + (OptimizeFiltersForMemory() ? "1" : "0") +
             " budget=" + (sstfilter::bench::RunningOnJemalloc() ? "allocated" : "filter") +
             "_bits_per_key\n";
#if !defined(__OPTIMIZE__)
  comment += "# WARNING: lsm_bench compiled WITHOUT optimisation; latencies are not representative\n";
#endif
  return comment;
}

// Refuses bad flags with a message before any database is built.
void CheckFlags() {
  if (FLAGS_keys == 0 || FLAGS_keys >= (1ULL << 62)) Fatal("--keys must be positive");
  if (FLAGS_value_bytes < 0 || FLAGS_multiget_batch < 1) Fatal("bad --value_bytes or --multiget_batch");
  if (!(FLAGS_level_multiplier > 1 && FLAGS_level_multiplier <= 1000)) {
    Fatal("--level_multiplier must be in (1, 1000]");
  }
  if (FLAGS_compaction != "deterministic" && FLAGS_compaction != "rocksdb" &&
      FLAGS_compaction != "universal") {
    Fatal("--compaction must be deterministic, rocksdb or universal");
  }
  if (FLAGS_keys_per_flush == 0 || FLAGS_l0_tail_flushes < 0 ||
      FLAGS_keys_per_flush * FLAGS_l0_tail_flushes > FLAGS_keys) {
    Fatal("need --keys_per_flush > 0 and --l0_tail_flushes × --keys_per_flush <= --keys");
  }
  if (!FLAGS_csv.empty() && FLAGS_csv == FLAGS_plot) {
    Fatal("--csv and --plot name the same file");
  }
  if (!FLAGS_plot.empty() && FLAGS_csv.empty()) Fatal("--plot needs --csv (it plots the CSV)");
}

// Status 1 if any run lost a present key; warns about budgets missed.
int CheckResults(const std::vector<RunResult>& results) {
  int status = 0;
  for (const RunResult& r : results) {
    if (r.hits_not_found > 0) {
      std::fprintf(stderr, "[lsm_bench] !!!!! FAILED: %s @%g lost %llu present keys\n",
                   r.policy.c_str(), r.budget_bits_per_key,
                   static_cast<unsigned long long>(r.hits_not_found));
      status = 1;
    }
    if (r.has_filter && std::fabs(r.BudgetDeviationPct()) > kBudgetTolerancePct) {
      std::fprintf(stderr, "[lsm_bench] WARNING: %s @%g uses %.3f %sbits per key, %+.1f%% off budget\n",
                   r.policy.c_str(), r.budget_bits_per_key, r.BudgetedBitsPerKey(),
                   r.alloc_budget ? "allocated " : "", r.BudgetDeviationPct());
    }
  }
  return status;
}

int Main() {
  CheckFlags();
  const auto wall_start = Clock::now();
  ParseRewriteSteps(FLAGS_rewrite_steps);  // refuses a bad list before any database is built
  std::vector<PolicySpec> specs = ParseSpecs();
  if (FLAGS_list_policies) {
    for (const PolicySpec& spec : specs) {
      std::printf("%s %s %s\n", spec.policy.c_str(), spec.filter_policy ? spec.param.c_str() : "0",
                  spec.list_setting.c_str());
    }
    return 0;
  }
  std::string root = FLAGS_db_dir;
  if (root.empty()) {
    char tmpl[] = "/tmp/lsm_bench.XXXXXX";
    if (mkdtemp(tmpl) == nullptr) Fatal("cannot create a directory under /tmp");
    root = tmpl;
    g_root = root;
    g_created_root = true;
    std::atexit(RemoveRoot);
  } else {
    std::error_code ec;
    std::filesystem::create_directories(root, ec);
    if (ec) Fatal("cannot create --db_dir " + root + ": " + ec.message());
  }

  std::vector<ProbedFile> files;
  if (sstfilter::bench::RunningOnJemalloc() || FLAGS_ribbon_bound) {
    files = ProbeFiles(root + "/probe");
  }
  if (sstfilter::bench::RunningOnJemalloc()) {
    std::fprintf(stderr, "[lsm_bench] calibrating every policy to allocated bits per key ...\n");
    for (PolicySpec& spec : specs) {
      if (spec.filter_policy != nullptr) spec = CalibrateToAllocated(spec, files);
    }
  }

  std::vector<RunResult> results;
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string dir = root + "/db" + std::to_string(i);
    std::fprintf(stderr, "[lsm_bench] run %zu of %zu: %s (%s)\n", i + 1, specs.size(),
                 specs[i].policy.c_str(), specs[i].setting.c_str());
    for (RunResult& r : RunOne(specs[i], dir)) results.push_back(std::move(r));
  }

  PrintTable(results, HeaderComment());
  if (FLAGS_ribbon_bound) {
    PrintRibbonBound(files, results, FLAGS_misses, OptimizeFiltersForMemory());
  }
  if (!FLAGS_csv.empty() && !WriteResultsCsv(FLAGS_csv, results)) Fatal("cannot write " + FLAGS_csv);
  if (!FLAGS_plot.empty()) PlotLsmBench(FLAGS_csv, FLAGS_plot);
  std::fprintf(stderr, "[lsm_bench] done: %zu runs in %.1f s\n", results.size(), Seconds(wall_start));

  return CheckResults(results);
}

}  // namespace
}  // namespace sstfilter::bench

int main(int argc, char** argv) {
  const char* usage =
      "Builds a multi-level RocksDB per filter policy and budget and measures "
      "wasted reads per miss, FP rates by level and lookup latency.";
  sstfilter::bench::StartBenchmark(&argc, &argv, "lsm_bench", usage, __FILE__, FLAGS_allocator);
  if (FLAGS_optimize_filters_for_memory != "auto" && FLAGS_optimize_filters_for_memory != "true" &&
      FLAGS_optimize_filters_for_memory != "false") {
    std::fprintf(stderr, "[lsm_bench] ERROR: --optimize_filters_for_memory must be true, false or auto\n");
    return 2;
  }
  return sstfilter::bench::Main();
}
