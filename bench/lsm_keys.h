// lsm_bench's deterministic key stream: key i is the same in every run and
// every database, so every policy is measured on the same data.
#pragma once

#include <cstdint>
#include <string>

#include "bench/bench_util.h"

namespace sstfilter::bench {

inline void PutBigEndian64(uint64_t v, char* out) {
  for (int b = 0; b < 8; ++b) out[b] = static_cast<char>(v >> (56 - 8 * b));
}

// Key i: 8 bytes big-endian Mix64(i + seed offset), then i big-endian, 16
// bytes. The bijection makes keys distinct; big-endian makes byte order
// numeric order, so keys spread uniformly over the key space: present keys
// land in every file, and absent keys (indexes past the loaded ones) fall
// inside the files' key ranges, as db_bench's readmissing keys do.
inline std::string LsmKey(uint64_t i, uint64_t seed) {
  std::string key(16, '\0');
  PutBigEndian64(Mix64(i + seed * 0x9e3779b97f4a7c15ULL), &key[0]);
  PutBigEndian64(i, &key[8]);
  return key;
}

// Value of key i, `bytes` long, derived from i so that hits can be verified.
inline std::string LsmValue(uint64_t i, int bytes) {
  std::string value(bytes, '\0');
  for (size_t b = 0; b < value.size(); ++b) {
    value[b] = static_cast<char>(Mix64(i + b / 8) >> (b % 8 * 8));
  }
  return value;
}

}  // namespace sstfilter::bench
