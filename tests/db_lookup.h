// MultiGet in batches, as RocksDB users call it, for tests that look up
// every key of a real database.
#pragma once

#include <rocksdb/db.h>

#include <algorithm>
#include <string>
#include <vector>

namespace sstfilter {
namespace test {

// Looks up `keys` with MultiGet, 32 per call, and calls
// check(key, status, value) for each; stops when check returns false.
template <class Check>
void MultiGetInBatches(ROCKSDB_NAMESPACE::DB* db, const ROCKSDB_NAMESPACE::ReadOptions& ro,
                       const std::vector<std::string>& keys, const Check& check) {
  constexpr size_t kBatch = 32;
  for (size_t start = 0; start < keys.size(); start += kBatch) {
    const size_t n = std::min(kBatch, keys.size() - start);
    std::vector<ROCKSDB_NAMESPACE::Slice> slices(keys.begin() + start, keys.begin() + start + n);
    std::vector<ROCKSDB_NAMESPACE::PinnableSlice> values(n);
    std::vector<ROCKSDB_NAMESPACE::Status> statuses(n);
    db->MultiGet(ro, db->DefaultColumnFamily(), n, slices.data(), values.data(),
                 statuses.data());
    for (size_t j = 0; j < n; ++j) {
      if (!check(keys[start + j], statuses[j], values[j])) return;
    }
  }
}

}  // namespace test
}  // namespace sstfilter
