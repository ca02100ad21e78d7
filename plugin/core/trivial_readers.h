// Readers that need no payload: the "may match everything" answer for
// untrusted or unknown blocks, and the "no key" answer for empty filters.
#pragma once

#include <cstdint>

#include "plugin/core/format.h"

namespace sstfilter {

class AlwaysTrueReader {
 public:
  bool MayMatch(uint64_t) const { return true; }
  void Prefetch(uint64_t) const {}
};

// Only a trusted block of kind kAlwaysFalse with no payload, no keys and zero
// params reads as "no": anything else about it is inconsistent.
class AlwaysFalseReader {
 public:
  static bool Init(const ParsedBlock& block, AlwaysFalseReader*) {
    return block.trailer.kind == FilterKind::kAlwaysFalse &&
           block.payload_bytes == 0 && block.trailer.num_keys == 0 &&
           block.trailer.params == 0 && block.trailer.seed == 0;
  }
  bool MayMatch(uint64_t) const { return false; }
  void Prefetch(uint64_t) const {}
};

}  // namespace sstfilter
