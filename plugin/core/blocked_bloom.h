// Cache-blocked Bloom filter: every probe of a key falls in one 64-byte
// (512-bit) line, so a query costs about one cache miss (Putze, Sanders,
// Singler, JEA 2009; RocksDB's FastLocalBloom is the same idea).
//
// What differs from FastLocalBloom (RocksDB 7.8, util/bloom_impl.h):
// - Probe bits come from 64 bits of hash entropy: probe i of a line reads the
//   top 9 bits of  a * kMulA[i] + b * kMulB[i]  (mod 2^32), where a and b are
//   the low and high halves of the key's hash. FastLocalBloom derives every
//   probe from one 32-bit value by repeated multiplication; with 11+ probes
//   the probes correlate and its FP rate runs 5-18% above the blocked-Bloom
//   formula at 16-20 bits/key (measured by filter_bench). Ours matches the
//   formula (bloom_math.h), so at equal memory it is at least as accurate.
// - k is chosen for the blocked formula at the actual bits per key (not the
//   standard-Bloom k = b ln 2).
// - High-accuracy mode (lines_per_key = 2): half the probes in each of two
//   independently chosen lines. Its FP rate is the square of a one-line
//   filter's at twice the load: 0.0092% at 20 bits/key vs 0.0192% for one
//   line (0.48x), 0.0017% vs 0.0051% at 24. A negative query touches the
//   second line only when the first one passes (~1% at 20 bits/key), so it
//   stays about one cache miss; a positive query costs two.
//
// Line choice: FastRange64(h, num_lines) for the first line (high bits of h),
// FastRange64(h * kSecondLineMul, num_lines) for the second.
//
// A line is 16 little-endian 32-bit words; bit p (0..511) is bit p % 32 of
// word p / 32, i.e. byte p / 8, bit p % 8. The AVX2 and AVX-512 kernels
// (blocked_bloom_avx2*.{h,cc}, blocked_bloom_avx512*.{h,cc}) compute eight
// probes per instruction group and must agree with the scalar reference
// bit for bit (tests/blocked_bloom_test.cc, tests/bits_reader_test.cc).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "plugin/core/bloom_math.h"
#include "plugin/core/format.h"
#include "plugin/core/hash.h"
#include "plugin/core/prefetch.h"

