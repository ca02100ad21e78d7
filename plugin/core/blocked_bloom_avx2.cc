// AVX2 kernels for blocked_bloom.h, compiled with target("avx2") so the rest
// of the library stays portable; Avx2Available() picks them at run time.
// The scheme follows RocksDB's FastLocalBloom AVX2 path (util/bloom_impl.h):
// eight 32-bit probe values per step, 4-bit word address and 5-bit bit
// address from the top 9 bits, words fetched from the line's two 256-bit
// halves with permutevar8x32 + blend instead of a (slower) gather.
#include <cstdlib>

#include "plugin/core/blocked_bloom.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SSTF_HAVE_X86 1
#else
#define SSTF_HAVE_X86 0
#endif

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

namespace {

__attribute__((target("avx2"))) inline __m256i ProbeValues(__m256i va, __m256i vb,
                                                             size_t index) {
  const __m256i ma = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMulA.data() + index));
  const __m256i mb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMulB.data() + index));
  return _mm256_add_epi32(_mm256_mullo_epi32(va, ma), _mm256_mullo_epi32(vb, mb));
}

}  // namespace

__attribute__((target("avx2"))) inline bool LineMayMatchAvx2Inline(const uint8_t* line,
                                                                   uint32_t a, uint32_t b,
                                                                   size_t first, int k) {
  const __m256i va = _mm256_set1_epi32(static_cast<int>(a));
  const __m256i vb = _mm256_set1_epi32(static_cast<int>(b));
  const __m256i lower = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line));
  const __m256i upper = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32));
  const __m256i zero_to_seven = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int done = 0; done < k; done += 8) {
    const __m256i h = ProbeValues(va, vb, first + done);
    const __m256i word = _mm256_srli_epi32(h, 28);
    const __m256i values = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lower, word),
                                              _mm256_permutevar8x32_epi32(upper, word),
                                              _mm256_srai_epi32(h, 31));
    // 1 in the lanes still to probe (lane < k - done), 0 beyond k.
    const __m256i active =
        _mm256_srli_epi32(_mm256_sub_epi32(zero_to_seven, _mm256_set1_epi32(k - done)), 31);
    const __m256i mask = _mm256_sllv_epi32(active, _mm256_srli_epi32(_mm256_slli_epi32(h, 4), 27));
    if (!_mm256_testc_si256(values, mask)) return false;
  }
  return true;
}

__attribute__((target("avx2"))) inline void LineAddAvx2Inline(uint8_t* line, uint32_t a,
                                                              uint32_t b, size_t first, int k) {
  const __m256i va = _mm256_set1_epi32(static_cast<int>(a));
  const __m256i vb = _mm256_set1_epi32(static_cast<int>(b));
  alignas(32) uint32_t bits[8];
  for (int done = 0; done < k; done += 8) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(bits),
                       _mm256_srli_epi32(ProbeValues(va, vb, first + done), 23));
    const int n = k - done < 8 ? k - done : 8;
    for (int i = 0; i < n; ++i) line[bits[i] >> 3] |= static_cast<uint8_t>(1u << (bits[i] & 7));
  }
}

__attribute__((target("avx2"))) bool LineMayMatchAvx2(const uint8_t* line, uint32_t a,
                                                      uint32_t b, size_t first, int k) {
  return LineMayMatchAvx2Inline(line, a, b, first, k);
}

__attribute__((target("avx2"))) void LineAddAvx2(uint8_t* line, uint32_t a, uint32_t b,
                                                 size_t first, int k) {
  LineAddAvx2Inline(line, a, b, first, k);
}

__attribute__((target("avx2"))) inline bool MayMatchAvx2Inline(const uint8_t* data,
                                                               uint64_t num_lines, uint64_t h,
                                                               int k, int lines) {
  const uint32_t a = static_cast<uint32_t>(h), b = static_cast<uint32_t>(h >> 32);
  if (!LineMayMatchAvx2Inline(data + FirstLine(h, num_lines) * kLineBytes, a, b, 0, k)) {
    return false;
  }
  return lines == 1 || LineMayMatchAvx2Inline(data + SecondLine(h, num_lines) * kLineBytes, a,
                                              b, kMaxBlockedProbesPerLine, k);
}

__attribute__((target("avx2"))) bool MayMatchAvx2(const uint8_t* data, uint64_t num_lines,
                                                  uint64_t h, int k, int lines) {
  return MayMatchAvx2Inline(data, num_lines, h, k, lines);
}

__attribute__((target("avx2"))) void MayMatchBatchAvx2(const uint8_t* data, uint64_t num_lines,
                                                       const uint64_t* h, size_t n, int k,
                                                       int lines, bool* out) {
  for (size_t i = 0; i < n; ++i) PrefetchLine(data + FirstLine(h[i], num_lines) * kLineBytes);
  for (size_t i = 0; i < n; ++i) out[i] = MayMatchAvx2Inline(data, num_lines, h[i], k, lines);
}

__attribute__((target("avx2"))) void AddAllAvx2(const uint64_t* hashes, size_t n,
                                                uint64_t num_lines, int k, int lines,
                                                uint8_t* data) {
  AddAllWith(hashes, n, num_lines, k, lines, data, [](uint8_t* line, uint32_t a, uint32_t b,
                                                      size_t first, int probes) {
    LineAddAvx2Inline(line, a, b, first, probes);
  });
}

bool Avx2Available() {
  static const bool available =
      __builtin_cpu_supports("avx2") && std::getenv("SSTFILTER_NO_AVX2") == nullptr;
  return available;
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
void MayMatchBatchAvx2(const uint8_t* data, uint64_t num_lines, const uint64_t* h, size_t n,
                       int k, int lines, bool* out) {
  MayMatchBatch(data, num_lines, h, n, k, lines, out);
}
void AddAllAvx2(const uint64_t* hashes, size_t n, uint64_t num_lines, int k, int lines,
                uint8_t* data) {
  AddAll(hashes, n, num_lines, k, lines, data);
}
bool Avx2Available() { return false; }

#endif

}  // namespace blocked_bloom
}  // namespace sstfilter
