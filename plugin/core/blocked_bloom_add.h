// Adding keys to a BlockedBloom filter, shared by the portable kernel and
// the AVX2 one (each passes its own line function).
#pragma once

#include <cstddef>
#include <cstdint>

#include "plugin/core/blocked_bloom.h"

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

}  // namespace blocked_bloom
}  // namespace sstfilter
