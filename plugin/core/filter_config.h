// What a policy asks its builders to produce. Pure data, no RocksDB types.
#pragma once

#include <string>

#include "plugin/core/format.h"

namespace sstfilter {

struct FilterConfig {
  FilterKind kind = FilterKind::kStandardBloom;
  // Filter memory per distinct key, trailer excluded: the payload of a filter
  // of n keys is ceil(bits_per_key * n / 8) bytes.
  double bits_per_key = 10.0;
  // BlockedBloom only: lines each key's probes spread over (1, or 2 for the
  // high-accuracy mode; see blocked_bloom.h).
  int lines_per_key = 1;
  // Block format to write: 3, or 2 for readers that predate version 3.
  uint8_t format_version = kFormatVersion;
};

// The version a builder of `config` writes: 2 if asked, else the current.
inline uint8_t WrittenVersion(const FilterConfig& config) {
  return config.format_version == 2 ? 2 : kFormatVersion;
}

// Human-readable name of a kind as used in policy ids ("StandardBloom").
const char* KindName(FilterKind kind);

// Bits per key a filter of config.kind (and its other settings; bits_per_key
// is ignored) needs for a predicted FP rate <= fp_rate, 0 < fp_rate < 1.
// May exceed kMaxBitsPerKey; callers refuse that.
double BitsPerKeyForFpRate(const FilterConfig& config, double fp_rate);

}  // namespace sstfilter
