// production_bench: what each filter policy does to a RocksDB that does not
// fit in memory. Device reads, ops/s and Get latency split by hits and
// misses, with direct reads and a block cache a fraction of the data.
//
// The database is loaded once through RocksDB's normal write path, with
// RocksDB's own (automatic, leveled, dynamic) compaction and no filter.
// Then, for every layout × policy × budget, every SST file is rewritten on
// its own into its own level (DB::CompactFiles, one file in, one out) with
// that policy's filter. So every row is measured on the same files, with
// the same keys in the same levels; each rewrite is checked against the
// loaded shape, and a row whose shape differs is fatal. With --rounds each
// policy of a layout rewrites its own copy of the load (hard links), and
// the timed workloads run in slices, the policies taking turns.
//
// Layouts:
//   a  filters held by the table readers (RocksDB's default,
//      cache_index_and_filter_blocks=false);
//   b  filters and indexes charged to the block cache: partitioned filters
//      (metadata_block_size 4 KiB), two-level index,
//      cache_index_and_filter_blocks and pin_l0_filter_and_index_blocks_in_cache.
// Each policy is calibrated to the budget in allocated bits per key on trial
// filters of the loaded files, cut into partitions in layout b as RocksDB
// cuts them (partitions pay their fixed costs and size classes each).
// See docs/BENCHMARKS.md for the profile and what each column means.
//
//   ./build/bench/production_bench --db_dir=/var/tmp/prod --csv=out/prod.csv
//       --plot=out/prod.png   (one command line)
#include <gflags/gflags.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/checkpoint.h>
#include <rocksdb/write_batch.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/allocator.h"
#include "bench/bench_util.h"
#include "bench/db_util.h"
#include "bench/direct_reads.h"
#include "bench/emulated_device.h"
#include "bench/flag_help.h"
#include "bench/lsm_bound.h"
#include "bench/lsm_calibrate.h"
#include "bench/keys.h"
#include "bench/lsm_policies.h"
#include "bench/lsm_stats.h"
#include "bench/production_lookups.h"
#include "bench/production_report.h"
#include "include/sstfilter/sstfilter.h"
#include "plugin/rocksdb/api_compat.h"
#include "plugin/rocksdb/shape_listener.h"
#include "plugin/tools/sst_filter_reader.h"
#include "plugin/tools/text_output.h"

DEFINE_string(policies,
              "rocksdb.Bloom,rocksdb.Ribbon,sstfilter.StandardBloom,sstfilter.BlockedBloom,"
              "sstfilter.Ribbon,sstfilter.LevelAware",
              "Filter policies, comma-separated: rocksdb.Bloom, rocksdb.Ribbon, a registered id, "
              "or sstfilter.* (every registered id).");
DEFINE_string(bits_per_key, "10",
              "Budgets, comma-separated: allocated bits per key under jemalloc, else bits per key.");
DEFINE_string(layouts, "a,b", "a: filters in the table readers; b: partitioned, in the block cache.");
DEFINE_uint64(keys, 10000000, "Keys loaded (16 bytes each).");
DEFINE_int32(value_bytes, 400, "Bytes per value; half of each value repeats (compresses ~2:1).");
DEFINE_uint64(write_buffer_bytes, 64 << 20, "write_buffer_size.");
DEFINE_uint64(target_file_bytes, 64 << 20, "target_file_size_base.");
DEFINE_uint64(level_base_bytes, 256 << 20, "max_bytes_for_level_base.");
DEFINE_int32(l0_files, 2,
             "Memtables flushed into L0 after the rest has settled, as in a database taking writes.");
DEFINE_bool(compact_to_last_level, false,
            "After the load settles, one CompactRange over every key, as a full compaction leaves "
            "a database: its keys in the last level (the --l0_files tail comes after).");
DEFINE_double(cache_fraction, 0.125, "Block cache capacity as a share of the loaded SST bytes.");
DEFINE_uint64(block_cache_bytes, 0, "Block cache capacity in bytes; overrides --cache_fraction.");
DEFINE_bool(direct_reads, true, "use_direct_reads: every block not in the block cache is a device read.");
DEFINE_string(device_us, "",
              "MEDIAN,MEAN: hold every SST read until a latency drawn from a log-normal "
              "distribution of this median and mean (µs) has passed, to emulate a slower device "
              "than this machine's (e.g. 120,510); empty: the disk as it is.");
DEFINE_string(hit_percents, "0,100,50", "Workloads: the share of lookups for present keys, in %.");
DEFINE_string(threads, "1,2", "Reader thread counts, comma-separated.");
DEFINE_uint64(ops, 100000, "Lookups per workload and thread count, at least.");
DEFINE_double(min_seconds, 5, "Each workload runs at least this long (more lookups if needed).");
DEFINE_uint64(fp_misses, 2000000,
              "Absent keys looked up (2 threads, untimed) for wasted reads per miss.");
DEFINE_uint64(warmup_ops, 100000, "Lookups (50% hits, 2 threads) before measuring, to fill the block cache.");
DEFINE_string(db_dir, "",
              "Directory of the database; kept, and reused by a later run with the same load "
              "flags. Empty: a temporary directory under /var/tmp, removed at exit.");
DEFINE_string(csv, "", "If set, also write the results as CSV to this file.");
DEFINE_string(plot, "", "If set, plot ops/s of the 50% mix against bits per key (gnuplot) to this PNG.");
DEFINE_string(allocator, "jemalloc", "Allocator: system or jemalloc (production builds' choice).");
DEFINE_string(optimize_filters_for_memory, "auto",
              "true, false or auto (RocksDB >= 9.2's default under jemalloc: on; else off).");
