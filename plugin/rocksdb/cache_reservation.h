// Filter construction memory charged to the block cache, as RocksDB's
// built-in builders do when BlockBasedTableOptions::cache_usage_options
// charges CacheEntryRole::kFilterConstruction: the buffered key hashes
// while keys are added, and Ribbon's banding memory while it is solved.
// The reservation is value-less cache entries of 256 KiB each (RocksDB's
// CacheReservationManager granularity, which is internal), pinned until
// released, so the cache's usage rises and falls with the builder's memory
// and a full cache with strict_capacity_limit refuses it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <rocksdb/table.h>

#include "plugin/rocksdb/api_compat.h"

namespace sstfilter {

// True if `table_options` asks for filter construction to be charged and
// has a block cache to charge.
bool ChargesFilterConstruction(const ROCKSDB_NAMESPACE::BlockBasedTableOptions& table_options);

class CacheReservation {
 public:
  static constexpr size_t kEntryBytes = 256 * 1024;

  explicit CacheReservation(std::shared_ptr<ROCKSDB_NAMESPACE::Cache> cache);
  ~CacheReservation() { ReleaseAll(); }
  CacheReservation(const CacheReservation&) = delete;
  CacheReservation& operator=(const CacheReservation&) = delete;

  // Grows the reservation to at least `bytes` (whole entries). False if the
  // cache refused an entry; what was reserved before stays.
  bool ReserveAtLeast(size_t bytes);
  void ReleaseAll();
  size_t reserved_bytes() const { return handles_.size() * kEntryBytes; }

 private:
  std::shared_ptr<ROCKSDB_NAMESPACE::Cache> cache_;
  std::vector<ROCKSDB_NAMESPACE::Cache::Handle*> handles_;
  uint64_t id_;  // distinguishes this reservation's keys from others'
};

}  // namespace sstfilter
