// Accumulates key hashes and writes one sstfilter block (format.h).
//
// Contract, shared by every kind:
// - AddKeyHash skips a hash equal to the previous one: RocksDB adds keys in
//   sorted order, so repeated keys (and repeated prefixes) arrive adjacent.
//   Non-adjacent duplicates are kept; they only cost space, never
//   correctness.
// - Finish builds from the hashes added since the last Finish and leaves the
//   builder empty and reusable (partitioned filters build many blocks with
//   one builder).
// - Zero keys give a kAlwaysFalse block of the trailer alone (8 bytes).
// - BytesForKeys(n) is the exact size Finish will produce for n distinct
//   hashes, unless an AllocatorFit is set (alloc_fit.h): Finish then picks
//   a neighbouring length whose allocation has no slack, BytesForKeys(n) on
//   average. KeysForBytes is its inverse (the largest n that fits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "plugin/core/alloc_fit.h"
#include "plugin/core/filter_config.h"
#include "plugin/core/hash_chunks.h"

namespace sstfilter {

struct KindOps;
struct Trailer;

// A finished block: `len` bytes at `data`, which points into `owner` and is
// aligned to kBlockAlignment.
struct FinishedBlock {
  std::unique_ptr<char[]> owner;
  const char* data = nullptr;
  size_t len = 0;
};
constexpr size_t kBlockAlignment = 64;

class FilterBuilder {
 public:
  explicit FilterBuilder(const FilterConfig& config) : config_(config) {}

  void AddKeyHash(uint64_t h) {
    if (hashes_.empty() || hashes_.back() != h) hashes_.Append(h);
  }
  size_t NumKeyHashes() const { return hashes_.size(); }

  // Sizes every later filter for the allocator (optimize_filters_for_memory).
  void SetAllocatorFit(const AllocatorFit& fit) { fit_ = fit; }
  // The length the next Finish writes for num_keys distinct hashes:
  // BytesForKeys(num_keys), or with an AllocatorFit the fitted length, which
  // takes a turn of the rounding balance as Finish does.
  size_t ChooseLength(size_t num_keys);

  size_t BytesForKeys(size_t num_keys) const;
  size_t KeysForBytes(size_t len_bytes) const;
  // Predicted FP rate of a block of `len_bytes` holding `num_keys` keys.
  double PredictedFpRate(size_t num_keys, size_t len_bytes) const;

  // With `kept_hashes`, the hashes the block was built from (in some order)
  // are moved there instead of being dropped, so the caller can verify the
  // block against them (RocksDB's detect_filter_construct_corruption).
  std::unique_ptr<char[]> Finish(size_t* len_bytes,
                                 std::vector<uint64_t>* kept_hashes = nullptr);
  // The same, without the final move to the start of the allocation: what
  // the RocksDB adapter uses (its Finish returns a Slice into the buffer).
  FinishedBlock FinishAligned(std::vector<uint64_t>* kept_hashes = nullptr);

  const FilterConfig& config() const { return config_; }
  // Changes what later filters are built as (hashes added so far are kept).
  void set_config(const FilterConfig& config) { config_ = config; }
  // Memory Finish will hold for num_keys hashes beyond the hashes and the
  // filter itself (Ribbon's band; see KindOps::scratch_bytes_per_key).
  size_t FinishScratchBytes(size_t num_keys) const;

 private:
  size_t PayloadBytes(size_t num_keys) const;
  // Bytes of the trailer this builder writes (docs/FORMAT.md).
  size_t TrailerLen() const { return TrailerBytes(WrittenVersion(config_)); }

  FilterConfig config_;
  AllocatorFit fit_;
  HashChunks hashes_;
  std::vector<uint64_t> contiguous_;  // only during Finish of a kind that gathers hashes
};

}  // namespace sstfilter
