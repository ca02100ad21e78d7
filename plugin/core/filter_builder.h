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
// - Zero keys give a 16-byte kAlwaysFalse block.
// - BytesForKeys(n) is the exact size Finish will produce for n distinct
//   hashes; KeysForBytes is its inverse (the largest n that fits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "plugin/core/filter_config.h"

namespace sstfilter {

class FilterBuilder {
 public:
  explicit FilterBuilder(const FilterConfig& config) : config_(config) {}

  void AddKeyHash(uint64_t h) {
    if (hashes_.empty() || hashes_.back() != h) hashes_.push_back(h);
  }
  size_t NumKeyHashes() const { return hashes_.size(); }

  size_t BytesForKeys(size_t num_keys) const;
  size_t KeysForBytes(size_t len_bytes) const;
  // Predicted FP rate of a block of `len_bytes` holding `num_keys` keys.
  double PredictedFpRate(size_t num_keys, size_t len_bytes) const;

  std::unique_ptr<char[]> Finish(size_t* len_bytes);

  const FilterConfig& config() const { return config_; }

 private:
  size_t PayloadBytes(size_t num_keys) const;

  FilterConfig config_;
  std::vector<uint64_t> hashes_;
};

}  // namespace sstfilter
