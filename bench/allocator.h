// --allocator=jemalloc|system for the benchmarks. RocksDB's production
// builds use jemalloc, whose size classes decide what a filter block really
// costs (plugin/core/alloc_fit.h); Debian's librocksdb uses glibc malloc.
// "jemalloc" re-runs the program with Debian's libjemalloc2 preloaded, so
// RocksDB, sstfilter and the benchmark all allocate from it.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace sstfilter::bench {

inline constexpr const char* kJemallocPath = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";

// True if malloc in this process is jemalloc's (it exports mallctl).
inline bool RunningOnJemalloc() { return dlsym(RTLD_DEFAULT, "mallctl") != nullptr; }

// For "jemalloc": re-executes the program with jemalloc preloaded, unless
// it already runs on it; returns false (with a message) if that cannot be
// done. For "system": true. Call before anything allocates much.
inline bool UseAllocator(const std::string& allocator, char** argv, std::string* error) {
  if (allocator == "system") return true;
  if (allocator != "jemalloc") {
    *error = "--allocator must be jemalloc or system, not '" + allocator + "'";
    return false;
  }
  if (RunningOnJemalloc()) return true;
  if (std::getenv("SSTFILTER_BENCH_REEXEC") != nullptr) {
    *error = "jemalloc preloaded but not in effect";
    return false;
  }
  if (access(kJemallocPath, R_OK) != 0) {
    *error = std::string(kJemallocPath) + " not found (apt-get install libjemalloc2)";
    return false;
  }
  const char* old = std::getenv("LD_PRELOAD");
  const std::string preload =
      std::string(kJemallocPath) + (old != nullptr && *old ? std::string(":") + old : "");
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv("SSTFILTER_BENCH_REEXEC", "1", 1);
  std::fflush(nullptr);
  execv("/proc/self/exe", argv);
  *error = std::string("cannot re-execute with jemalloc: ") + std::strerror(errno);
  return false;
}

// What the run's allocator is, for headers: "jemalloc" or "system".
inline const char* AllocatorName() { return RunningOnJemalloc() ? "jemalloc" : "system"; }

}  // namespace sstfilter::bench
