// BlockedBloom's AVX2 kernels as inline functions, for the translation
// units that call them from target("avx2") code: blocked_bloom_avx2.cc (the
// build and batch entry points) and the RocksDB adapter's AVX2 reader, whose
// single query then compiles to one function (hash, line, probes) with no
// call into the library's other translation units. Including this header
// does not make a translation unit need AVX2: only callers that Avx2Available()
// selected may run these.
//
// The scheme follows RocksDB's FastLocalBloom AVX2 path (util/bloom_impl.h):
// eight 32-bit probe values per step, 4-bit word address and 5-bit bit
// address from the top 9 bits, words fetched from the line's two 256-bit
// halves with permutevar8x32 + blend instead of a (slower) gather.
#pragma once

#include <cstddef>
#include <cstdint>

#include "plugin/core/blocked_bloom.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SSTF_HAVE_X86 1
#else
#define SSTF_HAVE_X86 0
#endif

#if SSTF_HAVE_X86
namespace sstfilter {
namespace blocked_bloom {

alignas(64) inline constexpr int32_t kActiveLanes[16] = {1, 1, 1, 1, 1, 1, 1, 1,
                                                         0, 0, 0, 0, 0, 0, 0, 0};

__attribute__((target("avx2"))) inline __m256i ProbeValues(__m256i va, __m256i vb,
                                                             size_t index) {
  const __m256i ma = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMulA.data() + index));
  const __m256i mb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMulB.data() + index));
  return _mm256_add_epi32(_mm256_mullo_epi32(va, ma), _mm256_mullo_epi32(vb, mb));
}

// a and b in every lane: one 64-bit broadcast and two in-lane shuffles,
// fewer instructions than two 32-bit broadcasts from general registers.
// The empty asm keeps the 64-bit value in a vector register: without it
// GCC 12 broadcasts from memory, so a query that also needs the value in
// rax (FastRange's mul) stores it to the stack and realigns the stack for
// that, 4 more instructions and a store-to-load round trip per query.
__attribute__((target("avx2"))) inline void BroadcastHalves(uint32_t a, uint32_t b, __m256i* va,
                                                            __m256i* vb) {
  __m128i ab64 = _mm_cvtsi64_si128(static_cast<long long>((uint64_t{b} << 32) | a));
  asm("" : "+x"(ab64));
  const __m256i ab = _mm256_broadcastq_epi64(ab64);
  *va = _mm256_shuffle_epi32(ab, 0x00);
  *vb = _mm256_shuffle_epi32(ab, 0x55);
}

__attribute__((target("avx2"))) inline bool LineMayMatchAvx2Inline(const uint8_t* line,
                                                                   uint32_t a, uint32_t b,
                                                                   size_t first, int k) {
  __m256i va, vb;
  BroadcastHalves(a, b, &va, &vb);
  const __m256i lower = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line));
  const __m256i upper = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32));
  for (int done = 0; done < k; done += 8) {
    const __m256i h = ProbeValues(va, vb, first + done);
    const __m256i word = _mm256_srli_epi32(h, 28);
    const __m256i values = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lower, word),
                                              _mm256_permutevar8x32_epi32(upper, word),
                                              _mm256_srai_epi32(h, 31));
    // 1 in the lanes still to probe (lane < k - done), 0 beyond k: a window
    // of kActiveLanes, one load instead of a broadcast, subtract and shift.
    const int left = k - done < 8 ? k - done : 8;
    const __m256i active =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kActiveLanes + 8 - left));
    const __m256i mask = _mm256_sllv_epi32(active, _mm256_srli_epi32(_mm256_slli_epi32(h, 4), 27));
    if (!_mm256_testc_si256(values, mask)) return false;
  }
  return true;
}

// One line of at most eight probes (IsOneGroup), straight-line: the common
// case, as blocked_bloom_avx512_inline.h explains. `active` is
// ActiveLaneWindow(k).
__attribute__((target("avx2"))) inline bool OneGroupLineMayMatchAvx2Inline(const uint8_t* line,
                                                                           uint64_t h,
                                                                           const int32_t* active) {
  __m256i va, vb;
  BroadcastHalves(static_cast<uint32_t>(h), static_cast<uint32_t>(h >> 32), &va, &vb);
  const __m256i hv = ProbeValues(va, vb, 0);
  const __m256i word = _mm256_srli_epi32(hv, 28);
  const __m256i values = _mm256_blendv_epi8(
      _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(line)), word),
      _mm256_permutevar8x32_epi32(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32)), word),
      _mm256_srai_epi32(hv, 31));
  const __m256i mask =
      _mm256_sllv_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(active)),
                        _mm256_srli_epi32(_mm256_slli_epi32(hv, 4), 27));
  return _mm256_testc_si256(values, mask);
}
// True when the one-group kernels serve a filter with these settings.
inline bool IsOneGroup(int k, int lines) { return lines == 1 && k <= 8; }
// kActiveLanes' window with 1 in lanes 0..k-1 (k <= 8).
inline const int32_t* ActiveLaneWindow(int k) { return kActiveLanes + 8 - k; }

__attribute__((target("avx2"))) inline void LineAddAvx2Inline(uint8_t* line, uint32_t a,
                                                              uint32_t b, size_t first, int k) {
  __m256i va, vb;
  BroadcastHalves(a, b, &va, &vb);
  alignas(32) uint32_t bits[8];
  for (int done = 0; done < k; done += 8) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(bits),
                       _mm256_srli_epi32(ProbeValues(va, vb, first + done), 23));
    const int n = k - done < 8 ? k - done : 8;
    for (int i = 0; i < n; ++i) line[bits[i] >> 3] |= static_cast<uint8_t>(1u << (bits[i] & 7));
  }
}

__attribute__((target("avx2"))) inline bool MayMatchAtLineAvx2Inline(const uint8_t* data,
                                                                     uint64_t num_lines,
                                                                     const uint8_t* first_line,
                                                                     uint64_t h, int k,
                                                                     int lines) {
  const uint32_t a = static_cast<uint32_t>(h), b = static_cast<uint32_t>(h >> 32);
  if (!LineMayMatchAvx2Inline(first_line, a, b, 0, k)) return false;
  return lines == 1 || LineMayMatchAvx2Inline(data + SecondLine(h, num_lines) * kLineBytes, a,
                                              b, kMaxBlockedProbesPerLine, k);
}

__attribute__((target("avx2"))) inline bool MayMatchAvx2Inline(const uint8_t* data,
                                                               uint64_t num_lines, uint64_t h,
                                                               int k, int lines) {
  return MayMatchAtLineAvx2Inline(data, num_lines, data + FirstLine(h, num_lines) * kLineBytes,
                                  h, k, lines);
}

// BlockedBloomReader::MayMatch of a reader that uses AVX2, inlined.
__attribute__((target("avx2"))) inline bool ReaderMayMatchAvx2(const BlockedBloomReader& reader,
                                                               uint64_t key_hash) {
  return MayMatchAvx2Inline(reader.data(), reader.num_lines(),
                            SeededHash(key_hash, reader.seed()), reader.probes_per_line(),
                            reader.lines_per_key());
}

}  // namespace blocked_bloom
}  // namespace sstfilter
#endif  // SSTF_HAVE_X86
