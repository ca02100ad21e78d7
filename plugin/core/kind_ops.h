// What each filter kind provides to the generic FilterBuilder. Adding a kind
// means: a FilterKind value (format.h); an ops table in its own
// <kind>_builder.cc and a case in OpsFor (filter_builder.cc); a reader with
// Init/MayMatch/Prefetch and a case in VisitFilter (filter_reader.h); its
// policy id in kRegisteredKinds (plugin/rocksdb/register.cc); golden files
// (tests/golden/) and its layout in docs/FORMAT.md.
#pragma once

#include <cstddef>
#include <cstdint>

#include "plugin/core/filter_config.h"
#include "plugin/core/format.h"
#include "plugin/core/hash_chunks.h"

namespace sstfilter {

struct KindOps {
  // Payload bytes (trailer excluded) for num_keys >= 1 distinct hashes.
  size_t (*payload_bytes)(const FilterConfig& config, size_t num_keys);
  // Writes the payload (payload_bytes long, zero-filled on entry) from
  // hashes.size() >= 1 hashes and sets trailer->params and trailer->seed
  // (and may change trailer->kind, e.g. to a fallback kind). Reads the
  // hashes in place where it can; may gather and reorder them. Returns false
  // if it could not build; the builder then writes an AlwaysTrue block,
  // which is correct but useless.
  bool (*build)(const FilterConfig& config, BuildHashes& hashes, uint8_t* payload,
                size_t payload_bytes, Trailer* trailer);
  // Predicted FP rate of a filter of this kind holding num_keys keys in
  // payload_bytes.
  double (*predicted_fp_rate)(const FilterConfig& config, size_t num_keys,
                              size_t payload_bytes);
  // Bits per key this kind needs for a predicted FP rate <= fp_rate.
  double (*bits_per_key_for_fp_rate)(const FilterConfig& config, double fp_rate);
  // The payload lengths this kind can use are the multiples of this.
  size_t payload_granularity_bytes;
  // Memory build holds beyond the hashes and the payload, per key (for
  // cache charging): Ribbon's band, a 12-byte row per slot plus per-bucket
  // state (filter_bench measured 21.35 B/key at 100M keys with the 8-byte
  // hashes); 0 for the Bloom kinds, which set bits in place.
  double scratch_bytes_per_key;
};

// nullptr for kinds that are not built from keys (AlwaysTrue/AlwaysFalse).
const KindOps* OpsFor(FilterKind kind);

extern const KindOps kStandardBloomOps;
extern const KindOps kBlockedBloomOps;
extern const KindOps kRibbonOps;

}  // namespace sstfilter
