// Resident memory (RSS) of this process, from Linux's /proc/self (see rss.cc).
// All functions return -1 where the figure is not available.
#pragma once

#include <cstdint>

namespace sstfilter_bench {

// Current resident bytes (VmRSS).
int64_t ResidentBytes();
// Highest resident bytes since the last ResetPeakResident, or since the
// process started (VmHWM).
int64_t PeakResidentBytes();
// Resets PeakResidentBytes to the current RSS (writes "5" to
// /proc/self/clear_refs, Linux >= 4.0). False if the kernel refused.
bool ResetPeakResident();
// Highest resident bytes over the whole process, across resets.
int64_t ProcessPeakResidentBytes();
// Returns the heap's free pages to the OS (glibc malloc_trim), so that
// memory freed earlier is not resident and a later allocation that reuses
// it raises the RSS again, as it would in a fresh process.
void ReleaseFreeHeap();

}  // namespace sstfilter_bench
