// The portable way to add keys to a BlockedBloom filter, and the choice of
// kernel at run time (BestKernel: AVX-512VL for queries where the CPU and
// OS have it, else AVX2, else scalar; SSTFILTER_NO_AVX512 and
// SSTFILTER_NO_AVX2 step down, for tests).
#include <cstdlib>

#include "plugin/core/blocked_bloom.h"
#include "plugin/core/blocked_bloom_add.h"
#include "plugin/core/blocked_bloom_avx2_inline.h"  // SSTF_HAVE_X86

namespace sstfilter {
namespace blocked_bloom {

void AddAll(const uint64_t* hashes, size_t n, uint64_t num_lines, int k, int lines,
            uint8_t* data) {
  AddAllWith(hashes, n, num_lines, k, lines, data, LineAdd);
}

#if SSTF_HAVE_X86
Kernel BestKernel() {
  static const Kernel best = [] {
    if (!__builtin_cpu_supports("avx2") || std::getenv("SSTFILTER_NO_AVX2") != nullptr) {
      return Kernel::kScalar;
    }
    // GCC's checks include the OS's support for the AVX-512 register state.
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("bmi2") && std::getenv("SSTFILTER_NO_AVX512") == nullptr) {
      return Kernel::kAvx512;
    }
    return Kernel::kAvx2;
  }();
  return best;
}
#else
Kernel BestKernel() { return Kernel::kScalar; }
#endif

bool Avx2Available() { return BestKernel() != Kernel::kScalar; }

}  // namespace blocked_bloom
}  // namespace sstfilter
