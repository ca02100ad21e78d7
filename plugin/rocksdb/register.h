// Entry points that make the sstfilter policies known to RocksDB.
#pragma once

#include <string>
#include <vector>

#include <rocksdb/utilities/object_registry.h>

namespace sstfilter {

// Adds a factory for every sstfilter policy id to `library`, plus one that
// refuses any other "sstfilter.*" id; returns the number of policy ids.
int RegisterPolicies(ROCKSDB_NAMESPACE::ObjectLibrary& library);

// Ids of every registered policy ("sstfilter.StandardBloom", ...), for tools.
const std::vector<std::string>& PolicyIds();

}  // namespace sstfilter

// The plugin registrar, C linkage so RocksDB's generated build_version.cc can
// declare and call it (sstfilter_FUNC in sstfilter.mk).
extern "C" int RegisterSstFilter(ROCKSDB_NAMESPACE::ObjectLibrary& library,
                                 const std::string& arg);
