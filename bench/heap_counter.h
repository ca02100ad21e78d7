// Process-wide heap accounting for benchmarks (see heap_counter.cc).
#pragma once

#include <cstdint>

namespace sstfilter_bench {

// Bytes currently allocated through operator new.
int64_t HeapBytes();
// Highest HeapBytes() since the last ResetHeapPeak.
int64_t HeapPeak();
void ResetHeapPeak(int64_t value);

}  // namespace sstfilter_bench
