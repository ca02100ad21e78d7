// Turns untrusted filter bytes into the concrete reader for their kind.
//
// VisitFilter parses the block and calls `visit` with exactly one concrete
// reader type (each has MayMatch(uint64_t) and Prefetch(uint64_t)), so hot
// loops are compiled per kind with no per-query dispatch. Anything that
// cannot be trusted - short block, bad check, unknown version or kind, bad
// parameters - is visited as AlwaysTrueReader: never a false negative.
#pragma once

#include <cstddef>

#include "plugin/core/blocked_bloom.h"
#include "plugin/core/format.h"
#include "plugin/core/ribbon.h"
#include "plugin/core/standard_bloom.h"
#include "plugin/core/trivial_readers.h"

namespace sstfilter {

template <class Visitor>
auto VisitFilter(const char* data, size_t len_bytes, Visitor&& visit) {
  ParsedBlock block;
  if (ParseBlock(data, len_bytes, &block)) {
    switch (block.trailer.kind) {
      case FilterKind::kAlwaysFalse: {
        AlwaysFalseReader r;
        if (AlwaysFalseReader::Init(block, &r)) return visit(r);
        break;
      }
      case FilterKind::kStandardBloom: {
        StandardBloomReader r;
        if (StandardBloomReader::Init(block, &r)) return visit(r);
        break;
      }
      case FilterKind::kBlockedBloom: {
        BlockedBloomReader r;
        if (BlockedBloomReader::Init(block, &r)) return visit(r);
        break;
      }
      case FilterKind::kRibbon: {
        RibbonReader r;
        if (RibbonReader::Init(block, &r)) return visit(r);
        break;
      }
      default:
        break;
    }
  }
  return visit(AlwaysTrueReader());
}

// Convenience for tests and tools: one query against raw bytes.
inline bool FilterMayMatch(const char* data, size_t len_bytes, uint64_t key_hash) {
  return VisitFilter(data, len_bytes,
                     [&](const auto& r) { return r.MayMatch(key_hash); });
}

}  // namespace sstfilter
