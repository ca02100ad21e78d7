#include "bench/direct_reads.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>

namespace sstfilter::bench {

bool InMemoryFileSystem(const std::string& path) {
  struct statfs fs {};
  if (statfs(path.c_str(), &fs) != 0) return false;
  return fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC;
}

bool TimeRandomReads(const std::vector<ReadTarget>& targets, uint64_t reads, uint64_t block_bytes,
                     uint64_t seed, std::vector<double>* us, std::string* why,
                     const std::function<void(uint64_t)>& progress) {
  std::vector<uint64_t> first_block;  // cumulative: a block index picks its target
  uint64_t total_blocks = 0;
  for (const ReadTarget& t : targets) {
    first_block.push_back(total_blocks);
    total_blocks += t.blocks;
  }
  if (total_blocks == 0 || block_bytes == 0 || block_bytes % 4096 != 0) {
    *why = "no whole block to read, or a block size that is not a multiple of 4096";
    return false;
  }
  void* raw = nullptr;
  if (const int error = posix_memalign(&raw, 4096, block_bytes); error != 0) {
    *why = std::string("posix_memalign: ") + std::strerror(error);
    return false;
  }
  std::unique_ptr<void, decltype(&std::free)> buf(raw, &std::free);
  std::mt19937_64 rng(seed);
  us->reserve(us->size() + reads);
  for (uint64_t i = 0; i < reads; ++i) {
    const uint64_t block = rng() % total_blocks;
    const size_t t = static_cast<size_t>(
        std::upper_bound(first_block.begin(), first_block.end(), block) - first_block.begin() - 1);
    const off_t offset = static_cast<off_t>((block - first_block[t]) * block_bytes);
    const auto start = std::chrono::steady_clock::now();
    const ssize_t got = pread(targets[t].fd, buf.get(), block_bytes, offset);
    if (got != static_cast<ssize_t>(block_bytes)) {
      *why = std::string("pread: ") + (got < 0 ? std::strerror(errno) : "short read");
      return false;
    }
    const auto took = std::chrono::steady_clock::now() - start;
    us->push_back(std::chrono::duration<double, std::micro>(took).count());
    if (progress) progress(i);
  }
  return true;
}

bool TimeDirectReads(const std::vector<std::string>& files, uint64_t reads, uint64_t block_bytes,
                     uint64_t seed, LatencySummary* out, std::string* why) {
  if (block_bytes == 0) {
    *why = "a block size of 0";
    return false;
  }
  struct Targets {
    std::vector<ReadTarget> list;
    ~Targets() {
      for (const ReadTarget& t : list) close(t.fd);
    }
  } targets;
  for (const std::string& path : files) {
    if (InMemoryFileSystem(path)) {
      *why = path + " is in memory (tmpfs)";
      return false;
    }
    const int fd = open(path.c_str(), O_RDONLY | O_DIRECT);
    if (fd < 0) {
      *why = "open " + path + " with O_DIRECT: " + std::strerror(errno);
      return false;
    }
    struct stat st {};
    const bool sized = fstat(fd, &st) == 0;
    targets.list.push_back({fd, sized ? static_cast<uint64_t>(st.st_size) / block_bytes : 0});
  }
  std::vector<double> us;
  if (!TimeRandomReads(targets.list, reads, block_bytes, seed, &us, why)) return false;
  *out = Summarize(std::move(us));
  return true;
}

}  // namespace sstfilter::bench
