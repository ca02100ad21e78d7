// RocksDB's internal filter interface, the one place sstfilter includes it.
//
// FilterBitsBuilder/FilterBitsReader live in RocksDB's internal header
// table/block_based/filter_policy_internal.h. Inside a RocksDB tree (plugin
// build) that is RocksDB's own; standalone, CMake copies it from the source
// package of exactly the installed version, because the vtable layout differs
// between versions. Only the adapter (plugin/rocksdb/) and its own tests
// include this header; tools, benchmarks and other tests use filter_bits.h
// and api_compat.h (tests/include_check.sh).
//
// Interface changes handled here (table/block_based/filter_policy_internal.h
// of each release):
// - 9.6:  FilterBitsBuilder::AddKeyAndAlt(key, alt) became pure virtual.
// - 10.9: CalculateSpace/EstimatedFpRate moved into FilterBitsBuilder as
//         pure virtuals (before: only in BuiltinFilterBitsBuilder, which
//         10.9 removed).
#pragma once

#include "plugin/rocksdb/api_compat.h"
#include "table/block_based/filter_policy_internal.h"

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
// filter_bits.cc and the tests have it; the plugin's own sources never call
// this, because RocksDB's release build (in-tree) compiles with -fno-rtti.
inline ModelledBuilder* WithSpaceModel(ROCKSDB_NAMESPACE::FilterBitsBuilder* builder) {
  return dynamic_cast<ModelledBuilder*>(builder);
}
#endif

}  // namespace sstfilter::compat
