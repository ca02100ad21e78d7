// RocksDB FilterBitsReader over the core readers (core/filter_reader.h).
#pragma once

#include "plugin/rocksdb/compat.h"

namespace sstfilter {

// Parses `contents` in place (RocksDB owns that memory and keeps it alive
// as long as the reader). Never fails: a block that cannot be trusted gives
// a reader that answers "may match" to everything.
ROCKSDB_NAMESPACE::FilterBitsReader* NewSstFilterBitsReader(
    const ROCKSDB_NAMESPACE::Slice& contents);

}  // namespace sstfilter
