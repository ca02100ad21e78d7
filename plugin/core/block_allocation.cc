#include "plugin/core/block_allocation.h"

#include <memory>

#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#define SSTF_HAVE_MALLOC_USABLE_SIZE 1
#endif

namespace sstfilter {

size_t MallocUsableSize(size_t request) {
#ifdef SSTF_HAVE_MALLOC_USABLE_SIZE
  std::unique_ptr<char[]> p(new char[request]);
  return malloc_usable_size(p.get());
#else
  return request;
#endif
}

AllocatorFit AllocatorFitForBlocks(std::atomic<int64_t>* balance) {
  AllocatorFit fit;
#ifdef SSTF_HAVE_MALLOC_USABLE_SIZE
  fit.usable_size = MallocUsableSize;
#endif
  fit.extra_bytes = kBlockTrailerBytes;
  fit.balance = balance;
  return fit;
}

}  // namespace sstfilter
