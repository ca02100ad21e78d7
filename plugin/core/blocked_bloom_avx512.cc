// AVX-512VL query entry points for blocked_bloom.h, compiled for that target
// only inside these functions; BestKernel() picks them at run time. The
// kernels are in blocked_bloom_avx512_inline.h.
#include "plugin/core/blocked_bloom.h"
#include "plugin/core/blocked_bloom_avx512_inline.h"

namespace sstfilter {
namespace blocked_bloom {

#if SSTF_HAVE_X86

SSTF_AVX512_TARGET bool LineMayMatchAvx512(const uint8_t* line, uint32_t a, uint32_t b,
                                           size_t first, int k) {
  return LineMayMatchAvx512Inline(line, a, b, first, k);
}

SSTF_AVX512_TARGET bool MayMatchAvx512(const uint8_t* data, uint64_t num_lines, uint64_t h,
                                       int k, int lines) {
  return MayMatchAtLineAvx512Inline(data, num_lines, data + FirstLine(h, num_lines) * kLineBytes,
                                    h, k, lines);
}

SSTF_AVX512_TARGET void MayMatchBatchAvx512(const uint8_t* data, uint64_t num_lines,
                                            const PreparedKey* keys, size_t n, int k, int lines,
                                            bool* out) {
  if (IsOneGroup(k, lines)) {
    const __mmask8 active = ActiveLanes(k);
    for (size_t i = 0; i < n; ++i) {
      out[i] = OneGroupLineMayMatchAvx512(keys[i].first_line, keys[i].hash, active);
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    out[i] =
        MayMatchAtLineAvx512Inline(data, num_lines, keys[i].first_line, keys[i].hash, k, lines);
  }
}

#else  // no x86: the scalar kernels serve

bool LineMayMatchAvx512(const uint8_t* line, uint32_t a, uint32_t b, size_t first, int k) {
  return LineMayMatch(line, a, b, first, k);
}
bool MayMatchAvx512(const uint8_t* data, uint64_t num_lines, uint64_t h, int k, int lines) {
  return MayMatch(data, num_lines, h, k, lines);
}
void MayMatchBatchAvx512(const uint8_t* data, uint64_t num_lines, const PreparedKey* keys,
                         size_t n, int k, int lines, bool* out) {
  MayMatchBatch(data, num_lines, keys, n, k, lines, out);
}

#endif

}  // namespace blocked_bloom
}  // namespace sstfilter
