// Level-aware filter memory: which filter kind, and how many bits per key,
// each level of an LSM tree gets out of one memory budget, so that lookups
// of absent keys waste as few data-block reads as possible.
//
// A lookup of an absent key consults the filters of every L0 file and of at
// most one file per deeper level, so its expected wasted reads are
//   W = sum_i checks_i * fp_i(bits_i),
// while the filter memory is sum_i keys_i * bits_i. Minimising W at fixed
// memory (Lagrange) gives checks_i * (-fp_i'(bits_i)) = lambda * keys_i: with
// fp = 2^-bits (Ribbon), fp_i is proportional to keys_i / checks_i, i.e.
// every level gets the bits of the budget plus log2 of how much smaller its
// share of the keys is (Monkey: Dayan, Athanassoulis, Idreos, SIGMOD 2017).
// The planner solves the general form numerically on the core's own FP
// models. Its input is the shape an LSM has (keys and checks per level),
// which the RocksDB adapter learns from the live files
// (plugin/rocksdb/shape_listener.h). Derivation and the cases (universal,
// FIFO, ingested files): docs/LEVEL_AWARE.md. Pure math.
#pragma once

#include <vector>

#include "plugin/core/filter_config.h"

namespace sstfilter {

// One level of an LSM as lookups see it.
struct LevelLoad {
  double keys = 0;    // entries the level's files hold
  double checks = 0;  // filters of this level an absent key consults, on average
};
// Index = level (0 = L0).
using LsmShape = std::vector<LevelLoad>;

struct LevelPlan {
  double key_share = 0.0;  // fraction of all keys in this level
  double checks = 0.0;     // filters an absent key consults here
  bool has_filter = true;
  FilterConfig filter;     // meaningful when has_filter
  double fp_rate = 1.0;    // predicted FP rate of one check; 1 without filter
};

// The plan for `shape` that spends `budget` bits per key over its keys:
// per level the kind (Ribbon, or BlockedBloom where its curve is lower) and
// the bits minimising sum(checks * fp). One plan per level of `shape`.
// Levels without keys get Ribbon at the budget (a file written there is
// planned like any uniform filter), share 0. With bottommost_bits_per_key
// >= 0, the deepest level with keys is fixed at that many bits (0: no
// filter) and the rest share the remaining budget. The plan spends exactly
// the budget unless every free level is at kMaxBitsPerKey.
std::vector<LevelPlan> PlanForShape(const LsmShape& shape, double budget,
                                    double bottommost_bits_per_key = -1);

// The expected shape of a tree with dynamic level sizing: `populated_levels`
// levels ending at num_levels - 1, each `level_size_ratio` times the one
// above, one check each; L0 as large as the first of them, over `l0_files`
// checks. For documentation and tests of the math; the policy plans from
// the live shape.
LsmShape GeometricShape(int num_levels, int populated_levels, double level_size_ratio,
                        double l0_files);

// The FP model the planner uses: a large filter of `kind` (kRibbon or
// kBlockedBloom) at bits_per_key in [kMinBitsPerKey, kMaxBitsPerKey], for
// BlockedBloom with the better of one and two lines per key, which
// PlannedLinesPerKey returns.
double PlannedFpRate(FilterKind kind, double bits_per_key);
int PlannedLinesPerKey(double bits_per_key);

// sum(key_share * bits_per_key) and sum(checks * fp_rate) of a plan.
double PlannedBitsPerKey(const std::vector<LevelPlan>& plan);
double PlannedWastedReads(const std::vector<LevelPlan>& plan);

// What `bits_per_key` of filter memory buys in `shape`, in wasted reads per
// miss:
// - spread uniformly over every key with the planner's Ribbon curve;
// - split optimally with filters at the information-theoretic bound
//   (fp = 2^-bits, bits >= 0 per level): Monkey's optimum, which no real
//   filter reaches.
double UniformRibbonWastedReads(const LsmShape& shape, double bits_per_key);
double OptimalWastedReads(const LsmShape& shape, double bits_per_key);

}  // namespace sstfilter
