#include "plugin/rocksdb/bits_reader.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <rocksdb/filter_policy.h>

#include "plugin/core/blocked_bloom_avx2_inline.h"
#include "plugin/core/blocked_bloom_avx512_inline.h"
#include "plugin/core/filter_reader.h"
#include "plugin/core/format.h"
#include "plugin/core/hash.h"

namespace sstfilter {
namespace {

// How a core reader takes a batch. Readers with a PreparedKey type query in
// two steps (PrepareBatchKey per key, then MayMatchPrepared on the batch:
// BlockedBloom, the whole batch in one call into its AVX2 kernel); the
// others get their key hashes, prefetched, one MayMatch each.
template <class R, class = void>
struct BatchOf {
  static constexpr bool kTwoStep = false;
  using Prepared = uint64_t;  // the key hash
};
template <class R>
struct BatchOf<R, std::void_t<typename R::PreparedKey>> {
  static constexpr bool kTwoStep = true;
  using Prepared = typename R::PreparedKey;
};

// One class per kind, so MayMatch compiles to the kind's kernel with no
// dispatch beyond RocksDB's own virtual call.
template <class CoreReader>
class TypedBitsReader : public ROCKSDB_NAMESPACE::FilterBitsReader {
 public:
  explicit TypedBitsReader(const CoreReader& core) : core_(core) {}

  bool MayMatch(const ROCKSDB_NAMESPACE::Slice& key) override {
    return core_.MayMatch(HashKey(key.data(), key.size()));
  }

  // MultiGet batches are at most 32 keys (MultiGetContext::MAX_BATCH_SIZE);
  // larger calls are taken in chunks. Each key's filter line is prefetched
  // as soon as the key is hashed, as RocksDB's own readers do, so the cache
  // misses of the chunk overlap each other and the hashing of later keys.
  void MayMatch(int num_keys, ROCKSDB_NAMESPACE::Slice** keys,
                bool* may_match) override {
    constexpr int kChunk = 32;
    typename BatchOf<CoreReader>::Prepared hashes[kChunk];
    for (int start = 0; start < num_keys; start += kChunk) {
      const int n = std::min(kChunk, num_keys - start);
      for (int i = 0; i < n; ++i) {
        const uint64_t h = HashKey(keys[start + i]->data(), keys[start + i]->size());
        if constexpr (BatchOf<CoreReader>::kTwoStep) {
          hashes[i] = core_.PrepareBatchKey(h);
        } else {
          core_.Prefetch(h);
          hashes[i] = h;
        }
      }
      if constexpr (BatchOf<CoreReader>::kTwoStep) {
        core_.MayMatchPrepared(hashes, static_cast<size_t>(n), may_match + start);
      } else {
        for (int i = 0; i < n; ++i) may_match[start + i] = core_.MayMatch(hashes[i]);
      }
    }
  }

 protected:
  const CoreReader& core() const { return core_; }

 private:
  const CoreReader core_;
};

#if SSTF_HAVE_X86
// MayMatch(key) of the BlockedBloom SIMD readers below, each of which
// defines `Query(key_hash)` compiled for TARGET. The single query compiles
// to one function (XXH3, the line, the probes), with no call through the
// shared library's PLT and none of the scalar path's register saves. Keys
// of up to 16 bytes take XXH3's shortest paths inline; longer keys go to
// MayMatchLongKey by a tail call. Inlining XXH3's longer paths as well
// would make every query save and restore three registers and realign the
// stack: about 10 more instructions on the ~50 of a negative query on a
// 16-byte key (GCC 12, x86-64).
#define SSTF_SIMD_READER_MAY_MATCH(TARGET)                                                \
  TARGET bool MayMatch(const ROCKSDB_NAMESPACE::Slice& key) override {                    \
    if (key.size() > kShortKeyBytes) return MayMatchLongKey(key);                        \
    return Query(HashKey(key.data(), key.size()));                                        \
  }                                                                                       \
  TARGET __attribute__((noinline)) bool MayMatchLongKey(const ROCKSDB_NAMESPACE::Slice& key) \
      const {                                                                             \
    return Query(HashKey(key.data(), key.size()));                                        \
  }                                                                                       \
  using TypedBitsReader::MayMatch; /* the batch */

constexpr size_t kShortKeyBytes = 16;

// BlockedBloom on a CPU with AVX2.
class BlockedBloomAvx2BitsReader final : public TypedBitsReader<BlockedBloomReader> {
 public:
  using TypedBitsReader::TypedBitsReader;
  SSTF_SIMD_READER_MAY_MATCH(__attribute__((target("avx2"))))

