// Explicit little-endian integers of n <= 8 bytes: the on-disk byte order of
// sstfilter's trailer and of RocksDB's fixed-width fields, whatever the CPU.
// Callers check bounds first; these read and write exactly n bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sstfilter {

inline uint64_t DecodeLe(const uint8_t* in, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(in[i]) << (8 * i);
  return v;
}

inline uint64_t DecodeLe(const char* in, size_t n) {
  return DecodeLe(reinterpret_cast<const uint8_t*>(in), n);
}

inline void EncodeLe(uint64_t v, size_t n, char* out) {
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<char>(v >> (8 * i));
}

}  // namespace sstfilter
