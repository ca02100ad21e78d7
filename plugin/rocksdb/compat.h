// The one place where RocksDB versions differ for sstfilter.
//
// FilterBitsBuilder/FilterBitsReader live in RocksDB's internal header
// table/block_based/filter_policy_internal.h. Inside a RocksDB tree (plugin
// build) that is RocksDB's own; standalone, CMake copies it from the source
// package of exactly the installed version, because the vtable layout differs
// between versions.
//
// Interface changes handled here (RocksDB's HISTORY.md and
// table/block_based/filter_policy_internal.h of each release):
// - 9.6:  FilterBitsBuilder::AddKeyAndAlt(key, alt) became pure virtual.
// - 8.0:  Cache moved to rocksdb/advanced_cache.h; Insert takes a
//         CacheItemHelper (with the entry's role) instead of a deleter.
// - 9.11.1: DB::Open / OpenForReadOnly into a std::unique_ptr<DB>; 11.0
//         removed the raw DB** forms (OpenDB below uses the unique_ptr form
//         from 10.0 on, the raw one before).
// - 11.0: Options::skip_checking_sst_file_sizes_on_db_open removed.
// - 10.9: CalculateSpace/EstimatedFpRate moved into FilterBitsBuilder as
//         pure virtuals (before: only in BuiltinFilterBitsBuilder, which
//         10.9 removed).
//
// Every file that needs FilterBitsBuilder/FilterBitsReader includes this
// header, never the internal one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>

#include "table/block_based/filter_policy_internal.h"

#define SSTF_ROCKSDB_AT_LEAST(major, minor) \
  (ROCKSDB_MAJOR > (major) || (ROCKSDB_MAJOR == (major) && ROCKSDB_MINOR >= (minor)))

#if SSTF_ROCKSDB_AT_LEAST(8, 0)
#include <rocksdb/advanced_cache.h>
#endif

#if SSTF_ROCKSDB_AT_LEAST(9, 6)
#define SSTF_HAS_ADD_KEY_AND_ALT 1
#else
#define SSTF_HAS_ADD_KEY_AND_ALT 0
#endif

// `override` where the base class declares the method, nothing before.
#if SSTF_ROCKSDB_AT_LEAST(10, 9)
#define SSTF_OVERRIDE_SPACE_METHODS override
#else
#define SSTF_OVERRIDE_SPACE_METHODS
#endif

namespace sstfilter::compat {

// A builder with RocksDB's size and FP model (CalculateSpace,
// EstimatedFpRate): since 10.9 every FilterBitsBuilder, before only the
// built-in ones (BuiltinFilterBitsBuilder).
#if SSTF_ROCKSDB_AT_LEAST(10, 9)
using ModelledBuilder = ROCKSDB_NAMESPACE::FilterBitsBuilder;
inline ModelledBuilder* WithSpaceModel(ROCKSDB_NAMESPACE::FilterBitsBuilder* builder) {
  return builder;
}
#elif defined(__GXX_RTTI)
using ModelledBuilder = ROCKSDB_NAMESPACE::BuiltinFilterBitsBuilder;
// Null for a builder that is not one of RocksDB's built-ins. Needs RTTI:
// the tools, tests and benchmarks have it; the adapter never calls this, and
// RocksDB's own release build (the in-tree plugin) compiles with -fno-rtti.
inline ModelledBuilder* WithSpaceModel(ROCKSDB_NAMESPACE::FilterBitsBuilder* builder) {
  return dynamic_cast<ModelledBuilder*>(builder);
}
#endif

}  // namespace sstfilter::compat

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
#if SSTF_ROCKSDB_AT_LEAST(8, 0)
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
