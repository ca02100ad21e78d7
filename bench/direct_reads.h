// Random block reads straight from the disk (O_DIRECT), timed: what one
// data-block read that misses the block cache costs. device_latency times
// a file it writes; production_bench times each rewritten database's own
// SST files just before its timed workloads, so that copies the disk
// serves at different speeds show as such.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/latency.h"

namespace sstfilter::bench {

// True when `path` is on a file system held in memory (tmpfs, ramfs),
// where Linux takes O_DIRECT too from 6.6: its "direct" reads would be
// memory reads.
bool InMemoryFileSystem(const std::string& path);

// `reads` reads of `block_bytes` (a multiple of 4096) at random aligned
// offsets of `files`, each file drawn in proportion to its size. False,
// with the reason in *why, when a file cannot be opened for direct reads,
// is in memory, is shorter than one block, or a read fails.
bool TimeDirectReads(const std::vector<std::string>& files, uint64_t reads, uint64_t block_bytes,
                     uint64_t seed, LatencySummary* out, std::string* why);

}  // namespace sstfilter::bench
