// Key hashing and range reduction shared by every sstfilter kind.
//
// Each key is hashed exactly once, at the boundary, to 64 bits with XXH3
// (xxHash 0.8, about 0.3 ns/byte plus a few ns per short key, passes SMHasher).
// Everything downstream (which bit, which cache line, which Ribbon row)
// derives from that one hash, so a filter is a function of the 64-bit hashes
// only and can be rebuilt with another seed without seeing the keys again.
#pragma once

#include <cstddef>
#include <cstdint>

// Inline mode: XXH3 compiles into each caller instead of a call into
// libxxhash.so, about 2 ns less per short key (the query path hashes every
// key). Same algorithm, same output.
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace sstfilter {

// XXH3 with its default secret and seed 0: stable across xxHash releases
// (the XXH3 output was frozen in 0.8.0), which the on-disk format relies on.
inline uint64_t HashKey(const char* data, size_t len_bytes) {
  return XXH3_64bits(data, len_bytes);
}

// Maps a 64-bit value uniformly onto [0, range) with one multiply instead of
// a division ("fast range reduction", Lemire 2019, doi:10.1002/spe.2689).
// Uses the high bits of `x`, so callers must not reuse those for another
// independent decision.
inline uint64_t FastRange64(uint64_t x, uint64_t range) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) * range) >> 64);
}

// 2^64 / golden ratio, odd: splitmix64's increment (Steele, Lea and Flood,
// "Fast splittable pseudorandom number generators", OOPSLA 2014).
constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ULL;

// splitmix64's finalizer: a bijection on 64-bit values with full avalanche,
// so distinct inputs stay distinct and consecutive ones differ in every byte.
// Part of the on-disk format (seeded hashes, Ribbon's next-layer hashes,
// BlockedBloom's multipliers): never change it.
constexpr uint64_t Mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Derives the hash a filter actually uses from the key hash and the filter's
// seed. Seed 0 is the identity; other seeds apply a bijective mix, so
// distinct keys stay distinct and a retry with a new seed sees fresh,
// independent positions.
inline uint64_t SeededHash(uint64_t key_hash, uint32_t seed) {
  if (seed == 0) return key_hash;
  return Mix64(key_hash ^ (kGoldenGamma * seed));
}

}  // namespace sstfilter
