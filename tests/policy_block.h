// The filter block a RocksDB FilterPolicy (by its options-string id)
// builds from some keys, as a table builder would: for the tests of the
// readers under the shared family name.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

namespace sstfilter {
namespace test {

// Keys key(0) .. key(keys - 1); empty (and a test failure) if the policy id
// is not accepted.
inline std::string PolicyBlock(const std::string& policy_id, int keys,
                               const std::function<std::string(int)>& key,
                               bool optimize_filters_for_memory = false) {
  namespace rdb = ROCKSDB_NAMESPACE;
  std::shared_ptr<const rdb::FilterPolicy> policy;
  const rdb::Status s =
      rdb::FilterPolicy::CreateFromString(rdb::ConfigOptions(), policy_id, &policy);
  if (!s.ok() || policy == nullptr) {
    ADD_FAILURE() << policy_id << ": " << s.ToString();
    return std::string();
  }
  rdb::BlockBasedTableOptions table_options;
  table_options.optimize_filters_for_memory = optimize_filters_for_memory;
  std::unique_ptr<rdb::FilterBitsBuilder> builder(
      policy->GetBuilderWithContext(rdb::FilterBuildingContext(table_options)));
  for (int i = 0; i < keys; ++i) builder->AddKey(key(i));
  std::unique_ptr<const char[]> buf;
  return builder->Finish(&buf).ToString();
}

}  // namespace test
}  // namespace sstfilter