DEFINE_uint64(seed, 0, "Seed for the key stream; same seed, same keys.");
DEFINE_uint64(probe_reads, 2000,
              "Direct 4 KiB random reads of each rewritten database's SST files just before its "
              "timed workloads, to show whether the disk serves every copy alike (a VM's disk "
              "may serve recently written files faster); 0: none.");
DEFINE_int32(rounds, 1,
             "Timed workloads in this many slices, the policies of a layout taking turns slice "
             "by slice, each on its own copy of the load (policies x SST bytes of disk, policies "
             "x block cache of memory), so the machine's drift weighs on every policy alike; "
             "1: each policy's workloads in one go, on the one copy.");

namespace sstfilter::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using Clock = std::chrono::steady_clock;
constexpr const char* kProgram = "production_bench";
constexpr const char* kMarker = "PRODUCTION_BENCH";  // in every directory this program made
// Copies whose files read this much apart (median) are flagged: a device
// read ~20% slower moves a device-bound workload's ops/s about as much,
// the spread of ops/s ratios between copies read alike on this disk.
constexpr double kCopySpreadWarning = 1.2;
using tools::FormatNumber;

std::mutex g_temp_root_mu;
std::string g_temp_root;  // a temporary directory this run created

void RemoveTempRoot() {
  std::lock_guard<std::mutex> lock(g_temp_root_mu);
  if (g_temp_root.empty()) return;
  // On an interrupt RocksDB's threads still write: moved away first, the
  // directory gets no new files by its old path, and the few created
  // meanwhile go on the next try.
  std::error_code ec;
  std::string doomed = g_temp_root + ".removing";
  std::filesystem::rename(g_temp_root, doomed, ec);
  if (ec) doomed = g_temp_root;
  for (int attempt = 0; attempt < 50 && std::filesystem::exists(doomed, ec); ++attempt) {
    std::filesystem::remove_all(doomed, ec);
    if (ec) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Set once the CSV is complete: an interrupt during the plot leaves it.
std::atomic<bool> g_csv_written{false};

// Ctrl-C, SIGTERM, SIGHUP: a signal handler may not remove a directory
// tree, and RocksDB's threads keep running. So the signals are blocked in
// every thread (before RocksDB starts any; threads inherit the mask) and
// one thread waits for them, removes the temporary directory this run
// made, and exits. A --db_dir load interrupted stays marked "loading": the
// next run starts it again.
void HandleInterrupts() {
  sigset_t signals;
  sigemptyset(&signals);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, sig);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([signals] {
    int sig = 0;
    if (sigwait(&signals, &sig) != 0) return;
    std::fprintf(stderr, "[%s] interrupted (signal %d): %s\n", kProgram, sig,
                 g_csv_written ? "the CSV is complete, the plot is not" : "nothing written");
    // RocksDB's errors about the files going away are not news.
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) ::dup2(null, STDERR_FILENO);
    RemoveTempRoot();
    std::_Exit(128 + sig);
  }).detach();
}

// Held for the whole run: a second run on the same --db_dir would remove
// or reuse a load this one is writing.
int g_dir_lock = -1;

std::string Key(uint64_t i) { return LsmKey(i, FLAGS_seed); }

// Half random, half a copy of it: Snappy (RocksDB's default compression)
// halves it, as db_bench's default compression_ratio=0.5 values.
std::string Value(uint64_t i) {
  const std::string half = LsmValue(i, FLAGS_value_bytes / 2);
  std::string value = half + half;
  value.resize(FLAGS_value_bytes, 'v');
  return value;
}

bool OptimizeFiltersForMemory() {
  if (FLAGS_optimize_filters_for_memory == "auto") return RunningOnJemalloc();
  return FLAGS_optimize_filters_for_memory == "true";
}

// The flags that decide what the load writes: a database is reused only by
// a run whose load flags are the same.
std::string LoadSignature() {
  std::ostringstream out;
  out << "keys=" << FLAGS_keys << " value_bytes=" << FLAGS_value_bytes
      << " write_buffer=" << FLAGS_write_buffer_bytes << " target_file=" << FLAGS_target_file_bytes
      << " level_base=" << FLAGS_level_base_bytes << " l0_files=" << FLAGS_l0_files
      << " seed=" << FLAGS_seed;
  // Named only when set: a load made without it keeps the signature it has.
  if (FLAGS_compact_to_last_level) out << " compacted=1";
  return out.str();
}

// Layout b's metadata_block_size: RocksDB cuts a filter partition once it
// holds ApproximateNumEntries(90% of it) keys, at the end of a data block.
constexpr uint32_t kPartitionBytes = 4096;

rdb::Options DbOptions(const PolicySpec* spec, char layout, uint64_t cache_bytes,
                       const std::shared_ptr<ShapeListener>& listener) {
  rdb::Options options;
  options.write_buffer_size = FLAGS_write_buffer_bytes;
  options.target_file_size_base = FLAGS_target_file_bytes;
  options.max_bytes_for_level_base = FLAGS_level_base_bytes;
  options.level_compaction_dynamic_level_bytes = true;  // RocksDB >= 8.4's default
  options.max_background_jobs = 2;
  options.max_open_files = -1;
  options.statistics = rdb::CreateDBStatistics();
  if (listener) options.listeners.push_back(listener);
  rdb::BlockBasedTableOptions table;
  table.format_version = 5;
  table.block_cache = rdb::NewLRUCache(cache_bytes);
  if (spec != nullptr) {
    table.filter_policy = spec->filter_policy;
    table.optimize_filters_for_memory = OptimizeFiltersForMemory();
  }
  if (layout == 'b') {
    table.cache_index_and_filter_blocks = true;
    table.pin_l0_filter_and_index_blocks_in_cache = true;
    table.partition_filters = true;
    table.index_type = rdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    table.metadata_block_size = kPartitionBytes;
  }
  options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
  return options;
}

