// The benchmarks' deterministic keys: key i is the same in every run, so
// every policy is measured on the same data.
#pragma once

#include <cstdint>
#include <cstring>
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
  PutBigEndian64(Mix64(i + seed * kGoldenGamma), &key[0]);
  PutBigEndian64(i, &key[8]);
  return key;
}

// Key n of single-filter benchmarks, 16 bytes at `out`: the first 8 bytes
// of `tag`, then Mix64(n + seed offset) little-endian. Distinct n give
// distinct keys (a bijection); tags keep key sets apart (present, absent).
inline void TaggedKey(const char* tag, uint64_t n, uint64_t seed, char* out) {
  std::memcpy(out, tag, 8);
  const uint64_t v = Mix64(n + seed * kGoldenGamma);
  for (int b = 0; b < 8; ++b) out[8 + b] = static_cast<char>(v >> (8 * b));
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
