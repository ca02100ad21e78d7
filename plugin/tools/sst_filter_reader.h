// Reads what one SST file says about its filter: the table properties
// (through RocksDB's SstFileReader) and the filter block itself (located
// with sst_format.h and described with filter_block_info.h), without
// opening any database and without trusting a byte of the file.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "plugin/tools/filter_block_info.h"

namespace sstfilter::tools {

enum class FilterLayout { kNone, kFull, kPartitioned, kObsolete };

struct SstFilterReport {
  std::string path;
  uint64_t file_bytes = 0;
  // False if the file could not be read as a block-based SST at all (not
  // an SST, truncated, damaged footer or properties); `error` says why.
  bool readable = false;
  std::string error;
  bool missing = false;  // not readable: no such file (deleted since listed)
  // Table properties.
  std::string policy_name;    // rocksdb.filter.policy; empty: written without a policy
  uint64_t entries = 0;       // keys added to the filter (point entries if not recorded)
  // False for a file of range deletions only: RocksDB writes no filter for
  // it, and a lookup reads no data block there.
  bool point_keys = true;
  uint64_t filter_bytes = 0;  // rocksdb.filter.size
  // The filter meta block.
  FilterLayout layout = FilterLayout::kNone;
  std::string family;         // its name after the prefix: the CompatibilityName
  int partitions = 0;         // partitioned filters
  // What the filter costs held in memory: each block (every partition and
  // the partition index) at malloc_usable_size of its length + trailer.
  uint64_t allocated_bytes = 0;
  // The block (partitioned: the first partition; kind "mixed" if they
  // differ); block.usable false and block.problem set if it was damaged.
  FilterBlockInfo block;
  bool described = false;     // the family's encoding is known and the bytes were read
  double predicted_fp_rate = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::string> problems;  // damage found: checksums, bounds
};

// RocksDB's built-in filters have one metadata name and, since 7.0, a few
// aliases that its reader accepts (block_based_table_reader.cc,
// kBuiltinNameAndAliases).
bool IsBuiltinFamily(const std::string& family);

// The FP rate of one filter block of `bytes` in a table of `table_entries`:
// an sstfilter block that records its keys (versions 1 and 2) is predicted
// from them, any other block from the table's entries; 1 if not usable.
double PredictBlockFpRate(const FilterBlockInfo& info, uint64_t table_entries, size_t bytes);

// `verify_checksums`: check each filter block's trailer checksum (reads the
// whole block; without it, only the last bytes are needed, but they are
// read whole anyway to predict from them).
SstFilterReport ReadSstFilter(const std::string& path, bool verify_checksums);

}  // namespace sstfilter::tools