// The emulated device of --device_us, or null: set in CheckFlags, used by every
// measured open (not by the load and the rewrites, which only prepare files).
// Never freed: Fatal exits with a DB still open on it.
rdb::Env* g_device_env = nullptr;
std::string g_device = "disk";

std::unique_ptr<rdb::DB> Open(const rdb::Options& options, const std::string& dir) {
  std::unique_ptr<rdb::DB> db;
  Check(compat::OpenDB(options, dir, &db), "open " + dir);
  return db;
}

// The database's shape: files and entries per level.
struct Shape {
  std::vector<uint64_t> files = std::vector<uint64_t>(kMaxLevels, 0);
  std::vector<uint64_t> entries = std::vector<uint64_t>(kMaxLevels, 0);
  uint64_t sst_bytes = 0;
  // Every file's level and entries, in the order Rewrite takes them.
  std::vector<std::pair<int, uint64_t>> file_entries;
  bool operator==(const Shape& o) const { return files == o.files && entries == o.entries; }
  std::string Files() const {
    std::string text;
    for (int level = 0; level < kMaxLevels; ++level) {
      text += (level ? "/" : "") + std::to_string(files[level]);
    }
    return text;
  }
};

// Live files, L0 first, each level in key order: the order Rewrite takes.
std::vector<rdb::LiveFileMetaData> LiveFilesInOrder(rdb::DB* db) {
  std::vector<rdb::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  std::stable_sort(live.begin(), live.end(), [](const auto& a, const auto& b) {
    return a.level != b.level ? a.level < b.level : a.smallestkey < b.smallestkey;
  });
  return live;
}

Shape ShapeOf(rdb::DB* db) {
  Shape shape;
  for (const auto& f : LiveFilesInOrder(db)) {
    if (f.level < 0 || f.level >= kMaxLevels) continue;
    ++shape.files[f.level];
    shape.entries[f.level] += f.num_entries;
    shape.sst_bytes += f.size;
    shape.file_entries.emplace_back(f.level, f.num_entries);
  }
  return shape;
}

// Refuses a directory this program did not make; returns true if it holds
// a finished load with the same load flags.
bool PrepareDir(const std::string& dir) {
  namespace fs = std::filesystem;
  const std::string marker = dir + "/" + kMarker;
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    if (!fs::create_directories(dir, ec)) Fatal("cannot create " + dir + ": " + ec.message());
  } else if (!fs::exists(marker, ec)) {
    if (!fs::is_directory(dir, ec) || !fs::is_empty(dir, ec)) {
      Fatal(dir + " exists and was not made by production_bench (no " + kMarker +
            " file): give a new or empty directory; nothing was touched");
    }
  }
  g_dir_lock = ::open(marker.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (g_dir_lock < 0) Fatal("cannot open " + marker + ": " + std::strerror(errno));
  if (::flock(g_dir_lock, LOCK_EX | LOCK_NB) != 0) {
    Fatal("another production_bench run is using " + dir + "; nothing was touched");
  }
  if (fs::file_size(marker, ec) > 0) {
    std::ifstream in(marker);
    std::string state, signature;
    std::getline(in, state);
    std::getline(in, signature);
    if (state == "loaded" && signature == LoadSignature()) return true;
    if (state == "loaded") {
      Fatal(dir + " holds a load with other flags (" + signature +
            "): give another --db_dir, or remove this one");
    }
    // An interrupted load of ours: start again.
    fs::remove_all(dir + "/db", ec);
  }
  std::ofstream(marker) << "loading\n" << LoadSignature() << "\n";
  return false;
}

// Disk the load needs: every entry uncompressed with its overheads, plus
// half again for compactions in flight and one rewritten file.
// Refuses a run with less than `need` bytes free under `dir`; `advice`
// says what to change.
void RequireFreeSpace(const std::string& dir, double need, const std::string& advice) {
  std::error_code ec;
  const auto space = std::filesystem::space(dir, ec);
  if (ec) Fatal("cannot read free space of " + dir + ": " + ec.message());
  if (static_cast<double>(space.available) < need) {
    Fatal("the run needs about " + std::to_string(static_cast<uint64_t>(need / (1 << 20))) +
          " MiB free under " + dir + ", there are " +
          std::to_string(space.available / (1 << 20)) + " MiB: " + advice);
  }
}

void CheckDiskSpace(const std::string& dir, bool loaded) {
  const double entry = 16 + 8 + FLAGS_value_bytes + 16;
  const double need = (loaded ? 0 : 1.5 * entry * FLAGS_keys) + 2.0 * FLAGS_target_file_bytes;
  RequireFreeSpace(dir, need, "use --db_dir elsewhere or fewer --keys");
}

// Keys per L0 file of the tail: about a full memtable (an entry costs its
// key, value and ~24 bytes of memtable overhead).
uint64_t KeysPerL0File() {
  return std::max<uint64_t>(FLAGS_write_buffer_bytes / (16 + FLAGS_value_bytes + 24), 1);
}

