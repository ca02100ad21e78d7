#include "plugin/rocksdb/bits_builder.h"

#include <rocksdb/env.h>

#include "plugin/core/filter_reader.h"
#include "plugin/core/format.h"
#include "plugin/core/hash.h"

namespace sstfilter {

void SstFilterBitsBuilder::AddHash(uint64_t h) {
  const size_t before = core_.NumKeyHashes();
  core_.AddKeyHash(h);
  if (core_.NumKeyHashes() == before) return;  // an adjacent repeat, not kept
  if (detect_construct_corruption_) hash_xor_ ^= h;
  // One more cache entry per 32K hashes (256 KiB of them).
  if (reservation_ != nullptr &&
      core_.NumKeyHashes() % (CacheReservation::kEntryBytes / sizeof(uint64_t)) == 1) {
    ReserveForHashes();
  }
}

void SstFilterBitsBuilder::ChargeConstructionTo(std::shared_ptr<ROCKSDB_NAMESPACE::Cache> cache,
                                                ROCKSDB_NAMESPACE::Logger* info_log) {
  reservation_ = std::make_unique<CacheReservation>(std::move(cache));
  info_log_ = info_log;
}

// A refused reservation for hashes is not an error: the hashes are already
// held, as RocksDB's built-ins do too.
void SstFilterBitsBuilder::ReserveForHashes() {
  reservation_->ReserveAtLeast(core_.NumKeyHashes() * sizeof(uint64_t));
}

void SstFilterBitsBuilder::ReserveForFinish() {
  const size_t n = core_.NumKeyHashes();
  const size_t scratch = core_.FinishScratchBytes(n);
  if (scratch == 0 || reservation_->ReserveAtLeast(n * sizeof(uint64_t) + scratch)) return;
  // As rocksdb.Ribbon falls back to Bloom: no error, no false negative.
  FilterConfig fallback = core_.config();
  fallback.kind = FilterKind::kBlockedBloom;
  fallback.lines_per_key = 1;
  ROCKSDB_NAMESPACE::Log(ROCKSDB_NAMESPACE::InfoLogLevel::WARN_LEVEL, info_log_,
                         "[sstfilter] block cache refused %zu bytes for building a %s filter "
                         "of %zu keys; building it as BlockedBloom",
                         scratch, KindName(core_.config().kind), n);
  core_.set_config(fallback);
}

void SstFilterBitsBuilder::AddKey(const ROCKSDB_NAMESPACE::Slice& key) {
  AddHash(HashKey(key.data(), key.size()));
}

#if SSTF_HAS_ADD_KEY_AND_ALT
void SstFilterBitsBuilder::AddKeyAndAlt(const ROCKSDB_NAMESPACE::Slice& key,
                                        const ROCKSDB_NAMESPACE::Slice& alt) {
  const uint64_t alt_hash = HashKey(alt.data(), alt.size());
  AddHash(HashKey(key.data(), key.size()));
  if (!have_alt_ || alt_hash != last_alt_hash_) AddHash(alt_hash);
  have_alt_ = true;
  last_alt_hash_ = alt_hash;
}
#endif

ROCKSDB_NAMESPACE::Slice SstFilterBitsBuilder::Finish(
    std::unique_ptr<const char[]>* buf) {
  // Aligned build (see FilterBuilder::FinishAligned); the Slice points into
  // the buffer RocksDB keeps alive for as long as it uses the filter.
  // A refused reservation switches this one filter to a fallback kind.
  const FilterConfig config = core_.config();
  if (reservation_ != nullptr) ReserveForFinish();
  FinishedBlock block =
      core_.FinishAligned(detect_construct_corruption_ ? &kept_hashes_ : nullptr);
  if (reservation_ != nullptr) {
    core_.set_config(config);
    reservation_->ReleaseAll();
  }
  if (detect_construct_corruption_) {
    // XOR is order-independent, so a kind that reorders hashes while
    // building still matches; a changed or lost hash does not.
    uint64_t x = 0;
    for (uint64_t h : kept_hashes_) x ^= h;
    construct_status_ = x == hash_xor_ ? ROCKSDB_NAMESPACE::Status::OK()
                                       : ROCKSDB_NAMESPACE::Status::Corruption(
                                             "sstfilter: filter hash list checksum mismatch");
    hash_xor_ = 0;
  }
  buf->reset(block.owner.release());
#if SSTF_HAS_ADD_KEY_AND_ALT
  have_alt_ = false;
#endif
  return ROCKSDB_NAMESPACE::Slice(block.data, block.len);
}

ROCKSDB_NAMESPACE::Slice SstFilterBitsBuilder::Finish(std::unique_ptr<const char[]>* buf,
                                                ROCKSDB_NAMESPACE::Status* status) {
  const ROCKSDB_NAMESPACE::Slice filter = Finish(buf);
  if (status != nullptr) {
    *status = construct_status_;
    // Reported here, so RocksDB skips MaybePostVerify (and must not get it
    // twice); the kept hashes are useless now.
    if (!construct_status_.ok()) {
      construct_status_ = ROCKSDB_NAMESPACE::Status::OK();
      kept_hashes_ = std::vector<uint64_t>();
    }
  }
  return filter;
}

ROCKSDB_NAMESPACE::Status SstFilterBitsBuilder::MaybePostVerify(
    const ROCKSDB_NAMESPACE::Slice& filter_content) {
  if (!detect_construct_corruption_) return ROCKSDB_NAMESPACE::Status::OK();
  // A check failure from the one-argument Finish, which could not report it.
  ROCKSDB_NAMESPACE::Status s = construct_status_;
  if (s.ok()) {
    const bool all_match =
        VisitFilter(filter_content.data(), filter_content.size(), [&](const auto& r) {
          for (uint64_t h : kept_hashes_) {
            if (!r.MayMatch(h)) return false;
          }
          return true;
        });
    if (!all_match) {
      s = ROCKSDB_NAMESPACE::Status::Corruption(
          "sstfilter: constructed filter misses a key it was built from");
    }
  }
  construct_status_ = ROCKSDB_NAMESPACE::Status::OK();
  // Release the memory now: a partitioned filter's builder lives on.
  kept_hashes_ = std::vector<uint64_t>();
  return s;
}

}  // namespace sstfilter
