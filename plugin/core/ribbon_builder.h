// Construction of the bumped Ribbon filter (kind 5; reader and essay in
// ribbon.h). Exposed beyond kRibbonOps so tests can force the rare paths
// (retries, fallback) and benchmarks can report per-layer statistics.
#pragma once

#include <cstddef>
#include <cstdint>

#include "plugin/core/filter_config.h"
#include "plugin/core/format.h"
#include "plugin/core/ribbon.h"

namespace sstfilter {
namespace ribbon {

// Construction parameters. The defaults are what kRibbonOps writes; the
// reader needs none of them (log_bucket, t1, t2 travel in params).
struct Tuning {
  // B = 128 start positions per bucket: BuRR's w^2 / (4 log2 w) for w = 64,
  // rounded down to a power of two. 2 bits per 128 slots cost 0.016 bits
  // per key (0.4% at 4 bits per key); B = 256 halves that but leaves ~0.5%
  // of slots empty instead of ~0.06% (measured, 1M keys).
  int log_bucket = 7;
  // Slots per key of a bumped layer: overloaded, so nearly every slot fills.
  // 0.95 left 0.06% of slots empty at 1M keys, 0.98 0.35%.
  double slots_per_key = 0.95;
  // Bump thresholds (offsets in the bucket): BuRR's 2-bit rule for
  // eps = -0.05, keep (0.91 + 0.75 eps) B and (0.78 + 1.30 eps) B.
  uint32_t t1 = 16;
  uint32_t t2 = 36;
  // Lead control (ribbon_band.h, StartBucket): a bucket bumps its lowest
  // groups when more than max_lead of its keys would spill past it, and
  // only groups whose offsets the spill into it covers with lead_margin
  // to spare. 48: 16 walk steps per key instead of 21, +0.03% empty slots.
  // 40 builds faster still (fewer keys walk far), with overhead within
  // noise of 48's at 10K and 1M keys.
  int64_t max_lead = 40;
  int64_t lead_margin = 4;
  // Layers of at least twice this many buckets are banded as two
  // interleaved streams (~10 empty slots at the seam).
  uint64_t min_buckets_per_stream = 16;
  // Phantom lead of stream 1's first bucket (ribbon_band.h, BandBumped).
  // max_lead: at 10K keys 53 empty slots on average instead of 62 with 64
  // (40 key sets), so 7% of filters need a block more instead of 22%.
  int64_t seam_lead = 40;
  // Fewer keys than this go to one plain Ribbon layer (no codes).
  size_t min_burr_keys = 256;
  // The plain last layer starts at this many slots per key (plus extra) and
  // grows last_growth_slots at a time while unsolvable: it is small, so
  // trying is cheaper than slack. Its rows are cut at the filter's end
  // (compact end, last_tail slots after its last start): no 63-slot tail
  // that only spill could fill.
  double last_slots_per_key = 1.0;
  uint32_t last_extra_slots = 0;
  uint32_t last_growth_slots = 4;
  // Slots after the last layer's last start. With 0, keys starting in the
  // last few slots have rows of a few bits, and the layer needed many
  // growth steps: 44 / 87 empty slots on average at 2000 / 4000 keys; 8 to
  // 32 all gave 13-15 (30 filters each, 10 bits/key), spill filling most
  // of the tail.
  uint32_t last_tail = 16;
  int max_last_growth = 64;
  int max_seeds = 4;  // then a standard Bloom filter of the same size
};

struct BuildStats {
  int seeds_tried = 0;
  bool fell_back = false;  // wrote a standard Bloom filter instead
  int num_layers = 0;
  uint64_t total_slots = 0;                // S
  uint64_t empty_slots = 0;                // slots no key pivots on
  uint64_t starts_in_layer[kMaxLayers] = {};  // R_j
};

// Builds kind 5 into `payload` (zero-filled, payload_bytes long) from
// num_keys >= 1 hashes, which it reorders (sorting in place). Never
// fails: after `max_seeds` seeds, or when the payload is too small for a
// Ribbon worth having, it writes a standard Bloom filter of the same size and
// sets trailer->kind = kStandardBloom.
void BuildRibbon(const Tuning& tuning, const FilterConfig& config, uint64_t* hashes,
                 size_t num_keys, uint8_t* payload, size_t payload_bytes, Trailer* trailer,
                 BuildStats* stats);

// Predicted FP rate of what BuildRibbon writes for num_keys in payload_bytes,
// from the expected layout (the realised one differs by a fraction of a
// percent in slots, far below the Poisson noise of any test).
double PredictedFpRate(const Tuning& tuning, const FilterConfig& config, size_t num_keys,
                       size_t payload_bytes);

}  // namespace ribbon
}  // namespace sstfilter
