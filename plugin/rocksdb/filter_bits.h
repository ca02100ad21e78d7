// A filter policy's bits builder and reader for the tools, benchmarks and
// tests that build or query filter blocks without a table file.
//
// RocksDB's FilterBitsBuilder and FilterBitsReader are internal: their
// header is not installed and their vtables change between releases, so
// only the adapter (plugin/rocksdb/) includes it, through compat.h
// (tests/include_check.sh). These wrappers take and give RocksDB's public
// types only. They are not part of the plugin RocksDB loads: telling our
// builders from RocksDB's needs RTTI, which RocksDB's release build lacks.
#pragma once

#include <rocksdb/filter_policy.h>
#include <rocksdb/slice.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace sstfilter::bits {

// Whose model predicted an FP rate.
enum class FpModel { kNone, kSstfilter, kRocksDB };

// Every method but operator bool needs a builder: check it first.
class Builder {
 public:
  // The policy's builder for a new file in `context`; false when the policy
  // builds no filter there.
  Builder(const ROCKSDB_NAMESPACE::FilterPolicy& policy,
          const ROCKSDB_NAMESPACE::FilterBuildingContext& context);
  Builder(Builder&&) noexcept;
  Builder& operator=(Builder&&) noexcept;
  ~Builder();
  explicit operator bool() const { return builder_ != nullptr; }

  void AddKey(const ROCKSDB_NAMESPACE::Slice& key);
  // `n` keys of `key_bytes` bytes each, back to back: one call around the
  // whole loop, so a timed build times the builder alone.
  void AddKeys(const char* keys, size_t key_bytes, size_t n);
  // The block; *buf owns its bytes. The builder starts over, empty.
  ROCKSDB_NAMESPACE::Slice Finish(std::unique_ptr<const char[]>* buf);
  size_t ApproximateNumEntries(size_t bytes);

  // The builder's own prediction of the FP rate of `keys` keys in a block
  // of `bytes`: sstfilter's, or RocksDB's model of its built-in filters;
  // NaN for any other builder before RocksDB 10.9 (from 10.9 every builder
  // has the model's methods and counts as RocksDB's). *model (if given)
  // says whose.
  double EstimatedFpRate(size_t keys, size_t bytes, FpModel* model = nullptr) const;
  // RocksDB's size model (CalculateSpace: the bytes of a block of `keys`
  // keys), which every builder but sstfilter's has: HasRocksDBSpaceModel()
  // says whether this one does; CalculateSpace needs it.
  bool HasRocksDBSpaceModel() const;
  size_t CalculateSpace(size_t keys) const;

 private:
  std::unique_ptr<ROCKSDB_NAMESPACE::FilterBitsBuilder> builder_;
};

// Every method but operator bool needs a reader: check it first.
class Reader {
 public:
  // RocksDB's built-in readers size their batch scratch arrays by
  // MultiGetContext::MAX_BATCH_SIZE: no batch may be larger.
  static constexpr int kMaxBatch = 32;

  // The policy's reader of `block`, which must outlive it.
  Reader(const ROCKSDB_NAMESPACE::FilterPolicy& policy, const ROCKSDB_NAMESPACE::Slice& block);
  Reader(Reader&&) noexcept;
  Reader& operator=(Reader&&) noexcept;
  ~Reader();
  explicit operator bool() const { return reader_ != nullptr; }

  bool MayMatch(const ROCKSDB_NAMESPACE::Slice& key) const;
  // How many of `n` keys of `key_bytes` bytes each, back to back, may
  // match: one MayMatch per key, or batches of `batch` keys (taken into
  // 1..kMaxBatch).
  // The loops run here, so a timed pass times the reader alone.
  uint64_t CountMayMatch(const char* keys, size_t key_bytes, size_t n) const;
  uint64_t CountMayMatchBatched(const char* keys, size_t key_bytes, size_t n, int batch) const;

 private:
  std::unique_ptr<ROCKSDB_NAMESPACE::FilterBitsReader> reader_;
};

}  // namespace sstfilter::bits