namespace sstfilter {
namespace blocked_bloom {

constexpr size_t kLineBytes = kBlockedLineBits / 8;
// Per line, a run of kMaxBlockedProbesPerLine multipliers; line 2 uses the
// second run.
constexpr size_t kTableSize = kMaxBlockedProbesPerLine * kMaxBlockedLinesPerKey;
constexpr uint64_t kSecondLineMul = kGoldenGamma;

// Odd 32-bit multipliers from splitmix64, fixed by the format.
constexpr std::array<uint32_t, kTableSize> MakeMultipliers(uint64_t state) {
  std::array<uint32_t, kTableSize> table{};
  for (size_t i = 0; i < kTableSize; ++i) {
    state += kGoldenGamma;
    table[i] = static_cast<uint32_t>(Mix64(state)) | 1u;
  }
  return table;
}
inline constexpr std::array<uint32_t, kTableSize> kMulA = MakeMultipliers(1);
inline constexpr std::array<uint32_t, kTableSize> kMulB = MakeMultipliers(2);

inline uint32_t ProbeBit(uint32_t a, uint32_t b, size_t i) {
  return (a * kMulA[i] + b * kMulB[i]) >> 23;
}

// Scalar reference kernels over one line; `first` is the table index of the
// line's first probe (0 or kMaxBlockedProbesPerLine).
inline void LineAdd(uint8_t* line, uint32_t a, uint32_t b, size_t first, int k) {
  for (int i = 0; i < k; ++i) {
    const uint32_t p = ProbeBit(a, b, first + i);
    line[p >> 3] |= static_cast<uint8_t>(1u << (p & 7));
  }
}
inline bool LineMayMatch(const uint8_t* line, uint32_t a, uint32_t b, size_t first, int k) {
  for (int i = 0; i < k; ++i) {
    const uint32_t p = ProbeBit(a, b, first + i);
    if ((line[p >> 3] & (1u << (p & 7))) == 0) return false;
  }
  return true;
}

inline size_t FirstLine(uint64_t h, uint64_t num_lines) { return FastRange64(h, num_lines); }
inline size_t SecondLine(uint64_t h, uint64_t num_lines) {
  return FastRange64(h * kSecondLineMul, num_lines);
}

// A query on the filter hash h (seed applied) whose first line is known.
inline bool MayMatchAtLine(const uint8_t* data, uint64_t num_lines, const uint8_t* first_line,
                           uint64_t h, int k, int lines) {
  const uint32_t a = static_cast<uint32_t>(h), b = static_cast<uint32_t>(h >> 32);
  if (!LineMayMatch(first_line, a, b, 0, k)) return false;
  return lines == 1 || LineMayMatch(data + SecondLine(h, num_lines) * kLineBytes, a, b,
                                    kMaxBlockedProbesPerLine, k);
}

// Whole-filter scalar reference: a query on the filter hash h (seed applied).
inline bool MayMatch(const uint8_t* data, uint64_t num_lines, uint64_t h, int k, int lines) {
  return MayMatchAtLine(data, num_lines, data + FirstLine(h, num_lines) * kLineBytes, h, k, lines);
}

// Prefetches one line. A block RocksDB reads from disk is not 64-byte
// aligned: its lines then straddle two cache lines. Every line of a filter
// shares one alignment, so the branch predicts well; a redundant prefetch
// would cost a load slot per key.
inline void PrefetchLine(const uint8_t* line) {
  PrefetchForRead(line);
  if ((reinterpret_cast<uintptr_t>(line) & (kLineBytes - 1)) != 0) {
    PrefetchForRead(line + kLineBytes - 1);
  }
}

// One key of a batch query: its filter hash (seed applied) and its first
// line, prefetched when the key was prepared (BlockedBloomReader::
// PrepareBatchKey).
struct PreparedKey {
  uint64_t hash;
  const uint8_t* first_line;
};

// Queries a prepared batch.
inline void MayMatchBatch(const uint8_t* data, uint64_t num_lines, const PreparedKey* keys,
                          size_t n, int k, int lines, bool* out) {
  for (size_t i = 0; i < n; ++i) {
    out[i] = MayMatchAtLine(data, num_lines, keys[i].first_line, keys[i].hash, k, lines);
  }
}

// The query kernels: the same answers bit for bit, chosen per CPU.
enum class Kernel : uint8_t { kScalar, kAvx2, kAvx512 };
// The fastest kernel this CPU runs: AVX-512VL, else AVX2, else scalar.
// SSTFILTER_NO_AVX512 in the environment caps it at AVX2, SSTFILTER_NO_AVX2
// at scalar (to measure or test the other paths). Decided once.
Kernel BestKernel();
// True when BestKernel() is not scalar: the build's kernel.
bool Avx2Available();

// AVX2 kernels, same results as the scalar ones; only call when
// Avx2Available(). Whole-query and whole-build entry points, so the call
// into the AVX2 translation unit happens once per query or per filter.
bool LineMayMatchAvx2(const uint8_t* line, uint32_t a, uint32_t b, size_t first, int k);
void LineAddAvx2(uint8_t* line, uint32_t a, uint32_t b, size_t first, int k);
bool MayMatchAvx2(const uint8_t* data, uint64_t num_lines, uint64_t h, int k, int lines);
// The batch (prefetched, as MayMatchBatch) in one call, its kernel inlined:
// a call per key into this translation unit (through the PLT of the shared
// library) cost more than the probe itself.
void MayMatchBatchAvx2(const uint8_t* data, uint64_t num_lines, const PreparedKey* keys,
                       size_t n, int k, int lines, bool* out);
// The AVX-512VL query kernels (blocked_bloom_avx512_inline.h); only call
// when BestKernel() is kAvx512.
bool LineMayMatchAvx512(const uint8_t* line, uint32_t a, uint32_t b, size_t first, int k);
bool MayMatchAvx512(const uint8_t* data, uint64_t num_lines, uint64_t h, int k, int lines);
void MayMatchBatchAvx512(const uint8_t* data, uint64_t num_lines, const PreparedKey* keys,
                         size_t n, int k, int lines, bool* out);
// Adds every hash (seed already applied) to the filter.
void AddAll(const uint64_t* hashes, size_t n, uint64_t num_lines, int k, int lines,
            uint8_t* data);
void AddAllAvx2(const uint64_t* hashes, size_t n, uint64_t num_lines, int k, int lines,
                uint8_t* data);

}  // namespace blocked_bloom

// Reader over a trusted block (format.h). params: bits 0-7 probes per line
// (1..kMaxBlockedProbesPerLine), bits 8-11 lines per key (1..
// kMaxBlockedLinesPerKey), bits 12-31 zero. Payload: a whole number (>= 1)
// of 64-byte lines.
class BlockedBloomReader {
 public:
  static bool Init(const ParsedBlock& block, BlockedBloomReader* out,
                   blocked_bloom::Kernel kernel) {
    const uint32_t probes = block.trailer.params & 0xFF;
    const uint32_t lines = (block.trailer.params >> 8) & 0xF;
    if (block.trailer.kind != FilterKind::kBlockedBloom || (block.trailer.params >> 12) != 0 ||
        probes < 1 || probes > kMaxBlockedProbesPerLine || lines < 1 ||
        lines > kMaxBlockedLinesPerKey || block.payload_bytes == 0 ||
        block.payload_bytes % blocked_bloom::kLineBytes != 0) {
      return false;
    }
    out->data_ = block.payload;
    out->num_lines_ = block.payload_bytes / blocked_bloom::kLineBytes;
    out->probes_ = static_cast<int>(probes);
    out->lines_per_key_ = static_cast<int>(lines);
    out->seed_ = block.trailer.seed;
    out->kernel_ = kernel;
    return true;
  }
  static bool Init(const ParsedBlock& block, BlockedBloomReader* out) {
    return Init(block, out, blocked_bloom::BestKernel());
  }

