// Just enough of RocksDB's block-based table format to find the filter block
// of an SST file without opening it through RocksDB:
//
//   file:   [data blocks][filter block(s)][index][other meta blocks][metaindex]
//           [footer]
//   footer (format_version 1..5, 53 bytes):
//           checksum type u8 | metaindex handle | index handle | zero padding
//           to 41 bytes | format_version u32le | magic u64le
//   footer (legacy, format_version 0, 48 bytes): the two handles, padding,
//           the legacy magic; checksums are CRC32c.
//   footer (format_version 6 and 7, RocksDB 8.6+ and 10.4+, 53 bytes):
//     0     1            5         9             13         17        33        41       45     53
//     +-----+------------+---------+-------------+----------+---------+---------+--------+------+
//     |ck.  |3e 00 7a 00 |footer   |base_context |metaindex |ignored  |reserved |format_ |magic |
//     |type |extended    |checksum |_checksum    |size      |16 bytes |8 bytes  |version |      |
//     |u8   |magic       |u32le    |u32le, != 0  |u32le     |         |zero     |u32le   |u64le |
//     +-----+------------+---------+-------------+----------+---------+---------+--------+------+
//     The metaindex block and its trailer end where the footer starts; the
//     index handle moved into the metaindex, as the entry "rocksdb.index".
//     The footer checksum covers all 53 bytes with its own field zeroed,
//     plus the context modifier at the footer's offset (block_checksum.h).
//     Nonzero reserved bytes mark a future feature. Version 7 added custom
//     compression (a CompressionManager) and changed the table property
//     compression_name: data blocks only, nothing read here.
//   handle: varint64 offset, varint64 size (size excludes the block trailer)
//   block trailer (5 bytes after every block): compression type u8 |
//           checksum u32le over the block and the compression type byte
//           (format_version >= 6: plus the context modifier at its offset)
//   block:  entries | restart offsets u32le... | num_restarts u32le
//   entry:  varint32 shared | varint32 non_shared | varint32 value_size |
//           key bytes [shared..] | value
//
// The metaindex maps names to handles: "fullfilter.<CompatibilityName>" is a
// full filter, "partitionedfilter.<CompatibilityName>" the index of a
// partitioned one, "filter.<name>" the obsolete block-based filter. Filter
// blocks are always stored uncompressed.
//
// Source: RocksDB 7.8.3 table/format.{h,cc}, table/block_based/
// block_builder.cc, block_based_table_builder.cc; RocksDB 11.8.1
// table/format.cc (Footer::DecodeFrom) and block_based_table_reader.cc
// (the index handle from the metaindex). Newer format versions are refused
// with a clear error.
//
// Every byte is untrusted: each function bounds-checks everything, never
// reads outside its input, and returns false with a reason in *error.
// Nothing here includes RocksDB headers (tests/fuzz feed it random bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plugin/core/alloc_fit.h"  // kBlockTrailerBytes

namespace sstfilter::tools {

constexpr uint64_t kBlockBasedTableMagic = 0x88e241b785f4cff7ULL;
constexpr uint64_t kLegacyBlockBasedTableMagic = 0xdb4775248b80fb57ULL;
constexpr uint64_t kPlainTableMagic = 0x8242229663bf9564ULL;
constexpr uint64_t kLegacyPlainTableMagic = 0x4f3418eb7a8f13b8ULL;
constexpr uint64_t kCuckooTableMagic = 0x926789d0c5f17873ULL;

constexpr size_t kLegacyFooterBytes = 48;
constexpr size_t kFooterBytes = 53;
// Newest format_version this parser reads (RocksDB 11's default).
constexpr uint32_t kMaxFooterFormatVersion = 7;
// First format_version with the checksummed footer and context checksums.
constexpr uint32_t kContextChecksumFormatVersion = 6;

constexpr std::string_view kFullFilterPrefix = "fullfilter.";
constexpr std::string_view kPartitionedFilterPrefix = "partitionedfilter.";
constexpr std::string_view kObsoleteFilterPrefix = "filter.";
constexpr std::string_view kIndexMetaName = "rocksdb.index";

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;  // block contents, trailer excluded
};

enum class TableType { kBlockBased, kPlain, kCuckoo };

struct Footer {
  TableType table_type = TableType::kBlockBased;
  uint32_t format_version = 0;  // 0: legacy footer
  uint8_t checksum_type = 0;    // 0 none, 1 CRC32c, 2 xxHash, 3 xxHash64, 4 XXH3
  // format_version >= 6: nonzero, the base of every checksum's context
  // (block_checksum.h). 0 before.
  uint32_t base_context_checksum = 0;
  BlockHandle metaindex;
  // Before format_version 6 only; from 6 on it stays {0, 0} and the index
  // handle is the metaindex entry kIndexMetaName (IndexHandle below).
  BlockHandle index;
};

// Parses the footer from `tail`, the last min(file_size, kFooterBytes)
// bytes of a file of `file_size` bytes, and checks that its handles (with
// their trailers) lie inside the file. From format_version 6 on, also
// checks the footer's own checksum and reserved bytes, as RocksDB does on
// every open: such a footer that parses is one RocksDB would accept. Plain and cuckoo tables are
// recognised and returned with only table_type set.
bool ParseFooter(std::string_view tail, uint64_t file_size, Footer* footer,
                 std::string* error);

// True if the block and its trailer lie inside a file of `file_size` bytes.
bool HandleInFile(const BlockHandle& handle, uint64_t file_size);

struct MetaIndexEntry {
  std::string name;
  BlockHandle handle;
};

// Parses the contents of a metaindex block (trailer excluded).
bool ParseMetaIndex(std::string_view block, std::vector<MetaIndexEntry>* entries,
                    std::string* error);

// The handle of the table's index block: the footer's before format_version
// 6, the metaindex entry kIndexMetaName from then on (not yet checked to lie
// in the file: HandleInFile). False if the metaindex has no such entry.
bool IndexHandle(const Footer& footer, const std::vector<MetaIndexEntry>& metaindex,
                 BlockHandle* index);

// Parses the index block of a partitioned filter: the handles of its
// partitions, in order. `value_delta_encoded` is the table property
// index_value_is_delta_encoded (format_version >= 4): entries then carry no
// value size, and an entry that shares key bytes with the previous one
// stores only its size difference, its offset following the previous
// partition and its trailer.
bool ParsePartitionIndex(std::string_view block, bool value_delta_encoded,
                         std::vector<BlockHandle>* partitions, std::string* error);

}  // namespace sstfilter::tools
