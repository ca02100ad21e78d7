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
// is >= 1; L0 goes whole into L1, a deeper level gives its next file in
// key order (round robin, as compaction_pri=kRoundRobin) to the level below.
// RocksDB's compaction job does the work (DB::CompactFiles), writing each
// output file, and its filter, exactly as an automatic compaction would.
#pragma once

#include <cstdint>
#include <string>

#include <rocksdb/db.h>

#include "bench/lsm_stats.h"

namespace sstfilter::bench {

struct LeveledShape {
  int l0_trigger = 4;
  uint64_t level_base_bytes = 0;      // L1 target
  double level_multiplier = 10;
  uint64_t target_file_bytes = 0;     // L1 files
  int target_file_multiplier = 1;
};

class LeveledCompactor {
 public:
  explicit LeveledCompactor(const LeveledShape& shape) : shape_(shape) {}

  // Compacts until no level is over its target; returns the number of
  // compactions run. The DB must have automatic compactions disabled.
  ROCKSDB_NAMESPACE::Status CompactUntilSettled(ROCKSDB_NAMESPACE::DB* db, int* compactions);

 private:
  uint64_t TargetBytes(int level) const;
  uint64_t FileBytes(int output_level) const;

  LeveledShape shape_;
  std::string cursor_[kMaxLevels];  // largest key of the last file picked per level
};

}  // namespace sstfilter::bench
