// Measurement helpers for lsm_bench: what a set of lookups cost in filter
// answers and data-block reads, what the SST files say about their filters,
// and which files a lookup has to consult.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/statistics.h>

#include "bench/latency.h"

namespace sstfilter::bench {

constexpr int kMaxLevels = 7;  // RocksDB's default num_levels

// Filter answers of one level, from the per-level perf context. All L0 files
// count as level 0.
struct LevelFilterCounts {
  uint64_t useful = 0;         // filter said "no"
  uint64_t positive = 0;       // filter said "may match"
  uint64_t true_positive = 0;  // ... and the key was in that file
  // Blocks of the level's files not found in the block cache, so read from
  // the file (with direct reads, from the device); 0 without a block cache.
  uint64_t cache_misses = 0;
  uint64_t false_positives() const { return positive - true_positive; }
  uint64_t checks() const { return useful + positive; }
  void Add(const LevelFilterCounts& other) {
    useful += other.useful;
    positive += other.positive;
    true_positive += other.true_positive;
    cache_misses += other.cache_misses;
  }
  LevelFilterCounts Minus(const LevelFilterCounts& before) const {
    return {useful - before.useful, positive - before.positive,
            true_positive - before.true_positive, cache_misses - before.cache_misses};
  }
};

// The calling thread's per-level counts so far (EnableLookupCounting).
std::map<int, LevelFilterCounts> ThreadLevelCounts();

// Cumulative counters of the calling thread and the DB's statistics; take
// one before and one after a set of lookups and subtract.
//
// Data-block reads: with no block cache (lsm_bench's default) every data
// block a lookup touches is read from the file and counted by the perf
// context's block_read_count; index and filter blocks are held by the open
// table readers (cache_index_and_filter_blocks=false, max_open_files=-1),
// so after DB::Open lookups read nothing else, and the few index/filter/
// dictionary reads there could be are subtracted anyway. With a block cache,
// a data block access is a cache hit or a cache miss, so the data hit + miss
// tickers count accesses whether or not they reached the file.
struct LookupCounters {
  uint64_t useful = 0;
  uint64_t positive = 0;
  uint64_t true_positive = 0;
  uint64_t data_block_reads = 0;     // perf context, reads with I/O
  uint64_t data_cache_accesses = 0;  // tickers: data block cache hit + miss
  std::map<int, LevelFilterCounts> by_level;

  // Needs SetPerfLevel(kEnableCount) and EnablePerLevelPerfContext() on the
  // calling thread (EnableLookupCounting does both).
  static LookupCounters Capture(ROCKSDB_NAMESPACE::Statistics* statistics);
  LookupCounters Minus(const LookupCounters& before) const;
  uint64_t false_positives() const { return positive - true_positive; }
};

void EnableLookupCounting();

// Files, keys and filter memory of a set of SST files.
struct TableCounts {
  uint64_t files = 0;
  uint64_t entries = 0;         // filter entries (num_entries if not recorded)
  uint64_t filter_bytes = 0;    // sum of filter_size
  // Sum over filters of the allocator's usable size of filter_size + 5:
  // what the block cache is charged for them (see memory_bench.cc).
  uint64_t alloc_bytes = 0;
  double BitsPerKey() const { return entries ? filter_bytes * 8.0 / entries : 0; }
  double AllocBitsPerKey() const { return entries ? alloc_bytes * 8.0 / entries : 0; }
};

// What the table properties of every live SST file say.
struct TableSummary : TableCounts {
  TableCounts by_level[kMaxLevels];
  std::vector<std::string> wrong_policy;  // "file: 'name'" for every mismatch
};

// Reads every table's properties and checks that each names one of
// `expected_policies` (one empty name: no filter) and, if a filter is
// expected, has a non-empty one; with `some_unfiltered` (a policy that
// leaves out the bottommost level's filters) at least one file must have
// one. Two names: the files of a database part-way through a switch.
TableSummary SummarizeTables(ROCKSDB_NAMESPACE::DB* db,
                             const std::vector<std::string>& expected_policies,
                             bool some_unfiltered);

class FileRanges {
 public:
  explicit FileRanges(ROCKSDB_NAMESPACE::DB* db);
  int FilesFor(const ROCKSDB_NAMESPACE::Slice& key) const;
  // The file numbers of those files (appended to *numbers).
  void FileNumbersFor(const ROCKSDB_NAMESPACE::Slice& key, std::vector<uint64_t>* numbers) const;
  // "L0..L6 files: 2 1 9 ..." style counts, one per level, '/' separated.
  std::string Shape() const;
  int NonEmptyLevels() const;

 private:
  struct Range {
    std::string smallest, largest;
    uint64_t number;
  };
  // Calls fn(range) for every file whose key range holds `key`.
  template <class Fn>
  void ForEachFileFor(const ROCKSDB_NAMESPACE::Slice& key, Fn fn) const;
  std::vector<Range> levels_[kMaxLevels];  // sorted by smallest for L1+
};

// Polls until no flush or compaction is running, nor (if
// `include_pending_compactions`) waiting to be scheduled. With automatic
// compactions disabled a compaction can stay pending for ever: pass false.
void WaitForBackgroundWork(ROCKSDB_NAMESPACE::DB* db, bool include_pending_compactions);

}  // namespace sstfilter::bench
