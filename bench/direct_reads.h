// Random block reads straight from the disk (O_DIRECT), timed: what one
// data-block read that misses the block cache costs. device_latency times
// a file it writes; production_bench times each rewritten database's own
// SST files just before its timed workloads, so that copies the disk
// serves at different speeds show as such.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/latency.h"

namespace sstfilter::bench {

// True when `path` is on a file system held in memory (tmpfs, ramfs),
// where Linux takes O_DIRECT too from 6.6: its "direct" reads would be
// memory reads.
bool InMemoryFileSystem(const std::string& path);

// A file open for reading, and how many whole blocks it holds.
struct ReadTarget {
  int fd = -1;
  uint64_t blocks = 0;
};

// Appends to *us the microseconds of each of `reads` reads of
// `block_bytes` (a multiple of 4096) at random aligned offsets of
// `targets`, each drawn in proportion to its blocks (at least one block in
// all); `progress(i)` after read i if set. False, with the reason in *why,
// when a read fails or comes back short.
bool TimeRandomReads(const std::vector<ReadTarget>& targets, uint64_t reads, uint64_t block_bytes,
                     uint64_t seed, std::vector<double>* us, std::string* why,
                     const std::function<void(uint64_t)>& progress = nullptr);

// `reads` reads of `block_bytes` (a multiple of 4096) at random aligned
// offsets of `files`, opened with O_DIRECT, each file drawn in proportion
// to its size. False, with the reason in *why, when a file cannot be
// opened for direct reads, is in memory, is shorter than one block, or a
// read fails.
bool TimeDirectReads(const std::vector<std::string>& files, uint64_t reads, uint64_t block_bytes,
                     uint64_t seed, LatencySummary* out, std::string* why);

}  // namespace sstfilter::bench
