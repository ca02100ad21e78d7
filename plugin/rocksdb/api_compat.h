// The public RocksDB API as it differs between versions, for everything
// that opens databases, uses caches or sets table options. Only RocksDB's
// public headers: the internal filter interface is compat.h's, which the
// builder/reader adapter includes.
//
// Changes handled here (RocksDB's HISTORY.md):
// - 8.0:  Cache moved to rocksdb/advanced_cache.h; Insert takes a
//         CacheItemHelper (with the entry's role) instead of a deleter.
// - 9.11.1: DB::Open / OpenForReadOnly into a std::unique_ptr<DB>; 11.0
//         removed the raw DB** forms (OpenDB below uses the unique_ptr form
//         from 10.0 on, the raw one before).
// - 11.0: Options::skip_checking_sst_file_sizes_on_db_open removed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>

#define SSTF_ROCKSDB_AT_LEAST(major, minor) \
  (ROCKSDB_MAJOR > (major) || (ROCKSDB_MAJOR == (major) && ROCKSDB_MINOR >= (minor)))

#if SSTF_ROCKSDB_AT_LEAST(8, 0)
#include <rocksdb/advanced_cache.h>
#endif

namespace sstfilter::compat {

// Inserts a value-less entry of `charge` bytes, role kFilterConstruction,
// pinned through *handle until released: how RocksDB reserves cache
// capacity for memory it holds elsewhere (its CacheReservationManager is
// internal). Fails (Incomplete / MemoryLimit) when a cache with
// strict_capacity_limit is full.
inline ROCKSDB_NAMESPACE::Status InsertReservation(ROCKSDB_NAMESPACE::Cache* cache,
                                                   const ROCKSDB_NAMESPACE::Slice& key,
                                                   size_t charge,
                                                   ROCKSDB_NAMESPACE::Cache::Handle** handle) {
#if SSTF_ROCKSDB_AT_LEAST(7, 10)
  static const ROCKSDB_NAMESPACE::Cache::CacheItemHelper kHelper(
      ROCKSDB_NAMESPACE::CacheEntryRole::kFilterConstruction);
  return cache->Insert(key, nullptr, &kHelper, charge, handle);
#else
  return cache->Insert(key, nullptr, charge, [](const ROCKSDB_NAMESPACE::Slice&, void*) {},
                       handle);
#endif
}

}  // namespace sstfilter::compat

namespace sstfilter::compat {

inline ROCKSDB_NAMESPACE::Status OpenDB(const ROCKSDB_NAMESPACE::Options& options,
                                        const std::string& path,
                                        std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
#if SSTF_ROCKSDB_AT_LEAST(10, 0)
  return ROCKSDB_NAMESPACE::DB::Open(options, path, db);
#else
  ROCKSDB_NAMESPACE::DB* raw = nullptr;
  const ROCKSDB_NAMESPACE::Status s = ROCKSDB_NAMESPACE::DB::Open(options, path, &raw);
  db->reset(raw);
  return s;
#endif
}

inline ROCKSDB_NAMESPACE::Status OpenDBForReadOnly(const ROCKSDB_NAMESPACE::Options& options,
                                                   const std::string& path,
                                                   std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
#if SSTF_ROCKSDB_AT_LEAST(10, 0)
  return ROCKSDB_NAMESPACE::DB::OpenForReadOnly(options, path, db);
#else
  ROCKSDB_NAMESPACE::DB* raw = nullptr;
  const ROCKSDB_NAMESPACE::Status s =
      ROCKSDB_NAMESPACE::DB::OpenForReadOnly(options, path, &raw);
  db->reset(raw);
  return s;
#endif
}

inline ROCKSDB_NAMESPACE::Status OpenDBForReadOnly(
    const ROCKSDB_NAMESPACE::DBOptions& options, const std::string& path,
    const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& column_families,
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles,
    std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
#if SSTF_ROCKSDB_AT_LEAST(10, 0)
  return ROCKSDB_NAMESPACE::DB::OpenForReadOnly(options, path, column_families, handles, db);
#else
  ROCKSDB_NAMESPACE::DB* raw = nullptr;
  const ROCKSDB_NAMESPACE::Status s = ROCKSDB_NAMESPACE::DB::OpenForReadOnly(
      options, path, column_families, handles, &raw);
  db->reset(raw);
  return s;
#endif
}

// Opening does not stat every SST file to compare its size with the
// MANIFEST (an option until 11.0, which dropped that check's switch).
inline void SkipSstFileSizeCheckAtOpen(ROCKSDB_NAMESPACE::Options* options) {
#if SSTF_ROCKSDB_AT_LEAST(11, 0)
  (void)options;
#else
  options->skip_checking_sst_file_sizes_on_db_open = true;
#endif
}

// Table options whose filters have exactly the length their bits per key
// give: optimize_filters_for_memory (off before 9.2, on from 9.2) picks each
// length for the allocator's size classes and keeps an FP balance across
// filters, so lengths then depend on the allocator and on earlier filters.
inline ROCKSDB_NAMESPACE::BlockBasedTableOptions ExactLengthTableOptions() {
  ROCKSDB_NAMESPACE::BlockBasedTableOptions table;
  table.optimize_filters_for_memory = false;
  return table;
}

}  // namespace sstfilter::compat
