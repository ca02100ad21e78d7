#include "plugin/rocksdb/bits_reader.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <rocksdb/filter_policy.h>

#include "plugin/core/blocked_bloom_avx2_inline.h"
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
// BlockedBloom on a CPU with AVX2: the single query compiles to one function
// (XXH3, the line, the probes), with no call into the kernel's translation
// unit through the shared library's PLT and none of the scalar path's
// register saves.
class BlockedBloomAvx2BitsReader final : public TypedBitsReader<BlockedBloomReader> {
 public:
  using TypedBitsReader::TypedBitsReader;
  using TypedBitsReader::MayMatch;  // the batch

  __attribute__((target("avx2"))) bool MayMatch(const ROCKSDB_NAMESPACE::Slice& key) override {
    return blocked_bloom::ReaderMayMatchAvx2(core(), HashKey(key.data(), key.size()));
  }
};
#endif

}  // namespace

ROCKSDB_NAMESPACE::FilterBitsReader* NewSstFilterBitsReader(
    const ROCKSDB_NAMESPACE::Slice& contents) {
  return VisitFilter(contents.data(), contents.size(),
                     [](const auto& core) -> ROCKSDB_NAMESPACE::FilterBitsReader* {
                       using Core = std::decay_t<decltype(core)>;
#if SSTF_HAVE_X86
                       if constexpr (std::is_same_v<Core, BlockedBloomReader>) {
                         if (core.uses_avx2()) return new BlockedBloomAvx2BitsReader(core);
                       }
#endif
                       return new TypedBitsReader<Core>(core);
                     });
}

ROCKSDB_NAMESPACE::FilterBitsReader* NewFamilyBitsReader(
    const ROCKSDB_NAMESPACE::Slice& contents) {
  if (HasVersion2Byte(contents.data(), contents.size())) return NewSstFilterBitsReader(contents);
  // Any built-in policy reads every built-in format, whatever its settings.
  static const ROCKSDB_NAMESPACE::FilterPolicy* const kBuiltin =
      ROCKSDB_NAMESPACE::NewBloomFilterPolicy(10);
  return kBuiltin->GetFilterBitsReader(contents);
}

}  // namespace sstfilter
