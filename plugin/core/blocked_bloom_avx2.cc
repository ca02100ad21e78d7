// AVX2 entry points for blocked_bloom.h, compiled with target("avx2") so
// the rest of the library stays portable; blocked_bloom_kernels.cc chooses
// among the kernels at run time. The kernels are in
// blocked_bloom_avx2_inline.h.
#include "plugin/core/blocked_bloom.h"
#include "plugin/core/blocked_bloom_add.h"
#include "plugin/core/blocked_bloom_avx2_inline.h"

namespace sstfilter {
namespace blocked_bloom {

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
#endif

}  // namespace blocked_bloom
}  // namespace sstfilter