// Writes keys [begin, end) with a flush after every `flush_every` keys (0:
// none, the memtable fills by itself).
void Write(rdb::DB* db, uint64_t begin, uint64_t end, uint64_t flush_every,
           Clock::time_point start) {
  rdb::WriteOptions write_options;
  write_options.disableWAL = true;  // the WAL plays no part in the SST files
  rdb::WriteBatch batch;
  const uint64_t step = std::max<uint64_t>(FLAGS_keys / 20, 1);
  for (uint64_t i = begin; i < end; ++i) {
    batch.Put(Key(i), Value(i));
    const bool flush = flush_every > 0 && ((i + 1 - begin) % flush_every == 0 || i + 1 == end);
    if (batch.Count() == 256 || i + 1 == end || flush) {
      Check(db->Write(write_options, &batch), "write");
      batch.Clear();
    }
    if (flush) Check(db->Flush(rdb::FlushOptions()), "flush");
    if ((i + 1) % step == 0) {
      std::fprintf(stderr, "[%s] load: %3.0f%%, %.0f s, files per level %s\n", kProgram,
                   100.0 * (i + 1) / FLAGS_keys, Seconds(start), ShapeOf(db).Files().c_str());
    }
  }
}

// All keys but the tail, then RocksDB's compactions until none is pending
// (as a bulk load ends; with --compact_to_last_level, a full compaction
// after them), then the tail: --l0_files memtables flushed with compactions
// off, so L0 holds files as it does while writes arrive.
void Load(const std::string& dir) {
  const auto start = Clock::now();
  rdb::Options options = DbOptions(nullptr, 'a', 8 << 20, nullptr);
  options.create_if_missing = true;
  options.error_if_exists = true;
  std::unique_ptr<rdb::DB> db = Open(options, dir);
  const uint64_t tail = std::min<uint64_t>(FLAGS_keys, FLAGS_l0_files * KeysPerL0File());
  Write(db.get(), 0, FLAGS_keys - tail, 0, start);
  Check(db->Flush(rdb::FlushOptions()), "flush");
  std::fprintf(stderr, "[%s] load: waiting for RocksDB's compactions, files per level %s\n",
               kProgram, ShapeOf(db.get()).Files().c_str());
  WaitForBackgroundWork(db.get(), /*include_pending_compactions=*/true);
  if (FLAGS_compact_to_last_level) {
    std::fprintf(stderr, "[%s] load: compacting every key to the last level\n", kProgram);
    Check(db->CompactRange(rdb::CompactRangeOptions(), nullptr, nullptr), "compact range");
  }
  Check(db->SetOptions({{"disable_auto_compactions", "true"}}), "pause compactions");
  Write(db.get(), FLAGS_keys - tail, FLAGS_keys, KeysPerL0File(), start);
  std::fprintf(stderr, "[%s] loaded in %.0f s: files per level %s\n", kProgram, Seconds(start),
               ShapeOf(db.get()).Files().c_str());
  Check(db->Close(), "close");
}

// Rewrites every file with `spec`'s filter in `layout`, L0 first.
void Rewrite(const std::string& dir, const PolicySpec& spec, char layout, const Shape& loaded,
             const std::string& label) {
  const auto start = Clock::now();
  auto listener = std::make_shared<ShapeListener>();
  rdb::Options options = DbOptions(&spec, layout, 8 << 20, listener);
  options.disable_auto_compactions = true;
  std::unique_ptr<rdb::DB> db = Open(options, dir);
  // LevelAware plans for this shape from the first file.
  Check(ObserveLsmShape(db.get()), "observe the shape");
  const std::vector<rdb::LiveFileMetaData> live = LiveFilesInOrder(db.get());
  for (size_t i = 0; i < live.size(); ++i) {
    Check(db->CompactFiles(rdb::CompactionOptions(), {live[i].name}, live[i].level),
          "rewrite " + live[i].name);
    if ((i + 1) % std::max<size_t>(live.size() / 4, 1) == 0 || i + 1 == live.size()) {
      std::fprintf(stderr, "[%s] %s: rewrote %zu of %zu files, %.0f s\n", kProgram, label.c_str(),
                   i + 1, live.size(), Seconds(start));
    }
  }
  const Shape now = ShapeOf(db.get());
  if (!(now == loaded)) {
    Fatal(label + ": the rewrite changed the shape from " + loaded.Files() + " to " + now.Files());
  }
  Check(db->Close(), "close");
}

// Filter memory as held in memory: every filter block (each partition and
// partition index too) at malloc_usable_size, from the files' own bytes.
double AllocatedBitsPerKey(rdb::DB* db, uint64_t entries) {
  std::vector<rdb::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  uint64_t bytes = 0;
  for (const auto& f : live) {
    const tools::SstFilterReport r = tools::ReadSstFilter(f.db_path + f.name, false);
    if (!r.readable) Fatal("cannot read " + f.db_path + f.name + ": " + r.error);
    bytes += r.allocated_bytes;
  }
  return entries ? 8.0 * static_cast<double>(bytes) / static_cast<double>(entries) : 0;
}

// A rewritten database open for measuring: its filters checked, its block
// cache warm, its wasted reads per miss counted (in `base`).
struct Prepared {
  rdb::Options options;
  std::unique_ptr<rdb::DB> db;
  Row base;
  std::string label;
};

