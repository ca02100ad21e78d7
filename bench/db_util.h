// Helpers of the benchmarks that run a RocksDB (lsm_bench, production_bench).
#pragma once

#include <chrono>
#include <string>

#include <rocksdb/status.h>

#include "bench/flag_help.h"

namespace sstfilter::bench {

// Exits with "what: status" unless `s` is ok.
inline void Check(const ROCKSDB_NAMESPACE::Status& s, const std::string& what) {
  if (!s.ok()) Fatal(what + ": " + s.ToString());
}

inline double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace sstfilter::bench
