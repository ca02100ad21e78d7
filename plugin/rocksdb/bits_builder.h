// RocksDB FilterBitsBuilder over the pure core FilterBuilder.
#pragma once

#include <cstdint>
#include <memory>

#include "plugin/core/filter_builder.h"
#include "plugin/rocksdb/compat.h"

namespace sstfilter {

class SstFilterBitsBuilder : public ROCKSDB_NAMESPACE::FilterBitsBuilder {
 public:
  explicit SstFilterBitsBuilder(const FilterConfig& config) : core_(config) {}

  void AddKey(const ROCKSDB_NAMESPACE::Slice& key) override;
#if SSTF_HAS_ADD_KEY_AND_ALT
  // `alt` (usually the key's prefix) is deduplicated against the previous
  // alt, the key against the previous key, as RocksDB's own builders do.
  void AddKeyAndAlt(const ROCKSDB_NAMESPACE::Slice& key,
                    const ROCKSDB_NAMESPACE::Slice& alt) override;
#endif
  // Distinct adjacent hashes so far: what Finish will size the filter for.
  size_t EstimateEntriesAdded() override { return core_.NumKeyHashes(); }
  using ROCKSDB_NAMESPACE::FilterBitsBuilder::Finish;
  ROCKSDB_NAMESPACE::Slice Finish(std::unique_ptr<const char[]>* buf) override;
  size_t ApproximateNumEntries(size_t bytes) override {
    return core_.KeysForBytes(bytes);
  }
  size_t CalculateSpace(size_t num_entries) SSTF_OVERRIDE_SPACE_METHODS {
    return core_.BytesForKeys(num_entries);
  }
  double EstimatedFpRate(size_t num_entries, size_t bytes) SSTF_OVERRIDE_SPACE_METHODS {
    return core_.PredictedFpRate(num_entries, bytes);
  }

 private:
  FilterBuilder core_;
#if SSTF_HAS_ADD_KEY_AND_ALT
  bool have_alt_ = false;
  uint64_t last_alt_hash_ = 0;
#endif
};

}  // namespace sstfilter