Prepared Prepare(const std::string& dir, const PolicySpec& spec, char layout,
                 uint64_t cache_bytes, const Shape& loaded, double files_per_miss,
                 const std::string& label) {
  Prepared p;
  p.label = label;
  p.options = DbOptions(&spec, layout, cache_bytes, std::make_shared<ShapeListener>());
  p.options.disable_auto_compactions = true;
  p.options.use_direct_reads = FLAGS_direct_reads;
  if (g_device_env) p.options.env = g_device_env;
  p.db = Open(p.options, dir);
  rdb::DB* db = p.db.get();
  const TableSummary tables = SummarizeTables(db, {spec.expected_name}, spec.some_unfiltered);
  if (!tables.wrong_policy.empty()) {
    Fatal(label + ": " + tables.wrong_policy[0] + ": not the filter requested");
  }
  if (!(ShapeOf(db) == loaded)) Fatal(label + ": the shape is not the loaded one");

  Row& base = p.base;
  base.policy = spec.policy;
  base.layout = layout;
  base.budget = spec.budget;
  base.setting = spec.setting;
  base.bits_per_key = tables.BitsPerKey();
  base.alloc_bits_per_key = AllocatedBitsPerKey(db, tables.entries);
  base.alloc_budget = RunningOnJemalloc();
  base.filter_bytes = tables.filter_bytes;
  base.cache_bytes = cache_bytes;
  base.shape = loaded.Files();
  base.files_per_miss = files_per_miss;

  std::string error;
  WorkloadResult ignored;
  if (!RunWorkload(db, p.options.statistics.get(), {50, 2, FLAGS_warmup_ops, 1}, FLAGS_keys, Key,
                   Value, &ignored, &error)) {
    Fatal(label + " warm-up: " + error);
  }
  // Wasted reads per miss from many more misses than the timed workloads
  // have: ~0.1% false positives need millions for a 2% standard error.
  WorkloadResult fp;
  Workload misses{0, 2, FLAGS_fp_misses, 2};
  misses.by_level = true;
  if (!RunWorkload(db, p.options.statistics.get(), misses, FLAGS_keys, Key, Value, &fp, &error)) {
    Fatal(label + " misses: " + error);
  }
  base.wasted_per_miss = WastedPerMiss(fp);
  SetByLevel(fp, &base);
  std::fprintf(stderr, "[%s] %s: %.5f wasted reads per miss (%llu absent keys)\n", kProgram,
               label.c_str(), base.wasted_per_miss, static_cast<unsigned long long>(fp.misses));
  return p;
}

// The timed workloads, --hit_percents × --threads, as (hit percent, threads).
std::vector<std::pair<int, int>> TimedWorkloads() {
  std::vector<std::pair<std::string, double>> threads;
  std::string bad;
  ParseBitsPerKeyList(FLAGS_threads, &threads, &bad);  // checked in CheckFlags
  std::vector<std::pair<int, int>> workloads;
  for (const std::string& h : SplitCommas(FLAGS_hit_percents)) {
    for (const auto& [text, t] : threads) workloads.emplace_back(std::stoi(h), static_cast<int>(t));
  }
  return workloads;
}

// Slice `round` of --rounds of a timed workload: every policy gets the same
// lookups in the same slice, other lookups in each slice.
Workload TimedSlice(int hit_percent, int threads, int round) {
  const uint64_t salt = Mix64(static_cast<uint64_t>(hit_percent) * 131 + threads) ^
                        (round > 0 ? Mix64(0x5EED0000ULL + static_cast<uint64_t>(round)) : 0);
  return {hit_percent, threads, (FLAGS_ops + FLAGS_rounds - 1) / FLAGS_rounds, salt,
          FLAGS_min_seconds / FLAGS_rounds};
}

Row FinishRow(const Prepared& p, int hit_percent, int threads, const WorkloadTally& tally) {
  Row row = p.base;
  row.hit_percent = hit_percent;
  row.threads = threads;
  row.result = tally.Result();
  std::string slices;
  if (tally.slice_ops_per_second.size() > 1) slices = " (rounds: " + SliceOps(row.result) + ")";
  std::fprintf(stderr, "[%s] %s: %3d%% hits, %d thread%s: %.0f ops/s%s, %.4f device reads/lookup\n",
               kProgram, p.label.c_str(), row.hit_percent, row.threads, row.threads > 1 ? "s" : "",
               row.result.OpsPerSecond(), slices.c_str(),
               static_cast<double>(row.result.counters.device_reads()) /
                   static_cast<double>(row.result.hits + row.result.misses));
  return row;
}

// The disk as each database's timed workloads will meet it: direct reads
// of its own SST files, taken once all of them are written. Copies that
// read at different speeds make ops/s ratios between them hold that
// difference too; returns the slowest median over the fastest (1 when
// fewer than two were probed).
double ProbeCopies(std::vector<Prepared>& dbs) {
  if (FLAGS_probe_reads == 0) return 1;
  double fastest = 0, slowest = 0;
  for (Prepared& p : dbs) {
    std::vector<std::string> files;
    for (const rdb::LiveFileMetaData& f : LiveFilesInOrder(p.db.get())) {
      files.push_back(f.db_path + "/" + f.name);
    }
    std::string why;
    if (!TimeDirectReads(files, FLAGS_probe_reads, 4096, FLAGS_seed + p.base.run,
                         &p.base.copy_reads, &why)) {
      std::fprintf(stderr, "[%s] %s: no direct reads of its files (%s)\n", kProgram,
                   p.label.c_str(), why.c_str());
      continue;
    }
    p.base.copy_probed = true;
    const double median = p.base.copy_reads.p50_us;
    std::fprintf(stderr, "[%s] %s: its files read from the disk in %.1f us median, %.1f us p99\n",
                 kProgram, p.label.c_str(), median, p.base.copy_reads.p99_us);
    fastest = fastest > 0 ? std::min(fastest, median) : median;
    slowest = std::max(slowest, median);
  }
  return fastest > 0 ? slowest / fastest : 1;
}

