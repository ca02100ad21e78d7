// Database options for tests that open real databases: a BlockBasedTable
// options string applied on top of `base`, and a filter policy by its id,
// parsed strictly (an unknown option or policy id fails the test instead
// of being dropped).
#pragma once

#include <gtest/gtest.h>
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>

#include <memory>
#include <string>

namespace sstfilter {
namespace test {

// e.g. WithTableOptions(base, "filter_policy=sstfilter.Ribbon:10"); an empty
// string keeps the default table (no filter). `base`'s statistics object,
// which the parser does not carry over, is kept.
inline ROCKSDB_NAMESPACE::Options WithTableOptions(const ROCKSDB_NAMESPACE::Options& base,
                                                   const std::string& table_options) {
  ROCKSDB_NAMESPACE::Options out;
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unsupported_options = false;
  const ROCKSDB_NAMESPACE::Status s = ROCKSDB_NAMESPACE::GetOptionsFromString(
      config, base, "block_based_table_factory={" + table_options + "}", &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  out.statistics = base.statistics;
  return out;
}

// The filter policy an options string names by `id` (e.g.
// "sstfilter.Ribbon:10"), parsed strictly; null, and the test fails, if
// the id is not one.
inline std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> PolicyFromId(const std::string& id) {
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unsupported_options = false;
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> policy;
  EXPECT_TRUE(ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(config, id, &policy).ok()) << id;
  return policy;
}

}  // namespace test
}  // namespace sstfilter
