// rocksdb.Ribbon at a given memory. NewRibbonFilterPolicy's setting is
// "Bloom-equivalent": 10 gives ~7 actual bits per key, 14.6 gives 10. To
// compare filters at the same memory (what a user trades), the benchmarks
// calibrate the setting on trial filters of the size they build.
#pragma once

#include <cstddef>

namespace sstfilter::bench {

// The NewRibbonFilterPolicy setting whose filter of `num_keys` keys (built
// as for a compaction output to L1, so bloom_before_level <= 1 gives Ribbon)
// has the actual bits per key closest to `bits_per_key`. The size depends
// on the key count only, so the trial keys are synthetic; below ~1000 keys
// RocksDB builds Bloom filters instead, so at least 1000 are used. Bisection:
// ~30 trial builds.
double RibbonSettingForBitsPerKey(double bits_per_key, size_t num_keys, int bloom_before_level);

}  // namespace sstfilter::bench
