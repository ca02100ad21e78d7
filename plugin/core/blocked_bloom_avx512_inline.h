// BlockedBloom's query kernel for CPUs with AVX-512VL, as inline functions
// (see blocked_bloom_avx2_inline.h for why inline). Same format and answers
// as the AVX2 and scalar kernels. The kernels use 256-bit registers only,
// as the AVX2 one does: no 512-bit work for a core to lower its clock for.
//
// Per eight probes, against the AVX2 kernel's shift + 2 permutes + shift +
// blend for the word and shift + shift + table load + shift-by-lane for the
// bit:
// - vpermt2d picks each probe's word from both halves of the line at once
//   (4-bit index);
// - vprorvd rotates the probed bit to bit 0 (the count is taken mod 32, so
//   the top 9 bits of the probe value need no masking);
// - vptestnmd under a lane mask of the probes still to do gives the failed
//   probes as a bit mask, with no table load.
// 8 vector instructions per eight probes instead of 13. That matters because
// a run of negative queries is throughput-bound: the fewer instructions per
// query, the more queries' cache misses the core overlaps.
#pragma once

#include <cstddef>
#include <cstdint>

#include "plugin/core/blocked_bloom.h"
#include "plugin/core/blocked_bloom_avx2_inline.h"

#if SSTF_HAVE_X86
namespace sstfilter {
namespace blocked_bloom {

#define SSTF_AVX512_TARGET __attribute__((target("avx2,avx512f,avx512vl,bmi2")))

SSTF_AVX512_TARGET inline bool LineMayMatchAvx512Inline(const uint8_t* line, uint32_t a,
                                                        uint32_t b, size_t first, int k) {
  const __m256i va = _mm256_set1_epi32(static_cast<int>(a));
  const __m256i vb = _mm256_set1_epi32(static_cast<int>(b));
  const __m256i lower = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line));
  const __m256i upper = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32));
  const __m256i ones = _mm256_set1_epi32(1);
  for (int done = 0; done < k; done += 8) {
    const __m256i h = ProbeValues(va, vb, first + done);
    const __m256i words = _mm256_permutex2var_epi32(lower, _mm256_srli_epi32(h, 28), upper);
    const __m256i at_bit0 = _mm256_rorv_epi32(words, _mm256_srli_epi32(h, 23));
    const __mmask8 active = static_cast<__mmask8>(_bzhi_u32(0xFF, static_cast<unsigned>(k - done)));
    if (_mm256_mask_testn_epi32_mask(active, at_bit0, ones) != 0) return false;
  }
  return true;
}

SSTF_AVX512_TARGET inline bool MayMatchAtLineAvx512Inline(const uint8_t* data,
                                                          uint64_t num_lines,
                                                          const uint8_t* first_line, uint64_t h,
                                                          int k, int lines) {
  const uint32_t a = static_cast<uint32_t>(h), b = static_cast<uint32_t>(h >> 32);
  if (!LineMayMatchAvx512Inline(first_line, a, b, 0, k)) return false;
  return lines == 1 || LineMayMatchAvx512Inline(data + SecondLine(h, num_lines) * kLineBytes, a,
                                                b, kMaxBlockedProbesPerLine, k);
}

// The common case as straight-line code: one line per key, at most eight
// probes (up to about 14 bits/key), the probe lanes' mask given. No loop
// and no mask arithmetic, about 8 instructions fewer per query: a run of
// negative queries is throughput-bound, so every instruction counts.
SSTF_AVX512_TARGET inline bool OneGroupLineMayMatchAvx512(const uint8_t* line, uint64_t h,
                                                          __mmask8 active) {
  const __m256i hv = ProbeValues(_mm256_set1_epi32(static_cast<int>(h)),
                                 _mm256_set1_epi32(static_cast<int>(h >> 32)), 0);
  const __m256i words = _mm256_permutex2var_epi32(
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line)), _mm256_srli_epi32(hv, 28),
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(line + 32)));
  const __m256i at_bit0 = _mm256_rorv_epi32(words, _mm256_srli_epi32(hv, 23));
  return _mm256_mask_testn_epi32_mask(active, at_bit0, _mm256_set1_epi32(1)) == 0;
}
inline __mmask8 ActiveLanes(int k) { return static_cast<__mmask8>((1u << k) - 1); }

// BlockedBloomReader::MayMatch of a reader that uses AVX-512VL, inlined.
SSTF_AVX512_TARGET inline bool ReaderMayMatchAvx512(const BlockedBloomReader& reader,
                                                    uint64_t key_hash) {
  const uint64_t h = SeededHash(key_hash, reader.seed());
  return MayMatchAtLineAvx512Inline(
      reader.data(), reader.num_lines(),
      reader.data() + FirstLine(h, reader.num_lines()) * kLineBytes, h,
      reader.probes_per_line(), reader.lines_per_key());
}

}  // namespace blocked_bloom
}  // namespace sstfilter
#endif  // SSTF_HAVE_X86
