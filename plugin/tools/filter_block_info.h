// What a filter block's own bytes say about it: the kind of filter, its
// parameters, and whether a reader can answer from it. Two encodings:
// - sstfilter blocks end in the trailer of plugin/core/format.h (kind,
//   parameters, a check; versions 1 and 2 also the number of keys);
// - RocksDB's built-in filters end in 5 bytes of metadata (RocksDB 7.8.3
//   table/block_based/filter_policy.cc, GetBuiltinFilterBitsReader):
//     byte -5: probes of the legacy Bloom filter (1..127), or a marker:
//              0 "no probes" (matches everything), -1 newer Bloom, -2 Ribbon;
//     -1: byte -4 sub-implementation (0 = FastLocalBloom), byte -3 block
//         size (top 3 bits, 0 = 64 bytes) and probes (low 5 bits, 1..30),
//         bytes -2..-1 reserved, zero;
//     -2: byte -4 seed, bytes -3..-1 number of 128-slot blocks (>= 2);
//     legacy: bytes -4..-1 number of cache lines.
//   A block of at most 5 bytes holds no key.
// Pure: no RocksDB headers; every byte untrusted.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "plugin/core/format.h"

namespace sstfilter::tools {

enum class FilterEncoding { kSstFilter, kRocksDbBuiltin };

enum class BuiltinKind { kNone, kEmpty, kFastLocalBloom, kLegacyBloom, kRibbon };

struct FilterBlockInfo {
  FilterEncoding encoding = FilterEncoding::kSstFilter;
  // "StandardBloom", "BlockedBloom", "Ribbon", "FastLocalBloom",
  // "Standard128Ribbon", "LegacyBloom", "AlwaysFalse", "AlwaysTrue", or
  // "unreadable".
  std::string kind;
  // A reader answers from the block. False for blocks that read as "may
  // match" for every key (damaged, reserved encodings, AlwaysTrue): such a
  // filter saves no read.
  bool usable = false;
  std::string problem;  // why not usable, for people
  int probes = 0;       // Bloom kinds: probes per key (BlockedBloom: per line)
  int lines_per_key = 0;  // BlockedBloom: lines each key's probes use
  // sstfilter blocks of format versions 1 and 2 record their keys;
  // version 3 and built-in blocks do not.
  bool has_num_keys = false;
  uint64_t num_keys = 0;
  uint8_t sstfilter_version = 0;  // 1, 2 or 3; 0 for built-in blocks
  FilterKind sstfilter_kind = FilterKind::kAlwaysTrue;
  // 0 for a built-in block that holds no key; NaN for every other block,
  // whose FP rate the caller predicts from its keys (PredictSstFilterFpRate,
  // builtin_predictor.h).
  double predicted_fp_rate = std::numeric_limits<double>::quiet_NaN();
  BuiltinKind builtin_kind = BuiltinKind::kNone;
};

FilterBlockInfo DescribeSstFilterBlock(std::string_view block);
FilterBlockInfo DescribeBuiltinFilterBlock(std::string_view block);

// FP rate of an sstfilter block of `block_bytes` holding `num_keys` keys, as
// the core predicts it: 1 if not usable, 0 for AlwaysFalse.
double PredictSstFilterFpRate(const FilterBlockInfo& info, uint64_t num_keys, size_t block_bytes);

}  // namespace sstfilter::tools
