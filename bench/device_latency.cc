// device_latency: what one 4 KiB random read costs on this machine's disk,
// direct (O_DIRECT, what RocksDB's use_direct_reads does for a block that
// misses the block cache) and through the OS page cache. A wasted read per
// miss costs one such read, so every wasted-reads figure of the benchmarks
// turns into time with it (docs/BENCHMARKS.md, "The device").
//
//   ./build/bench/device_latency --dir=/var/tmp --file_mib=1024 --reads=5000
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/direct_reads.h"
#include "bench/flag_help.h"

DEFINE_string(dir, "/var/tmp",
              "Directory on the device to measure (a file is written there, then removed, "
              "also on an error); not a tmpfs, which is memory.");
DEFINE_uint64(file_mib, 1024, "Size of the file read from, MiB: larger than the page cache's "
                              "share of it makes no difference to direct reads.");
DEFINE_uint64(reads, 5000, "Random reads per mode.");
DEFINE_uint64(block_bytes, 4096, "Bytes per read (RocksDB's default block size), a multiple of 4096.");
DEFINE_uint64(seed, 1, "Seed for the read offsets.");

namespace {

using sstfilter::bench::LatencySummary;
using sstfilter::bench::Summarize;

// The file the run writes, while it exists: removed on every error and on
// Ctrl-C too. A fixed buffer, so that the signal handler may read it.
char g_temp_file[4096];

void RemoveTempFileAndReraise(int sig) {
  if (g_temp_file[0] != '\0') unlink(g_temp_file);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// The benchmarks' Fatal, the file removed first.
[[noreturn]] void Stop(const std::string& message) {
  if (g_temp_file[0] != '\0') unlink(g_temp_file);
  sstfilter::bench::Fatal(message);
}

// A failed call, with the message of `error` (errno by default; 0 for a
// call that did less than asked, e.g. a short write).
[[noreturn]] void Die(const std::string& what, int error = errno) {
  Stop(what + ": " + (error != 0 ? std::strerror(error) : "incomplete"));
}

// Reads FLAGS_reads random aligned blocks of `fd`; microseconds each.
std::vector<double> TimeReads(int fd, uint64_t blocks, const char* label) {
  std::vector<double> us;
  std::string why;
  const uint64_t every = std::max<uint64_t>(FLAGS_reads / 5, 1);
  const bool ok = sstfilter::bench::TimeRandomReads(
      {{fd, blocks}}, FLAGS_reads, FLAGS_block_bytes, FLAGS_seed, &us, &why, [&](uint64_t i) {
        if ((i + 1) % every != 0) return;
        std::fprintf(stderr, "[device_latency] %s: %llu of %llu reads\n", label,
                     static_cast<unsigned long long>(i + 1),
                     static_cast<unsigned long long>(FLAGS_reads));
      });
  if (!ok) Stop(why);
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  if (sstfilter::bench::WantsHelp(argc, argv)) {
    sstfilter::bench::PrintOwnFlags(
        "The latency of one random block read, direct (O_DIRECT) and through the page cache.",
        __FILE__);
    return 0;
  }
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  sstfilter::bench::ProgramName() = "device_latency";
  if (FLAGS_block_bytes == 0 || FLAGS_block_bytes % 4096 != 0 || FLAGS_reads == 0 ||
      FLAGS_file_mib == 0) {
    sstfilter::bench::Fatal("--block_bytes a multiple of 4096, --reads and --file_mib positive");
  }
  if (sstfilter::bench::InMemoryFileSystem(FLAGS_dir)) {
    sstfilter::bench::Fatal(FLAGS_dir + " is in memory (tmpfs): pick --dir on a disk");
  }
  const uint64_t file_bytes = FLAGS_file_mib << 20;
  const std::string path = FLAGS_dir + "/sstfilter-device-latency." + std::to_string(getpid());
  if (path.size() >= sizeof(g_temp_file)) sstfilter::bench::Fatal("--dir is too long");
  std::signal(SIGINT, RemoveTempFileAndReraise);
  std::signal(SIGTERM, RemoveTempFileAndReraise);
  // The file: real data on the device, written once.
  {
    const int fd = open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0600);
    if (fd < 0) Die("create " + path);
    std::snprintf(g_temp_file, sizeof(g_temp_file), "%s", path.c_str());
    std::vector<char> chunk(1 << 20);
    std::mt19937_64 rng(FLAGS_seed);
    for (uint64_t done = 0; done < file_bytes; done += chunk.size()) {
      for (char& c : chunk) c = static_cast<char>(rng());
      const ssize_t written = write(fd, chunk.data(), chunk.size());
      if (written != static_cast<ssize_t>(chunk.size())) {
        Die("write " + path + " (disk full?)", written < 0 ? errno : 0);
      }
      if ((done >> 20) % 256 == 255) {
        std::fprintf(stderr, "[device_latency] writing: %llu of %llu MiB\n",
                     static_cast<unsigned long long>((done >> 20) + 1),
                     static_cast<unsigned long long>(FLAGS_file_mib));
      }
    }
    if (fsync(fd) != 0) Die("fsync");
    close(fd);
  }
  const uint64_t blocks = file_bytes / FLAGS_block_bytes;
  const int direct = open(path.c_str(), O_RDONLY | O_DIRECT);
  if (direct < 0) Die("open O_DIRECT (a file system without it? pick --dir on a disk)");
  const LatencySummary d = Summarize(TimeReads(direct, blocks, "direct"));
  close(direct);
  // Through the page cache: the same offsets, read once to load them, then timed.
  const int cached = open(path.c_str(), O_RDONLY);
  if (cached < 0) Die("open");
  TimeReads(cached, blocks, "warming the page cache");
  const LatencySummary c = Summarize(TimeReads(cached, blocks, "page cache"));
  close(cached);
  unlink(path.c_str());
  g_temp_file[0] = '\0';
  std::printf("# %llu random %llu-byte reads of a %llu MiB file in %s\n",
              static_cast<unsigned long long>(FLAGS_reads),
              static_cast<unsigned long long>(FLAGS_block_bytes),
              static_cast<unsigned long long>(FLAGS_file_mib), FLAGS_dir.c_str());
  std::printf("%-12s %10s %10s %10s %10s\n", "read", "median_us", "mean_us", "p99_us", "p99.9_us");
  std::printf("%-12s %10.1f %10.1f %10.1f %10.1f\n", "direct", d.p50_us, d.mean_us, d.p99_us,
              d.p999_us);
  std::printf("%-12s %10.1f %10.1f %10.1f %10.1f\n", "page_cache", c.p50_us, c.mean_us,
              c.p99_us, c.p999_us);
  return 0;
}
