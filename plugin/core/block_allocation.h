// How RocksDB holds a filter block read back from disk: one allocation of
// its length plus the 5-byte block trailer, from the process's malloc (what
// RocksDB's built-in builders size for too), charged at malloc_usable_size.
// A block cache with its own MemoryAllocator is not seen here. No RocksDB
// headers: the facts are RocksDB's format, the allocator is the process's.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "plugin/core/alloc_fit.h"

namespace sstfilter {

// malloc_usable_size of a fresh allocation of `request` bytes (operator
// new, as RocksDB allocates: under jemalloc, LD_PRELOAD or linked, it is
// jemalloc's); `request` where the C library has no malloc_usable_size.
size_t MallocUsableSize(size_t request);

// The bytes a filter block of `filter_bytes` really costs as RocksDB holds it.
inline size_t AllocatedBlockBytes(size_t filter_bytes) {
  return MallocUsableSize(filter_bytes + kBlockTrailerBytes);
}

// The AllocatorFit for such blocks, rounding on `balance`. Where the C
// library has no malloc_usable_size, no fit (lengths as configured).
AllocatorFit AllocatorFitForBlocks(std::atomic<int64_t>* balance);

}  // namespace sstfilter
