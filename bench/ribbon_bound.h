// bound.Ribbon: what no Ribbon filter can beat at a given length.
//
// A Ribbon filter with no overhead at all: every byte of the filter holds
// solution columns (no header, bump codes, trailer or empty slots), and it
// mixes r- and (r+1)-column blocks as sstfilter.Ribbon and rocksdb.Ribbon
// do, so b bits per key give the FP rate 2^-floor(b) * (1 - frac(b) / 2),
// the chord between whole columns. A filter whose keys each check whole
// fingerprint bits (Ribbon, XOR) cannot do better at the same length.
// Lengths are exact, or picked for the allocator by sstfilter's rounding
// (plugin/core/alloc_fit.h) as sstfilter.Ribbon's are. Computed, never
// built: memory_bench and lsm_bench print it beside the filters they build.
#pragma once

#include <cstddef>
#include <cstdint>

#include "plugin/core/alloc_fit.h"

namespace sstfilter::bench {

// FP rate of a bound filter of `filter_bytes` bytes holding `keys` keys.
double BoundRibbonFpRate(size_t filter_bytes, uint64_t keys);

// Filter bytes of a bound filter of `keys` keys at the setting
// `bits_per_key`: ceil(bits / 8), or, with `fit` (which carries the
// policy's rounding balance), the length sstfilter's rounding picks.
size_t BoundRibbonLength(uint64_t keys, double bits_per_key, const AllocatorFit* fit);

}  // namespace sstfilter::bench
