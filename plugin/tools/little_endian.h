// Little-endian integers of `n` bytes (n <= 8) from untrusted bytes that
// the caller has bounds-checked: RocksDB's fixed-width fields.
#pragma once

#include <cstdint>

namespace sstfilter::tools {

inline uint64_t DecodeLe(const char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

}  // namespace sstfilter::tools