// Every timed workload on the prepared databases, in --rounds slices: in
// each slice every database runs in turn, the first one rotating, so a
// machine that speeds up or slows down during the run weighs on every
// policy alike. Rows grouped by database, workloads in flag order.
std::vector<Row> RunTimedWorkloads(std::vector<Prepared>& dbs) {
  std::vector<std::vector<Row>> rows(dbs.size());
  for (const auto& [hit_percent, threads] : TimedWorkloads()) {
    std::vector<WorkloadTally> tallies(dbs.size());
    for (int round = 0; round < FLAGS_rounds; ++round) {
      if (FLAGS_rounds > 1) {
        std::fprintf(stderr, "[%s] %d%% hits, %d thread%s: round %d of %d\n", kProgram, hit_percent,
                     threads, threads > 1 ? "s" : "", round + 1, FLAGS_rounds);
      }
      for (size_t k = 0; k < dbs.size(); ++k) {
        const size_t i = (round + k) % dbs.size();
        std::string error;
        if (!AddWorkloadRun(dbs[i].db.get(), dbs[i].options.statistics.get(),
                            TimedSlice(hit_percent, threads, round), FLAGS_keys, Key, Value,
                            &tallies[i], &error)) {
          Fatal(dbs[i].label + ": " + error);
        }
      }
    }
    for (size_t i = 0; i < dbs.size(); ++i) {
      rows[i].push_back(FinishRow(dbs[i], hit_percent, threads, tallies[i]));
    }
  }
  std::vector<Row> all;
  for (auto& r : rows) all.insert(all.end(), r.begin(), r.end());
  return all;
}

void CloseAll(std::vector<Prepared>& dbs) {
  for (Prepared& p : dbs) Check(p.db->Close(), "close");
  dbs.clear();
}

// --rounds: the copies of the load, one per policy of a layout, under the
// directory this program made for the run.
std::string CopiesDir(const std::string& dir) {
  return std::filesystem::path(dir).parent_path().string() + "/rounds";
}

void RemoveCopies(const std::string& copies) {
  std::error_code ec;
  std::filesystem::remove_all(copies, ec);
  if (ec) Fatal("cannot remove " + copies + ": " + ec.message());
}

// Copies of the load, copies/0 to copies/(count - 1), that share its files
// (hard links): rewriting a copy's files replaces them in that copy only.
// First removes copies an interrupted run left, and refuses a run the disk
// or the memory cannot hold: every copy ends with its own SST bytes, and
// every copy is open with its own block cache.
void CopyLoad(const std::string& dir, const std::string& copies, size_t count, const Shape& loaded,
              uint64_t cache_bytes) {
  RemoveCopies(copies);
  std::error_code ec;
  if (!std::filesystem::create_directories(copies, ec)) {
    Fatal("cannot create " + copies + ": " + ec.message());
  }
  RequireFreeSpace(copies,
                   static_cast<double>(count) * loaded.sst_bytes + 2.0 * FLAGS_target_file_bytes,
                   "--rounds needs a copy of the load per policy: fewer policies per run, or "
                   "--rounds=1");
  const double memory = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  if (memory > 0 && static_cast<double>(count) * cache_bytes > 0.5 * memory) {
    Fatal("--rounds keeps a block cache per policy open: " + std::to_string(count) + " x " +
          std::to_string(cache_bytes >> 20) + " MiB is over half of this machine's memory; "
          "fewer policies per run, or --rounds=1");
  }
  rdb::Options options = DbOptions(nullptr, 'a', 8 << 20, nullptr);
  options.disable_auto_compactions = true;
  std::unique_ptr<rdb::DB> db = Open(options, dir);
  rdb::Checkpoint* checkpoint = nullptr;
  Check(rdb::Checkpoint::Create(db.get(), &checkpoint), "checkpoint " + dir);
  std::unique_ptr<rdb::Checkpoint> owned(checkpoint);
  for (size_t i = 0; i < count; ++i) {
    Check(owned->CreateCheckpoint(copies + "/" + std::to_string(i)), "copy the load to " + copies);
  }
  Check(db->Close(), "close");
}

// The files an absent key's lookup consults, on average (key ranges).
double FilesPerMiss(const std::string& dir) {
  rdb::Options options = DbOptions(nullptr, 'a', 8 << 20, nullptr);
  options.disable_auto_compactions = true;
  std::unique_ptr<rdb::DB> db = Open(options, dir);
  const FileRanges ranges(db.get());
  constexpr uint64_t kSample = 100000;
  uint64_t files = 0;
  for (uint64_t j = 0; j < kSample; ++j) {
    files += ranges.FilesFor(Key(FLAGS_keys + (Mix64(j) % FLAGS_keys)));
  }
  Check(db->Close(), "close");
  return static_cast<double>(files) / kSample;
}

// --policies, "sstfilter.*" expanded.
std::vector<std::string> Policies() {
  std::vector<std::string> names;
  if (std::string bad; !ExpandPolicyList(FLAGS_policies, false, &names, &bad)) {
    Fatal("bad policy '" + bad + "' in --policies (names only; budgets go in --bits_per_key)");
  }
  return names;
}

