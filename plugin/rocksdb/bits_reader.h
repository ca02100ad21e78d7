// RocksDB FilterBitsReader over the core readers (core/filter_reader.h).
#pragma once

#include "plugin/core/blocked_bloom.h"
#include "plugin/rocksdb/compat.h"

namespace sstfilter {

// The query path NewSstFilterBitsReader gives a BlockedBloom block: its
// kernel, and whether the straight-line one-group reader serves it (one
// line of at most eight probes per key, seed 0). Exposed for tests.
struct BlockedBloomPath {
  blocked_bloom::Kernel kernel;
  bool one_group;
};
BlockedBloomPath ChooseBlockedBloomPath(const BlockedBloomReader& core);

// Parses `contents` in place (RocksDB owns that memory and keeps it alive
// as long as the reader). Never fails: a block that cannot be trusted gives
// a reader that answers "may match" to everything.
ROCKSDB_NAMESPACE::FilterBitsReader* NewSstFilterBitsReader(
    const ROCKSDB_NAMESPACE::Slice& contents);

// The reader for any block under the shared family name: sstfilter's own
// for a block with version 2's or 3's byte at len - 5, else RocksDB's
// built-in reader (FastLocalBloom, Ribbon, legacy Bloom, always-true or
// -false), the same code RocksDB's own policies use.
ROCKSDB_NAMESPACE::FilterBitsReader* NewFamilyBitsReader(
    const ROCKSDB_NAMESPACE::Slice& contents);

}  // namespace sstfilter
