// AVX2 entry points for blocked_bloom.h, compiled with target("avx2") so
// the rest of the library stays portable, and the choice of kernel at run
// time (BestKernel; the build uses AVX2 whenever the CPU has it). The
// kernels are in blocked_bloom_avx2_inline.h.
#include <cstdlib>

#include "plugin/core/blocked_bloom.h"
#include "plugin/core/blocked_bloom_avx2_inline.h"

namespace sstfilter {
namespace blocked_bloom {

// Adding is a random write per key into a filter usually larger than L2;
// prefetching (for write) the line of the key kLookahead positions ahead
// overlaps those misses. RocksDB's FastLocalBloom builder uses 8; 16 was
// measured slightly better here at 1M keys.
template <class LineAddFn>
inline void AddAllWith(const uint64_t* hashes, size_t n, uint64_t num_lines, int k, int lines,
                       uint8_t* data, LineAddFn line_add) {
  constexpr size_t kLookahead = 16;
  for (size_t i = 0; i < n; ++i) {
    if (i + kLookahead < n) {
      __builtin_prefetch(data + FirstLine(hashes[i + kLookahead], num_lines) * kLineBytes, 1);
    }
    const uint64_t h = hashes[i];
    const uint32_t a = static_cast<uint32_t>(h), b = static_cast<uint32_t>(h >> 32);
    line_add(data + FirstLine(h, num_lines) * kLineBytes, a, b, 0, k);
    if (lines == 2) {
      line_add(data + SecondLine(h, num_lines) * kLineBytes, a, b, kMaxBlockedProbesPerLine, k);
    }
  }
}

void AddAll(const uint64_t* hashes, size_t n, uint64_t num_lines, int k, int lines,
            uint8_t* data) {
  AddAllWith(hashes, n, num_lines, k, lines, data, LineAdd);
}

#if SSTF_HAVE_X86

__attribute__((target("avx2"))) bool LineMayMatchAvx2(const uint8_t* line, uint32_t a,
                                                      uint32_t b, size_t first, int k) {
  return LineMayMatchAvx2Inline(line, a, b, first, k);
}

__attribute__((target("avx2"))) void LineAddAvx2(uint8_t* line, uint32_t a, uint32_t b,
                                                 size_t first, int k) {
  LineAddAvx2Inline(line, a, b, first, k);
}

__attribute__((target("avx2"))) bool MayMatchAvx2(const uint8_t* data, uint64_t num_lines,
                                                  uint64_t h, int k, int lines) {
  return MayMatchAvx2Inline(data, num_lines, h, k, lines);
}

__attribute__((target("avx2"))) void MayMatchBatchAvx2(const uint8_t* data, uint64_t num_lines,
                                                       const PreparedKey* keys, size_t n, int k,
                                                       int lines, bool* out) {
  if (IsOneGroup(k, lines)) {
    const int32_t* active = ActiveLaneWindow(k);
    for (size_t i = 0; i < n; ++i) {
      out[i] = OneGroupLineMayMatchAvx2Inline(keys[i].first_line, keys[i].hash, active);
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    out[i] = MayMatchAtLineAvx2Inline(data, num_lines, keys[i].first_line, keys[i].hash, k, lines);
  }
}

__attribute__((target("avx2"))) void AddAllAvx2(const uint64_t* hashes, size_t n,
                                                uint64_t num_lines, int k, int lines,
                                                uint8_t* data) {
  AddAllWith(hashes, n, num_lines, k, lines, data, [](uint8_t* line, uint32_t a, uint32_t b,
                                                      size_t first, int probes) {
    LineAddAvx2Inline(line, a, b, first, probes);
  });
}

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

#else  // no x86: the scalar kernels serve

bool LineMayMatchAvx2(const uint8_t* line, uint32_t a, uint32_t b, size_t first, int k) {
  return LineMayMatch(line, a, b, first, k);
}
void LineAddAvx2(uint8_t* line, uint32_t a, uint32_t b, size_t first, int k) {
  LineAdd(line, a, b, first, k);
}
bool MayMatchAvx2(const uint8_t* data, uint64_t num_lines, uint64_t h, int k, int lines) {
  return MayMatch(data, num_lines, h, k, lines);
}
void MayMatchBatchAvx2(const uint8_t* data, uint64_t num_lines, const PreparedKey* keys,
                       size_t n, int k, int lines, bool* out) {
  MayMatchBatch(data, num_lines, keys, n, k, lines, out);
}
void AddAllAvx2(const uint64_t* hashes, size_t n, uint64_t num_lines, int k, int lines,
                uint8_t* data) {
  AddAll(hashes, n, num_lines, k, lines, data);
}
Kernel BestKernel() { return Kernel::kScalar; }

#endif

bool Avx2Available() { return BestKernel() != Kernel::kScalar; }

}  // namespace blocked_bloom
}  // namespace sstfilter
