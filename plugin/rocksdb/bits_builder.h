// RocksDB FilterBitsBuilder over the pure core FilterBuilder.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "plugin/core/block_allocation.h"
#include "plugin/core/filter_builder.h"
#include "plugin/rocksdb/cache_reservation.h"
#include "plugin/rocksdb/compat.h"

namespace sstfilter {

class SstFilterBitsBuilder : public ROCKSDB_NAMESPACE::FilterBitsBuilder {
 public:
  // `detect_construct_corruption` is BlockBasedTableOptions::
  // detect_filter_construct_corruption, passed on by the policy.
  explicit SstFilterBitsBuilder(const FilterConfig& config,
                                bool detect_construct_corruption = false)
      : core_(config), detect_construct_corruption_(detect_construct_corruption) {}

  // optimize_filters_for_memory: lengths chosen for the allocator.
  void SetAllocatorFit(const AllocatorFit& fit) { core_.SetAllocatorFit(fit); }
  // Charges the builder's memory to `cache` (cache_reservation.h). If
  // Ribbon's banding cannot be reserved, that filter is built as
  // BlockedBloom at the same bits per key and `info_log` says so.
  void ChargeConstructionTo(std::shared_ptr<ROCKSDB_NAMESPACE::Cache> cache,
                            ROCKSDB_NAMESPACE::Logger* info_log);

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
  // As RocksDB's built-in builders: with detect_construct_corruption, the
  // hashes the filter is built from are checked against an XOR of the
  // hashes as they were added (catches memory corruption of the hash list)
  // and kept until MaybePostVerify. RocksDB 7.8 always calls this form.
  ROCKSDB_NAMESPACE::Slice Finish(std::unique_ptr<const char[]>* buf,
                                  ROCKSDB_NAMESPACE::Status* status) override;
  // Re-queries every kept hash against `filter_content` (what RocksDB is
  // about to write) and returns Corruption on any miss, i.e. on any damage
  // that would be a false negative. Like RocksDB's own check it cannot
  // tell a damaged trailer (the block then reads as "may match") from a
  // legitimate fallback block: costly, but never a wrong answer. OK and
  // no work when detection is off.
  ROCKSDB_NAMESPACE::Status MaybePostVerify(
      const ROCKSDB_NAMESPACE::Slice& filter_content) override;
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
  friend class SstFilterBitsBuilderTestPeer;  // damages hash_xor_ in a test

  void AddHash(uint64_t h);

  // With charging on: brings the reservation up to the hashes held, and
  // at Finish to the kind's scratch memory (or falls back).
  void ReserveForHashes();
  void ReserveForFinish();

  FilterBuilder core_;
  const bool detect_construct_corruption_;
  std::unique_ptr<CacheReservation> reservation_;
  ROCKSDB_NAMESPACE::Logger* info_log_ = nullptr;
  // With detection on: XOR of the distinct hashes added since Finish, the
  // hashes the last Finish built from, and what its check found.
  uint64_t hash_xor_ = 0;
  std::vector<uint64_t> kept_hashes_;
  ROCKSDB_NAMESPACE::Status construct_status_;
#if SSTF_HAS_ADD_KEY_AND_ALT
  bool have_alt_ = false;
  uint64_t last_alt_hash_ = 0;
#endif
};

}  // namespace sstfilter
