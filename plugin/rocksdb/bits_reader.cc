#include "plugin/rocksdb/bits_reader.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <rocksdb/filter_policy.h>

#include "plugin/core/filter_reader.h"
#include "plugin/core/format.h"
#include "plugin/core/hash.h"

namespace sstfilter {
namespace {

// Core readers with their own batch query (BlockedBloom: the whole batch in
// one call into its AVX2 kernel).
template <class R, class = void>
struct HasBatch : std::false_type {};
template <class R>
struct HasBatch<R, std::void_t<decltype(std::declval<const R&>().MayMatchBatch(
                       static_cast<uint64_t*>(nullptr), size_t{0}, static_cast<bool*>(nullptr)))>>
    : std::true_type {};

// One class per kind, so MayMatch compiles to the kind's kernel with no
// dispatch beyond RocksDB's own virtual call.
template <class CoreReader>
class TypedBitsReader final : public ROCKSDB_NAMESPACE::FilterBitsReader {
 public:
  explicit TypedBitsReader(const CoreReader& core) : core_(core) {}

  bool MayMatch(const ROCKSDB_NAMESPACE::Slice& key) override {
    return core_.MayMatch(HashKey(key.data(), key.size()));
  }

  // MultiGet batches are at most 32 keys (MultiGetContext::MAX_BATCH_SIZE);
  // larger calls are taken in chunks. Hash and prefetch every key first, so
  // the cache misses of the whole chunk overlap instead of queueing.
  void MayMatch(int num_keys, ROCKSDB_NAMESPACE::Slice** keys,
                bool* may_match) override {
    constexpr int kChunk = 32;
    uint64_t hashes[kChunk];
    for (int start = 0; start < num_keys; start += kChunk) {
      const int n = std::min(kChunk, num_keys - start);
      for (int i = 0; i < n; ++i) {
        hashes[i] = HashKey(keys[start + i]->data(), keys[start + i]->size());
      }
      if constexpr (HasBatch<CoreReader>::value) {
        core_.MayMatchBatch(hashes, static_cast<size_t>(n), may_match + start);
      } else {
        for (int i = 0; i < n; ++i) core_.Prefetch(hashes[i]);
        for (int i = 0; i < n; ++i) may_match[start + i] = core_.MayMatch(hashes[i]);
      }
    }
  }

 private:
  const CoreReader core_;
};

}  // namespace

ROCKSDB_NAMESPACE::FilterBitsReader* NewSstFilterBitsReader(
    const ROCKSDB_NAMESPACE::Slice& contents) {
  return VisitFilter(contents.data(), contents.size(),
                     [](const auto& core) -> ROCKSDB_NAMESPACE::FilterBitsReader* {
                       using Core = std::decay_t<decltype(core)>;
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
