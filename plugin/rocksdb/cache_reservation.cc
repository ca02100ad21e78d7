#include "plugin/rocksdb/cache_reservation.h"

#include <atomic>
#include <cstring>

namespace sstfilter {

namespace rdb = ROCKSDB_NAMESPACE;

bool ChargesFilterConstruction(const rdb::BlockBasedTableOptions& table_options) {
  if (table_options.no_block_cache || table_options.block_cache == nullptr) return false;
  const auto& usage = table_options.cache_usage_options;
  const auto it = usage.options_overrides.find(rdb::CacheEntryRole::kFilterConstruction);
  const auto decision =
      it != usage.options_overrides.end() ? it->second.charged : usage.options.charged;
  // kFallback means RocksDB's default for this role: not charged.
  return decision == rdb::CacheEntryRoleOptions::Decision::kEnabled;
}

CacheReservation::CacheReservation(std::shared_ptr<rdb::Cache> cache) : cache_(std::move(cache)) {
  static std::atomic<uint64_t> next_id{1};
  id_ = next_id.fetch_add(1, std::memory_order_relaxed);
}

bool CacheReservation::ReserveAtLeast(size_t bytes) {
  while (reserved_bytes() < bytes) {
    // Key: "sstfres" + this reservation's id + entry number.
    char key[24];
    std::memcpy(key, "sstfres", 8);
    const uint64_t n = handles_.size();
    std::memcpy(key + 8, &id_, 8);
    std::memcpy(key + 16, &n, 8);
    rdb::Cache::Handle* handle = nullptr;
    const rdb::Status s = compat::InsertReservation(cache_.get(), rdb::Slice(key, sizeof(key)),
                                                    kEntryBytes, &handle);
    if (!s.ok() || handle == nullptr) return false;
    handles_.push_back(handle);
  }
  return true;
}

void CacheReservation::ReleaseAll() {
  for (rdb::Cache::Handle* handle : handles_) cache_->Release(handle, /*erase_if_last_ref=*/true);
  handles_.clear();
}

}  // namespace sstfilter