 private:
  __attribute__((target("avx2"), always_inline)) bool Query(uint64_t key_hash) const {
    return blocked_bloom::ReaderMayMatchAvx2(core(), key_hash);
  }
};

// Its common case (blocked_bloom::IsOneGroup: one line of at most eight
// probes per key) with seed 0, what sstfilter writes: straight-line code
// with no loop and no seed test.
class BlockedBloomAvx2OneGroupBitsReader final : public TypedBitsReader<BlockedBloomReader> {
 public:
  explicit BlockedBloomAvx2OneGroupBitsReader(const BlockedBloomReader& core)
      : TypedBitsReader(core), active_(blocked_bloom::ActiveLaneWindow(core.probes_per_line())) {}
  SSTF_SIMD_READER_MAY_MATCH(__attribute__((target("avx2"))))

 private:
  __attribute__((target("avx2"), always_inline)) bool Query(uint64_t h) const {
    return blocked_bloom::OneGroupLineMayMatchAvx2Inline(
        core().data() + blocked_bloom::FirstLine(h, core().num_lines()) * blocked_bloom::kLineBytes,
        h, active_);
  }

  const int32_t* const active_;
};

// The same on a CPU with AVX-512VL.
class BlockedBloomAvx512BitsReader final : public TypedBitsReader<BlockedBloomReader> {
 public:
  using TypedBitsReader::TypedBitsReader;
  SSTF_SIMD_READER_MAY_MATCH(SSTF_AVX512_TARGET)