// The policies at their budgets for `layout`, each calibrated to allocated
// bits per key on trial filters cut as that layout cuts them.
std::vector<PolicySpec> Specs(const Shape& loaded, char layout) {
  std::vector<std::pair<std::string, double>> budgets;
  if (std::string bad; !ParseBitsPerKeyList(FLAGS_bits_per_key, &budgets, &bad)) {
    Fatal("bad value '" + bad + "' in --bits_per_key (want positive numbers)");
  }
  // rocksdb.Ribbon's trial filter: a file of the last level.
  const RibbonCalibration ribbon{loaded.entries[kMaxLevels - 1] /
                                     std::max<uint64_t>(loaded.files[kMaxLevels - 1], 1),
                                 /*bloom_before_level=*/-1};
  const auto make = [&](const std::string& policy, const std::string& param, double budget) {
    PolicySpec spec;
    std::string error;
    if (!MakePolicySpec(policy, param, budget, ribbon, &spec, &error)) Fatal(error);
    return spec;
  };
  // Trial filters of the loaded files, each at its level and size, in the
  // order the rewrite builds them (optimize_filters_for_memory's rounding
  // balance runs across filters in that order).
  std::vector<ProbedFile> files;
  for (const auto& [level, keys] : loaded.file_entries) files.push_back({level, keys, true, level, 0});
  TrialFilters trial{Key, OptimizeFiltersForMemory(), kMaxLevels};
  if (layout == 'b') {
    const rdb::BlockBasedTableOptions defaults;
    trial.partition_bytes = static_cast<uint32_t>(
        (kPartitionBytes * (100 - defaults.block_size_deviation) + 99) / 100);
    // Half a data block of keys (16-byte keys, values as loaded).
    trial.keys_past_cut = defaults.block_size / (16 + FLAGS_value_bytes) / 2;
  }
  std::vector<PolicySpec> specs;
  for (const std::string& policy : Policies()) {
    for (const auto& [param, budget] : budgets) {
      PolicySpec spec = make(policy, param, budget);
      // LevelAware's setting is a budget of filter bytes it keeps over the
      // live files (shaped by the tree, which trial filters do not have);
      // with optimize_filters_for_memory its blocks fit their size classes,
      // so its allocated bits are its bits: checked in the results, not
      // calibrated.
      if (RunningOnJemalloc() && policy != "sstfilter.LevelAware") {
        spec = CalibrateToAllocated(
            spec, files, trial,
            [&](double setting) { return make(policy, param, setting); }, kProgram);
      }
      specs.push_back(spec);
    }
  }
  return specs;
}

// Refuses bad flags with a message before anything is loaded.
void CheckFlags() {
  if (FLAGS_keys < 1000 || FLAGS_keys >= (1ULL << 40)) Fatal("--keys must be in [1000, 2^40)");
  if (FLAGS_value_bytes < 2 || FLAGS_ops == 0) Fatal("need --value_bytes >= 2 and --ops > 0");
  if (FLAGS_l0_files < 0 || FLAGS_l0_files * KeysPerL0File() >= FLAGS_keys) {
    Fatal("--l0_files memtables (" + std::to_string(KeysPerL0File()) + " keys each) must leave keys to settle");
  }
  if (!(FLAGS_cache_fraction > 0 && FLAGS_cache_fraction <= 1)) Fatal("--cache_fraction must be in (0, 1]");
  for (const std::string& layout : SplitCommas(FLAGS_layouts)) {
    if (layout != "a" && layout != "b") Fatal("--layouts takes a and b, not '" + layout + "'");
  }
  for (const std::string& h : SplitCommas(FLAGS_hit_percents)) {
    char* end = nullptr;
    const long v = std::strtol(h.c_str(), &end, 10);
    if (h.empty() || *end != '\0' || v < 0 || v > 100) Fatal("bad --hit_percents item '" + h + "'");
  }
  std::vector<std::pair<std::string, double>> threads;
  if (std::string bad; !ParseBitsPerKeyList(FLAGS_threads, &threads, &bad)) {
    Fatal("bad --threads item '" + bad + "'");
  }
  for (const auto& [text, t] : threads) {
    if (t != std::floor(t) || t > 64) Fatal("bad --threads item '" + text + "'");
  }
  if (!FLAGS_device_us.empty()) {
    double median_us = 0, mean_us = 0;
    std::string error;
    if (!ParseLatencyModel(FLAGS_device_us, &median_us, &mean_us, &error)) {
      Fatal("--device_us: " + error);
    }
    const LatencyModel model(median_us, mean_us);
    g_device_env = NewEmulatedDeviceEnv(model, FLAGS_seed).release();
    std::ostringstream device;
    device << "emulated(median_us=" << median_us << ",mean_us=" << mean_us << ")";
    g_device = device.str();
    std::fprintf(stderr, "[%s] emulated device: every SST read takes at least a draw of %s\n",
                 kProgram, model.Describe().c_str());
  }
  if (FLAGS_rounds < 1 || FLAGS_rounds > 1000) Fatal("--rounds must be in [1, 1000]");
  if (!FLAGS_csv.empty() && FLAGS_csv == FLAGS_plot) Fatal("--csv and --plot name the same file");
  if (!FLAGS_plot.empty() && FLAGS_csv.empty()) Fatal("--plot needs --csv (it plots the CSV)");
  for (const std::string& out : {FLAGS_csv, FLAGS_plot}) {
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::path(out).parent_path();
    if (!out.empty() && !parent.empty() && !std::filesystem::is_directory(parent, ec)) {
      Fatal("no directory " + parent.string() + " for " + out);
    }
  }
  std::vector<std::pair<std::string, double>> budgets;
  if (std::string bad; !ParseBitsPerKeyList(FLAGS_bits_per_key, &budgets, &bad)) {
    Fatal("bad value '" + bad + "' in --bits_per_key (want positive numbers)");
  }
  for (const std::string& policy : Policies()) {  // names only; empty ones are refused there
    PolicySpec spec;
    std::string error;
    if (policy == "none" || !MakePolicySpec(policy, "10", 10, {1000, -1}, &spec, &error)) {
      Fatal("bad policy '" + policy + "' in --policies: " + (error.empty() ? "a filter is needed" : error));
    }
  }
}

// The database directory under --db_dir (or a temporary root), loaded by
// this run or, with the same load flags, by an earlier one.
std::string LoadedDb() {
  std::string root = FLAGS_db_dir;
  if (root.empty()) {
    char tmpl[] = "/var/tmp/production_bench.XXXXXX";
    if (mkdtemp(tmpl) == nullptr) Fatal("cannot create a directory under /var/tmp");
    {
      std::lock_guard<std::mutex> lock(g_temp_root_mu);
      root = g_temp_root = tmpl;
    }
    std::atexit(RemoveTempRoot);
  }
  const bool loaded_before = PrepareDir(root);
  CheckDiskSpace(root, loaded_before);
  const std::string dir = root + "/db";
  if (loaded_before) {
    std::fprintf(stderr, "[%s] reusing the load in %s (%s)\n", kProgram, dir.c_str(),
                 LoadSignature().c_str());
  } else {
    Load(dir);
    std::ofstream(root + "/" + kMarker) << "loaded\n" << LoadSignature() << "\n";
  }
  return dir;
}

