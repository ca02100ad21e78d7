// RocksDB's own model of its built-in filters, reached through RocksDB's
// code rather than re-derived: the built-in builder's CalculateSpace
// (memory for n keys) and ::EstimatedFpRate (FP rate of n keys in a block),
// the predictor filter_bench shows as "rocksdb" in its `predictor` column.
//
// RocksDB's Bloom builders choose their probe count from the configured
// bits per key, not from the block, and their EstimatedFpRate uses that
// same configured count. To predict a block that was written with p probes,
// the predictor therefore uses a builder configured with a setting that
// gives p probes, found by building small filters (probes are read from
// their metadata) and cached.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include <rocksdb/filter_policy.h>

#include "plugin/tools/filter_block_info.h"

namespace sstfilter::tools {

enum class BuiltinFilter { kBloom, kRibbon };

// rocksdb.Bloom at `setting`, or rocksdb.Ribbon at `setting` with
// bloom_before_level=-1: Ribbon in every file (lsm_bench's default), so the
// sizes below are Ribbon's. Made by MakeFilterPolicy (policy_factory.h).
std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> MakeBuiltinPolicy(BuiltinFilter filter,
                                                                         double setting);

// FP rate RocksDB predicts for a usable built-in block (`info` from
// DescribeBuiltinFilterBlock) of `block_bytes` (metadata included) holding
// `num_entries` keys. 0 for an empty block, NaN where RocksDB has no model
// (a probe count no setting produces).
double PredictBuiltinFpRate(const FilterBlockInfo& info, uint64_t num_entries,
                            size_t block_bytes);

// One built-in filter of `keys` keys, as RocksDB would size it.
struct BuiltinSizing {
  double setting = 0;  // the number given to NewBloomFilterPolicy / NewRibbonFilterPolicy
  uint64_t bytes = 0;  // CalculateSpace(keys), metadata included
  double fp_rate = 1;  // EstimatedFpRate(keys, bytes)
  int probes = 0;      // Bloom: probes per key of its filters
};

// The smallest setting whose predicted FP rate is <= fp_rate (by
// bisection; RocksDB accepts settings up to 100).
BuiltinSizing SizeBuiltinForFpRate(BuiltinFilter filter, uint64_t keys, double fp_rate);

// Bloom: the setting is the bits per key. Ribbon: its setting is
// "Bloom-equivalent", so this finds the setting whose memory is closest to
// bits_per_key actual bits per key.
BuiltinSizing SizeBuiltinForBitsPerKey(BuiltinFilter filter, uint64_t keys,
                                       double bits_per_key);

}  // namespace sstfilter::tools
