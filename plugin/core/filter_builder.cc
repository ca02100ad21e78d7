#include "plugin/core/filter_builder.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "plugin/core/kind_ops.h"

namespace sstfilter {

const char* KindName(FilterKind kind) {
  switch (kind) {
    case FilterKind::kAlwaysFalse: return "AlwaysFalse";
    case FilterKind::kAlwaysTrue: return "AlwaysTrue";
    case FilterKind::kStandardBloom: return "StandardBloom";
    case FilterKind::kBlockedBloom: return "BlockedBloom";
    case FilterKind::kRibbon: return "Ribbon";
  }
  return "Unknown";
}

const KindOps* OpsFor(FilterKind kind) {
  switch (kind) {
    case FilterKind::kStandardBloom: return &kStandardBloomOps;
    case FilterKind::kBlockedBloom: return &kBlockedBloomOps;
    case FilterKind::kRibbon: return &kRibbonOps;
    default: return nullptr;
  }
}

double BitsPerKeyForFpRate(const FilterConfig& config, double fp_rate) {
  const KindOps* ops = OpsFor(config.kind);
  return ops == nullptr ? 0.0 : ops->bits_per_key_for_fp_rate(config, fp_rate);
}

size_t FilterBuilder::PayloadBytes(size_t num_keys) const {
  const KindOps* ops = OpsFor(config_.kind);
  return num_keys == 0 || ops == nullptr ? 0 : ops->payload_bytes(config_, num_keys);
}

size_t FilterBuilder::BytesForKeys(size_t num_keys) const {
  return PayloadBytes(num_keys) + TrailerLen();
}

size_t FilterBuilder::KeysForBytes(size_t len_bytes) const {
  const size_t trailer_bytes = TrailerLen();
  if (len_bytes <= trailer_bytes) return 0;
  const double payload_bits = 8.0 * static_cast<double>(len_bytes - trailer_bytes);
  size_t n = static_cast<size_t>(payload_bits / std::max(config_.bits_per_key, 1e-3));
  // The estimate is close; settle exactly (sizes grow monotonically with n).
  while (n > 0 && BytesForKeys(n) > len_bytes) --n;
  while (BytesForKeys(n + 1) <= len_bytes) ++n;
  return n;
}

double FilterBuilder::PredictedFpRate(size_t num_keys, size_t len_bytes) const {
  const size_t trailer_bytes = TrailerLen();
  const KindOps* ops = OpsFor(config_.kind);
  if (num_keys == 0) return 0.0;
  if (len_bytes <= trailer_bytes || ops == nullptr) return 1.0;
  return ops->predicted_fp_rate(config_, num_keys, len_bytes - trailer_bytes);
}

size_t FilterBuilder::FinishScratchBytes(size_t num_keys) const {
  const KindOps* ops = OpsFor(config_.kind);
  return ops == nullptr ? 0
                        : static_cast<size_t>(ops->scratch_bytes_per_key *
                                              static_cast<double>(num_keys));
}

size_t FilterBuilder::ChooseLength(size_t num_keys) {
  const size_t trailer_bytes = TrailerLen();
  const size_t target = PayloadBytes(num_keys);
  const KindOps* ops = OpsFor(config_.kind);
  if (fit_.usable_size == nullptr || ops == nullptr || target == 0) {
    return target + trailer_bytes;
  }
  const size_t granularity = ops->payload_granularity_bytes;
  return FitLength(
      fit_, target + trailer_bytes,
      [&](size_t max_len) -> size_t {
        if (max_len < trailer_bytes + granularity) return 0;
        const size_t payload = max_len - trailer_bytes;
        return payload - payload % granularity + trailer_bytes;
      },
      [&](size_t len_bytes) { return PredictedFpRate(num_keys, len_bytes); });
}

FinishedBlock FilterBuilder::FinishAligned(std::vector<uint64_t>* kept_hashes) {
  const size_t trailer_bytes = TrailerLen();
  const size_t n = hashes_.size();
  const size_t payload_bytes = ChooseLength(n) - trailer_bytes;
  FinishedBlock out;
  out.len = payload_bytes + trailer_bytes;
  // Cache-line-aligned payload: a blocked filter's 64-byte lines then cover
  // one cache line each instead of two: half the lines touched per key when
  // building. RocksDB keeps `owner` alive while it uses `data`.
  out.owner.reset(new char[out.len + kBlockAlignment - 1]());
  const uintptr_t addr = reinterpret_cast<uintptr_t>(out.owner.get());
  char* block = out.owner.get() + ((kBlockAlignment - addr % kBlockAlignment) % kBlockAlignment);
  out.data = block;
  Trailer t;
  t.version = WrittenVersion(config_);
  t.num_keys = static_cast<uint32_t>(
      std::min<size_t>(n, std::numeric_limits<uint32_t>::max()));
  const KindOps* ops = OpsFor(config_.kind);
  if (n == 0) {
    t.kind = FilterKind::kAlwaysFalse;
  } else {
    t.kind = config_.kind;
    auto* payload = reinterpret_cast<uint8_t*>(block);
    BuildHashes hashes(&hashes_, &contiguous_);
    if (ops == nullptr || !ops->build(config_, hashes, payload, payload_bytes, &t)) {
      t = Trailer();  // AlwaysTrue: never a false negative
      t.version = WrittenVersion(config_);
      t.num_keys = static_cast<uint32_t>(
          std::min<size_t>(n, std::numeric_limits<uint32_t>::max()));
      std::fill(payload, payload + payload_bytes, 0);
    }
  }
  EncodeTrailer(t, block, payload_bytes);
  if (kept_hashes != nullptr) {
    if (!contiguous_.empty()) {
      kept_hashes->swap(contiguous_);
    } else {
      hashes_.MoveTo(kept_hashes);
    }
  }
  hashes_.Clear();
  contiguous_ = std::vector<uint64_t>();
  return out;
}

std::unique_ptr<char[]> FilterBuilder::Finish(size_t* len_bytes,
                                              std::vector<uint64_t>* kept_hashes) {
  FinishedBlock b = FinishAligned(kept_hashes);
  std::memmove(b.owner.get(), b.data, b.len);
  *len_bytes = b.len;
  return std::move(b.owner);
}

}  // namespace sstfilter
