// Replaces the global operator new/delete of the process that links this
// file, so every heap allocation - ours and librocksdb's, which resolves
// operator new to the executable's definition - is counted. filter_bench
// uses it for temporary construction memory: peak minus start, minus the
// finished filter. Sizes are malloc_usable_size, i.e. what the allocator
// really hands out.
#include "bench/heap_counter.h"

#include <malloc.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {
std::atomic<int64_t> g_heap_bytes{0};
std::atomic<int64_t> g_heap_peak{0};

void* CountedAlloc(size_t size, size_t align) {
  void* p = nullptr;
  if (align <= alignof(std::max_align_t)) {
    p = std::malloc(size == 0 ? 1 : size);
  } else if (posix_memalign(&p, align, size == 0 ? 1 : size) != 0) {
    p = nullptr;
  }
  if (p == nullptr) throw std::bad_alloc();
  const int64_t now = g_heap_bytes.fetch_add(static_cast<int64_t>(malloc_usable_size(p)),
                                             std::memory_order_relaxed) +
                      static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = g_heap_peak.load(std::memory_order_relaxed);
  while (now > peak &&
         !g_heap_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return p;
}

void CountedFree(void* p) {
  if (p == nullptr) return;
  g_heap_bytes.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)),
                         std::memory_order_relaxed);
  std::free(p);
}
}  // namespace

void* operator new(size_t size) { return CountedAlloc(size, 0); }
void* operator new[](size_t size) { return CountedAlloc(size, 0); }
void* operator new(size_t size, std::align_val_t a) {
  return CountedAlloc(size, static_cast<size_t>(a));
}
void* operator new[](size_t size, std::align_val_t a) {
  return CountedAlloc(size, static_cast<size_t>(a));
}
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  try {
    return CountedAlloc(size, 0);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  try {
    return CountedAlloc(size, 0);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { CountedFree(p); }
void operator delete[](void* p) noexcept { CountedFree(p); }
void operator delete(void* p, size_t) noexcept { CountedFree(p); }
void operator delete[](void* p, size_t) noexcept { CountedFree(p); }
void operator delete(void* p, std::align_val_t) noexcept { CountedFree(p); }
void operator delete[](void* p, std::align_val_t) noexcept { CountedFree(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { CountedFree(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { CountedFree(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { CountedFree(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { CountedFree(p); }


namespace sstfilter_bench {
int64_t HeapBytes() { return g_heap_bytes.load(); }
int64_t HeapPeak() { return g_heap_peak.load(); }
void ResetHeapPeak(int64_t value) { g_heap_peak.store(value); }
}  // namespace sstfilter_bench
