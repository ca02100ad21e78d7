// plugin/rocksdb/filter_bits.h, the builder and reader the tools,
// benchmarks and most tests use instead of RocksDB's internal interface:
// it tells whose model predicts an FP rate the same way on every RocksDB
// version, its counting loops agree with MayMatch key by key, and a policy
// that builds no filter gives an empty builder.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include "plugin/rocksdb/api_compat.h"
#include "plugin/rocksdb/filter_bits.h"
#include "tests/db_options.h"
#include "tests/test_util.h"

namespace sstfilter {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using PolicyPtr = std::shared_ptr<const rdb::FilterPolicy>;

using test::PolicyFromId;

using test::kKeyBytes;

// `n` distinct keys of `family`, back to back.
std::vector<char> PackedKeys(size_t n, uint64_t family) {
  std::vector<char> keys;
  for (size_t i = 0; i < n; ++i) {
    const std::string key = test::Key(i, family);
    keys.insert(keys.end(), key.begin(), key.end());
  }
  return keys;
}

TEST(FilterBitsTest, SaysWhoseModelPredicts) {
  const rdb::BlockBasedTableOptions table_options = compat::ExactLengthTableOptions();
  const rdb::FilterBuildingContext context(table_options);
  for (const char* id : {"sstfilter.Ribbon:10", "sstfilter.BlockedBloom:10"}) {
    bits::Builder ours(*PolicyFromId(id), context);
    ASSERT_TRUE(ours) << id;
    bits::FpModel model = bits::FpModel::kNone;
    const double fp = ours.EstimatedFpRate(10000, 12500, &model);
    EXPECT_EQ(model, bits::FpModel::kSstfilter) << id;
    EXPECT_GT(fp, 0) << id;
    EXPECT_LT(fp, 0.02) << id;  // 10 bits per key
    // From RocksDB 10.9 our builders have the model's methods too.
    EXPECT_FALSE(ours.HasRocksDBSpaceModel()) << id;
  }
  for (const char* id : {"rocksdb.BloomFilter:10", "rocksdb.RibbonFilter:10:-1"}) {
    bits::Builder builtin(*PolicyFromId(id), context);
    ASSERT_TRUE(builtin) << id;
    ASSERT_TRUE(builtin.HasRocksDBSpaceModel()) << id;
    bits::FpModel model = bits::FpModel::kNone;
    const size_t bytes = builtin.CalculateSpace(10000);
    EXPECT_GT(builtin.EstimatedFpRate(10000, bytes, &model), 0) << id;
    EXPECT_EQ(model, bits::FpModel::kRocksDB) << id;
    // The model is RocksDB's size for the keys it is given.
    const std::vector<char> keys = PackedKeys(10000, 1);
    builtin.AddKeys(keys.data(), kKeyBytes, 10000);
    std::unique_ptr<const char[]> buf;
    EXPECT_EQ(builtin.Finish(&buf).size(), bytes) << id;
  }
}

TEST(FilterBitsTest, CountsAgreeWithMayMatch) {
  const rdb::BlockBasedTableOptions table_options;
  const rdb::FilterBuildingContext context(table_options);
  constexpr size_t kKeys = 3000, kQueries = 20001;
  const std::vector<char> present = PackedKeys(kKeys, 2);
  const std::vector<char> absent = PackedKeys(kQueries, 3);
  for (const char* id : {"sstfilter.Ribbon:6", "sstfilter.BlockedBloom:6", "rocksdb.BloomFilter:6"}) {
    const PolicyPtr policy = PolicyFromId(id);
    bits::Builder builder(*policy, context);
    ASSERT_TRUE(builder) << id;
    builder.AddKeys(present.data(), kKeyBytes, kKeys);
    std::unique_ptr<const char[]> buf;
    const rdb::Slice block = builder.Finish(&buf);
    const bits::Reader reader(*policy, block);
    ASSERT_TRUE(reader) << id;
    EXPECT_EQ(reader.CountMayMatch(present.data(), kKeyBytes, kKeys), kKeys) << id;
    uint64_t one_by_one = 0;
    for (size_t i = 0; i < kQueries; ++i) {
      one_by_one += reader.MayMatch(rdb::Slice(absent.data() + i * kKeyBytes, kKeyBytes));
    }
    // ~2-5% at 6 bits per key: false positives to count, so that the
    // comparisons below compare something.
    EXPECT_GT(one_by_one, 0u) << id;
    EXPECT_EQ(reader.CountMayMatch(absent.data(), kKeyBytes, kQueries), one_by_one) << id;
    // Batches of 7 and 32 leave a partial last batch (20,001 queries, 3,000
    // keys), up to RocksDB's largest.
    for (int batch : {1, 7, bits::Reader::kMaxBatch}) {
      EXPECT_EQ(reader.CountMayMatchBatched(absent.data(), kKeyBytes, kQueries, batch), one_by_one)
          << id << " batch " << batch;
      EXPECT_EQ(reader.CountMayMatchBatched(present.data(), kKeyBytes, kKeys, batch), kKeys)
          << id << " batch " << batch;
    }
  }
}

TEST(FilterBitsTest, NoFilterGivesAnEmptyBuilder) {
  const rdb::BlockBasedTableOptions table_options;
  rdb::FilterBuildingContext context(table_options);
  context.level_at_creation = 6;
  context.is_bottommost = true;
  context.reason = rdb::TableFileCreationReason::kCompaction;
  const PolicyPtr policy =
      PolicyFromId("{id=sstfilter.LevelAware;bits_per_key=10;bottommost_bits_per_key=0}");
  EXPECT_FALSE(bits::Builder(*policy, context));
  context.is_bottommost = false;
  EXPECT_TRUE(bits::Builder(*policy, context));
}

}  // namespace
}  // namespace sstfilter
