// Deterministic leveled compaction for lsm_bench, so that every filter policy
// is measured on the same LSM, file for file.
//
// Why not RocksDB's own picker: it sizes levels by whole SST files, filter
// blocks included, so two policies with slightly different filter memory
// (10.08 vs 9.93 bits per key) cross a level's size target at different
// moments and end with different shapes. Measured: four policies at 10 bits
// per key, flushed and compacted identically, consulted 5.03 to 5.19 files
// per absent key, a spread of 3%, as large as the FP difference between
// some filters. This picker makes the same decisions from data bytes only.
//
// It follows RocksDB's leveled scheme (max_bytes_for_level_base, multiplier,
// level0_file_num_compaction_trigger): the level with the highest score
// (L0: files / trigger; Ln: data bytes / target) is compacted while a score
// is >= 1; L0 goes whole into the base level, a deeper level gives its next
// file in key order (round robin, as compaction_pri=kRoundRobin) to the
// level below.
//
// Level targets are RocksDB's for level_compaction_dynamic_level_bytes
// (VersionStorageInfo::CalculateBaseBytes, 7.8.3), the default since RocksDB
// 8.4: the last level (num_levels - 1) takes whatever it holds, each level
// above it a multiplier-th of the one below, and L0 compacts into the first
// level whose target reaches max_bytes_for_level_base (the base level); no
// target is below max_bytes_for_level_base. So the last level holds about
// (T-1)/T of the data, as in a DB in steady state. With `dynamic` off,
// the static targets: L1 = max_bytes_for_level_base, times the multiplier
// per level, and L0 compacts into L1; the deepest non-empty level then
// holds whatever is left over, often no more than the level above it.
// RocksDB's compaction job does the work (DB::CompactFiles), writing each
// output file, and its filter, exactly as an automatic compaction would.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/metadata.h>

#include "bench/lsm_stats.h"

namespace sstfilter::bench {

// One SST file a build wrote, flushes and compaction outputs alike.
struct BuiltFile {
  uint64_t number = 0;
  int level = 0;
  uint64_t keys = 0;
};

// Appends the output files of a finished compaction, at info.output_level.
void AppendOutputs(const ROCKSDB_NAMESPACE::CompactionJobInfo& info,
                   std::vector<BuiltFile>* files);

struct LeveledShape {
  int l0_trigger = 4;
  uint64_t level_base_bytes = 0;      // max_bytes_for_level_base
  double level_multiplier = 10;
  uint64_t target_file_bytes = 0;     // target_file_size_base
  int target_file_multiplier = 1;
  bool dynamic = true;                // level_compaction_dynamic_level_bytes
};

class LeveledCompactor {
 public:
  // With `outputs` set, every compaction output file is appended to it.
  explicit LeveledCompactor(const LeveledShape& shape, std::vector<BuiltFile>* outputs = nullptr)
      : shape_(shape), outputs_(outputs) {}

  // Compacts until no level is over its target; returns the number of
  // compactions run. The DB must have automatic compactions disabled.
  ROCKSDB_NAMESPACE::Status CompactUntilSettled(ROCKSDB_NAMESPACE::DB* db, int* compactions);

 private:
  // Target bytes per level (0 for levels that take no compaction input:
  // L0, levels above the base level, the last level) from the data bytes
  // each holds; sets *base_level, where L0 compacts to.
  std::vector<uint64_t> Targets(const std::vector<uint64_t>& level_bytes, int* base_level) const;
  // Output file size of a compaction into `output_level`
  // (RocksDB's MaxFileSizeForLevel).
  uint64_t FileBytes(int output_level, int base_level) const;

  // Files per level, L1 and below in key order.
  using Levels = std::vector<std::vector<ROCKSDB_NAMESPACE::SstFileMetaData>>;
  // The live files by level, and each level's data and index bytes (the
  // filter left out, so that it cannot steer the compactions).
  ROCKSDB_NAMESPACE::Status ReadLevels(ROCKSDB_NAMESPACE::DB* db, Levels* levels,
                                       std::vector<uint64_t>* level_bytes) const;
  // The level to compact, scored as RocksDB's leveled picker scores them;
  // -1 when none is due.
  int PickLevel(const Levels& levels, const std::vector<uint64_t>& level_bytes,
                const std::vector<uint64_t>& targets) const;
  // Inputs: all of L0, or the level's next file in key order; plus every
  // file of `output_level` they overlap.
  std::vector<std::string> PickInputs(const Levels& levels, int level, int output_level);

  LeveledShape shape_;
  std::vector<BuiltFile>* outputs_;
  std::string cursor_[kMaxLevels];  // largest key of the last file picked per level
};

}  // namespace sstfilter::bench
