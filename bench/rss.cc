// Peak resident memory of one phase of a process (filter_bench: one
// filter's construction). getrusage's ru_maxrss only ever grows, and the
// key set dominates it, so the phase's own peak needs the kernel's
// high-water mark reset at its start: ReleaseFreeHeap, ResidentBytes,
// ResetPeakResident, run the phase, PeakResidentBytes - the RSS before.
// Reads /proc/self/status with stdio and plain syscalls, not operator new,
// so heap_counter's figures are untouched.
#include "bench/rss.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace sstfilter_bench {
namespace {

// The process peak before the last reset, which the reset erases.
int64_t g_peak_before_reset = -1;

// The "<field>: <n> kB" line of /proc/self/status, in bytes.
int64_t StatusBytes(const char* field) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  const size_t field_len = std::strlen(field);
  char line[256];
  long long kb = -1;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::strncmp(line, field, field_len) == 0 && line[field_len] == ':') {
      if (std::sscanf(line + field_len + 1, "%lld", &kb) != 1) kb = -1;
      break;
    }
  }
  std::fclose(f);
  return kb < 0 ? -1 : static_cast<int64_t>(kb) * 1024;
}

}  // namespace

int64_t ResidentBytes() { return StatusBytes("VmRSS"); }
int64_t PeakResidentBytes() { return StatusBytes("VmHWM"); }

bool ResetPeakResident() {
  g_peak_before_reset = std::max(g_peak_before_reset, PeakResidentBytes());
  const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return ok;
}

int64_t ProcessPeakResidentBytes() {
  return std::max(g_peak_before_reset, PeakResidentBytes());
}

void ReleaseFreeHeap() { ::malloc_trim(0); }

}  // namespace sstfilter_bench