// Budgets are checked on the first workload's rows (the filters are the
// same for every workload of a policy and layout).
void WarnOffBudget(const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    if (std::fabs(row.BudgetDeviationPct()) > 3.0 && row.hit_percent == rows[0].hit_percent &&
        row.threads == rows[0].threads) {
      std::fprintf(stderr, "[%s] WARNING: %s @%g layout %c uses %.3f bits per key, %+.1f%% off budget\n",
                   kProgram, row.policy.c_str(), row.budget, row.layout, row.BudgetedBitsPerKey(),
                   row.BudgetDeviationPct());
    }
  }
}

int Main() {
  CheckFlags();
  HandleInterrupts();
  const auto wall_start = Clock::now();
  const std::string dir = LoadedDb();
  Shape loaded;
  {
    rdb::Options options = DbOptions(nullptr, 'a', 8 << 20, nullptr);
    std::unique_ptr<rdb::DB> db = Open(options, dir);
    loaded = ShapeOf(db.get());
    Check(db->Close(), "close");
  }
  const double files_per_miss = FilesPerMiss(dir);
  const uint64_t cache_bytes = FLAGS_block_cache_bytes
                                   ? FLAGS_block_cache_bytes
                                   : static_cast<uint64_t>(FLAGS_cache_fraction * loaded.sst_bytes);
  std::fprintf(stderr, "[%s] files per level %s, %.1f MiB of SST data, block cache %.1f MiB, %.2f files per absent key\n",
               kProgram, loaded.Files().c_str(), loaded.sst_bytes / 1048576.0,
               cache_bytes / 1048576.0, files_per_miss);

  std::vector<Row> rows;
  std::vector<std::string> copy_warnings;
  const std::vector<std::string> layouts = SplitCommas(FLAGS_layouts);
  size_t run = 0;
  for (const std::string& layout : layouts) {
    const std::vector<PolicySpec> specs = Specs(loaded, layout[0]);
    const std::string copies = CopiesDir(dir);
    if (FLAGS_rounds > 1) CopyLoad(dir, copies, specs.size(), loaded, cache_bytes);
    std::vector<Prepared> open;
    for (size_t i = 0; i < specs.size(); ++i) {
      const PolicySpec& spec = specs[i];
      const std::string label = spec.policy + " @" + spec.param + " layout " + layout + " (" +
                                std::to_string(++run) + " of " +
                                std::to_string(specs.size() * layouts.size()) + ")";
      const std::string at = FLAGS_rounds > 1 ? copies + "/" + std::to_string(i) : dir;
      Rewrite(at, spec, layout[0], loaded, label);
      open.push_back(Prepare(at, spec, layout[0], cache_bytes, loaded, files_per_miss, label));
      open.back().base.run = run;
      if (FLAGS_rounds == 1) {
        ProbeCopies(open);
        for (Row& row : RunTimedWorkloads(open)) rows.push_back(std::move(row));
        CloseAll(open);
      }
    }
    if (FLAGS_rounds > 1) {
      const double spread = ProbeCopies(open);
      if (spread > kCopySpreadWarning) {
        copy_warnings.push_back("WARNING: layout " + layout + ": the copies' files read " +
                                FormatNumber(spread, "%.2f") +
                                "x apart from the disk (median): ops/s ratios between the "
                                "policies hold that difference too");
        std::fprintf(stderr, "[%s] %s\n", kProgram, copy_warnings.back().c_str());
      }
      for (Row& row : RunTimedWorkloads(open)) rows.push_back(std::move(row));
      CloseAll(open);
      RemoveCopies(copies);
    }
  }
  const std::string header = Header(LoadSignature(), cache_bytes, FLAGS_direct_reads,
                                    AllocatorName(), OptimizeFiltersForMemory(), FLAGS_ops,
                                    FLAGS_min_seconds, FLAGS_rounds, g_device);
  PrintRows(rows, header);
  if (!FLAGS_csv.empty()) {
    if (!WriteRowsCsv(FLAGS_csv, rows, header)) Fatal("cannot write " + FLAGS_csv);
    g_csv_written = true;
  }
  if (!FLAGS_plot.empty()) PlotRows(FLAGS_csv, FLAGS_plot);
  std::fprintf(stderr, "[%s] done: %zu rows in %.0f s\n", kProgram, rows.size(), Seconds(wall_start));
  WarnOffBudget(rows);
  for (const std::string& warning : copy_warnings) {
    std::fprintf(stderr, "[%s] %s\n", kProgram, warning.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace sstfilter::bench

int main(int argc, char** argv) {
  const char* usage =
      "Loads a RocksDB larger than its block cache once, rewrites its files with each filter "
      "policy and measures device reads, ops/s and Get latency of hits and misses.";
  sstfilter::bench::StartBenchmark(&argc, &argv, "production_bench", usage, __FILE__,
                                   FLAGS_allocator);
  if (FLAGS_optimize_filters_for_memory != "auto" && FLAGS_optimize_filters_for_memory != "true" &&
      FLAGS_optimize_filters_for_memory != "false") {
    sstfilter::bench::Fatal("--optimize_filters_for_memory must be true, false or auto");
  }
  return sstfilter::bench::Main();
}