 private:
  SSTF_AVX512_TARGET __attribute__((always_inline)) bool Query(uint64_t key_hash) const {
    return blocked_bloom::ReaderMayMatchAvx512(core(), key_hash);
  }
};

// And its common case, as BlockedBloomAvx2OneGroupBitsReader.
class BlockedBloomAvx512OneGroupBitsReader final
    : public TypedBitsReader<BlockedBloomReader> {
 public:
  explicit BlockedBloomAvx512OneGroupBitsReader(const BlockedBloomReader& core)
      : TypedBitsReader(core), active_(blocked_bloom::ActiveLanes(core.probes_per_line())) {}
  SSTF_SIMD_READER_MAY_MATCH(SSTF_AVX512_TARGET)

 private:
  SSTF_AVX512_TARGET __attribute__((always_inline)) bool Query(uint64_t h) const {
    return blocked_bloom::OneGroupLineMayMatchAvx512(
        core().data() + blocked_bloom::FirstLine(h, core().num_lines()) * blocked_bloom::kLineBytes,
        h, active_);
  }

  const __mmask8 active_;  // one bit per probe lane
};
#undef SSTF_SIMD_READER_MAY_MATCH
#endif

}  // namespace

BlockedBloomPath ChooseBlockedBloomPath(const BlockedBloomReader& core) {
  return {core.kernel(), blocked_bloom::IsOneGroup(core.probes_per_line(), core.lines_per_key()) &&
                             core.seed() == 0};
}

namespace {

// The reader for BlockedBloomPath; null for the scalar kernel.
ROCKSDB_NAMESPACE::FilterBitsReader* NewBlockedBloomSimdBitsReader(
    [[maybe_unused]] const BlockedBloomReader& core) {
#if SSTF_HAVE_X86
  const BlockedBloomPath path = ChooseBlockedBloomPath(core);
  switch (path.kernel) {
    case blocked_bloom::Kernel::kAvx512:
      if (path.one_group) return new BlockedBloomAvx512OneGroupBitsReader(core);
      return new BlockedBloomAvx512BitsReader(core);
    case blocked_bloom::Kernel::kAvx2:
      if (path.one_group) return new BlockedBloomAvx2OneGroupBitsReader(core);
      return new BlockedBloomAvx2BitsReader(core);
    case blocked_bloom::Kernel::kScalar:
      break;
  }
#endif
  return nullptr;
}

}  // namespace

ROCKSDB_NAMESPACE::FilterBitsReader* NewSstFilterBitsReader(
    const ROCKSDB_NAMESPACE::Slice& contents) {
  return VisitFilter(contents.data(), contents.size(),
                     [](const auto& core) -> ROCKSDB_NAMESPACE::FilterBitsReader* {
                       using Core = std::decay_t<decltype(core)>;
                       if constexpr (std::is_same_v<Core, BlockedBloomReader>) {
                         if (auto* simd = NewBlockedBloomSimdBitsReader(core)) return simd;
                       }
                       return new TypedBitsReader<Core>(core);
                     });
}

namespace {

// RocksDB's built-in reader trusts its bytes: they passed the block's
// checksum. A damaged, cut or extended sstfilter block can still reach it
// (its byte at len - 5 no longer 0x82 or 0x83), and there a layout RocksDB
// never writes reads past the block (FastLocalBloom shorter than one
// 64-byte line) or answers "no" for added keys. So it gets only blocks laid
// out as RocksDB writes them (7.8 to 11.x): its filters of no keys (none
// or 5 bytes, read as "no key matches"); FastLocalBloom: whole 64-byte
// lines; Ribbon: whole 16-byte column segments of at least 2 blocks of 128
// slots, at most 64 columns (a filter of 64+ bits per key); the legacy
// Bloom filter and the always-true and reserved markers, which its reader
// checks itself.
// A damaged block can still look like one of these; it is then far less
// likely to.
bool BuiltinLayout(const char* data, size_t len) {
  if (len == 0) return true;
  if (len < 5) return false;
  const auto* tail = reinterpret_cast<const uint8_t*>(data + len - 5);
  if (len == 5) {  // a filter of no keys: FastLocalBloom's metadata, or legacy with no lines
    const bool zeros = tail[1] == 0 && tail[3] == 0 && tail[4] == 0;
    return zeros && (tail[0] == 0xFF || (tail[0] >= 1 && tail[0] <= 127 && tail[2] == 0));
  }
  const size_t payload = len - 5;
  switch (static_cast<int8_t>(tail[0])) {
    case -1:
      return payload >= 64 && payload % 64 == 0;
    case -2: {
      const uint64_t num_blocks = tail[2] | uint64_t{tail[3]} << 8 | uint64_t{tail[4]} << 16;
      // At low bits per key some blocks have no column: fewer bytes than
      // blocks x 16 is a layout RocksDB writes.
      return payload % 16 == 0 && num_blocks >= 2 && payload <= num_blocks * 16 * 64;
    }
    default:
      return true;
  }
}

}  // namespace

ROCKSDB_NAMESPACE::FilterBitsReader* NewFamilyBitsReader(
    const ROCKSDB_NAMESPACE::Slice& contents) {
  if (HasSstFilterVersionByte(contents.data(), contents.size())) return NewSstFilterBitsReader(contents);
  if (IsFlippedSstFilterBlock(contents.data(), contents.size()) ||
      !BuiltinLayout(contents.data(), contents.size())) {
    return new TypedBitsReader<AlwaysTrueReader>(AlwaysTrueReader());
  }
  // Any built-in policy reads every built-in format, whatever its settings.
  static const ROCKSDB_NAMESPACE::FilterPolicy* const kBuiltin =
      ROCKSDB_NAMESPACE::NewBloomFilterPolicy(10);
  return kBuiltin->GetFilterBitsReader(contents);
}

}  // namespace sstfilter
