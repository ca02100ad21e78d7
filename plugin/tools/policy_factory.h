// The one way the benchmarks and the `sstfilter` tool turn a filter name
// and a memory setting into a FilterPolicy, so every comparison builds
// RocksDB's built-ins and sstfilter's kinds the same way.
//
//   rocksdb.Bloom   NewBloomFilterPolicy(bits_per_key)
//   rocksdb.Ribbon  NewRibbonFilterPolicy(setting, bloom_before_level). Its
//                   setting is "Bloom-equivalent" (10 gives ~7 actual bits
//                   per key); with ribbon_same_memory the setting is the one
//                   whose filters take bits_per_key actual bits per key.
//   anything else   the registered id "<name>:<bits_per_key>", or with
//                   options ("<name>/opt=v/opt2=w")
//                   "{id=<name>;bits_per_key=<b>;opt=v;opt2=w}". Unknown
//                   ids are refused, never turned into "no filter".
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <rocksdb/filter_policy.h>
#include <rocksdb/status.h>

namespace sstfilter::tools {

struct PolicyRequest {
  std::string filter;  // e.g. "rocksdb.Ribbon", "sstfilter.BlockedBloom/lines_per_key=2"
  double bits_per_key = 10;
  // rocksdb.Ribbon only.
  bool ribbon_same_memory = false;
  uint64_t ribbon_calibration_keys = 1000000;  // a typical filter's keys
  int ribbon_bloom_before_level = 0;            // RocksDB's default
};

struct MadePolicy {
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy;
  // What was made, for people: "NewBloomFilterPolicy(10)",
  // "NewRibbonFilterPolicy(14.6; bloom_before_level=-1)" (no commas: it
  // lands in CSV cells) or the id.
  std::string setting;
  // The number given to NewBloomFilterPolicy / NewRibbonFilterPolicy, or
  // the id for a registered policy.
  std::string short_setting;
};

// InvalidArgument naming the known filters if `request.filter` is not one.
ROCKSDB_NAMESPACE::Status MakeFilterPolicy(const PolicyRequest& request, MadePolicy* out);

// The id a registered policy is created from (see the top of this file).
std::string PolicyIdFor(const std::string& filter, double bits_per_key);

// "rocksdb.Bloom, rocksdb.Ribbon, sstfilter.BlockedBloom, ...": for errors.
std::string KnownFilterNames();

}  // namespace sstfilter::tools
