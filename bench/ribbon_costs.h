// Where sstfilter.Ribbon's false positives go, over bound.Ribbon's at the
// same lengths: each fixed cost of a built filter taken out of the
// bound in turn. For a filter of len bytes and n keys, the expected FP
// rate of
//   bound           every bit a solution column: chord at 8 len / n bits
//   + trailer, header   less the block trailer and the payload header
//   + bump codes    less the layers' 2-bit codes too
//   + empty slots   what is left shared by S slots (S - n keys short)
//                   instead of n
//   as built        the filter's own column split: r or r + 1 columns per
//                   64-slot block, whole 8-byte words, so up to 7 bytes of
//                   padding and a split by whole blocks; queries routed as
//                   the reader routes them (a bumped start moves on to the
//                   next layer, whose blocks may have other columns)
// Each is an expectation over random absent keys, free of counting noise
// (the steps before the last with every start alike); memory_bench prints
// them beside the counted FP rate.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sstfilter::bench {

struct RibbonCosts {
  uint64_t filters = 0;   // Ribbon filters taken apart (not fallbacks)
  uint64_t skipped = 0;   // blocks that were no Ribbon, or not rebuilt alike
  // Sums over filters of the expected FP rate at each step (above).
  double bound = 0, no_header = 0, no_codes = 0, no_empty = 0, built = 0;
  // Sums over filters, bytes and slots.
  uint64_t trailer_bytes = 0, header_bytes = 0, code_bytes = 0, padding_bytes = 0;
  uint64_t empty_slots = 0;
};

// Adds the sstfilter Ribbon block `block` (len bytes, built by the plugin
// from the keys whose HashKey values are `hashes`, n of them) to *costs.
// The block is rebuilt from the hashes with the core builder to learn its
// slots; a block that does not rebuild byte for byte is skipped (counted).
void AddRibbonCosts(const char* block, size_t len, uint64_t* hashes, size_t n,
                    RibbonCosts* costs);

}  // namespace sstfilter::bench