  bool MayMatch(uint64_t key_hash) const {
    const uint64_t h = SeededHash(key_hash, seed_);
    switch (kernel_) {
      case blocked_bloom::Kernel::kAvx512:
        return blocked_bloom::MayMatchAvx512(data_, num_lines_, h, probes_, lines_per_key_);
      case blocked_bloom::Kernel::kAvx2:
        return blocked_bloom::MayMatchAvx2(data_, num_lines_, h, probes_, lines_per_key_);
      case blocked_bloom::Kernel::kScalar:
        break;
    }
    return blocked_bloom::MayMatch(data_, num_lines_, h, probes_, lines_per_key_);
  }
  // Only the first line: negative queries rarely need the second.
  void Prefetch(uint64_t key_hash) const {
    blocked_bloom::PrefetchLine(
        Line(blocked_bloom::FirstLine(SeededHash(key_hash, seed_), num_lines_)));
  }
  // A MultiGet batch in two steps. PrepareBatchKey on each key hash as soon
  // as it is computed: it seeds the hash and prefetches the key's first
  // line, so that line's cache miss overlaps the hashing of the keys after
  // it (prefetching only once all keys were hashed left ~1.5 ns per key of
  // the miss exposed at 1M keys). Then MayMatchPrepared on the whole batch.
  using PreparedKey = blocked_bloom::PreparedKey;
  PreparedKey PrepareBatchKey(uint64_t key_hash) const {
    const uint64_t h = SeededHash(key_hash, seed_);
    const uint8_t* line = Line(blocked_bloom::FirstLine(h, num_lines_));
    blocked_bloom::PrefetchLine(line);
    return {h, line};
  }
  void MayMatchPrepared(const PreparedKey* prepared, size_t n, bool* out) const {
    switch (kernel_) {
      case blocked_bloom::Kernel::kAvx512:
        return blocked_bloom::MayMatchBatchAvx512(data_, num_lines_, prepared, n, probes_,
                                                  lines_per_key_, out);
      case blocked_bloom::Kernel::kAvx2:
        return blocked_bloom::MayMatchBatchAvx2(data_, num_lines_, prepared, n, probes_,
                                                lines_per_key_, out);
      case blocked_bloom::Kernel::kScalar:
        break;
    }
    blocked_bloom::MayMatchBatch(data_, num_lines_, prepared, n, probes_, lines_per_key_, out);
  }
  int probes_per_line() const { return probes_; }
  int lines_per_key() const { return lines_per_key_; }
  const uint8_t* data() const { return data_; }
  uint64_t num_lines() const { return num_lines_; }
  uint32_t seed() const { return seed_; }
  blocked_bloom::Kernel kernel() const { return kernel_; }

 private:
  const uint8_t* Line(size_t index) const { return data_ + index * blocked_bloom::kLineBytes; }

  const uint8_t* data_ = nullptr;
  uint64_t num_lines_ = 0;
  int probes_ = 0;
  int lines_per_key_ = 1;
  uint32_t seed_ = 0;
  blocked_bloom::Kernel kernel_ = blocked_bloom::Kernel::kScalar;
};

}  // namespace sstfilter
