// sstfilter: filter policies for RocksDB SST files. The interface for
// programs that link libsstfilter (find_package(sstfilter), pkg-config
// sstfilter, or -lsstfilter).
//
// Call sstfilter::RegisterAll() (or NewFilterPolicy) once before RocksDB
// reads options. The call is what keeps the library in the program: a
// linker that drops libraries a program calls nothing from (Debian's
// default --as-needed) would otherwise drop libsstfilter, its load-time
// registration would never run, and RocksDB's default ConfigOptions
// (ignore_unsupported_options = true) would turn "sstfilter.Ribbon:10"
// into no filter at all, with an OK status.
#pragma once

#include <memory>
#include <string>

#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/status.h>
#include <rocksdb/utilities/object_registry.h>

namespace sstfilter {

// Makes every sstfilter policy id ("sstfilter.StandardBloom",
// "sstfilter.BlockedBloom", "sstfilter.Ribbon", "sstfilter.LevelAware")
// known to RocksDB's default object library, which every ConfigOptions,
// options string and OPTIONS file sees. Idempotent: a second call, or one
// after the load-time registration, registers nothing again. NotSupported,
// and nothing registered, if the RocksDB loaded at run time is not the
// version this library was built against: the filter builder and reader
// interfaces are internal to RocksDB and change between versions.
ROCKSDB_NAMESPACE::Status RegisterAll();

// The same, into `library` (e.g. a private ObjectRegistry's library).
ROCKSDB_NAMESPACE::Status RegisterAll(ROCKSDB_NAMESPACE::ObjectLibrary& library);

// Creates a policy from its id as options strings and OPTIONS files write
// it: "sstfilter.Ribbon:10", "{id=sstfilter.Ribbon;fp_rate=0.01}". Calls
// RegisterAll() first. Never OK without a policy: an unknown id or a bad
// option value is InvalidArgument, a RocksDB version mismatch NotSupported.
ROCKSDB_NAMESPACE::Status NewFilterPolicy(
    const std::string& id, std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>* policy);

// The RocksDB version this library was built against, e.g. "7.8.3".
const char* RocksDBVersionBuiltAgainst();

// Shows sstfilter.LevelAware the shape of `db` now, as its next flush or
// automatic compaction would: for a program that opens a database and
// rewrites files with DB::CompactFiles before either (that path names no
// DB to the listener, so LevelAware would keep to its budget uniformly).
// NotFound if `db` has no sstfilter.LsmShape listener (DBOptions
// listeners={sstfilter.LsmShape}).
ROCKSDB_NAMESPACE::Status ObserveLsmShape(ROCKSDB_NAMESPACE::DB* db);

}  // namespace sstfilter
