// Filter construction charged to the block cache
// (cache_usage_options kFilterConstruction): the cache's usage follows the
// builder's memory, and a full strict cache turns a Ribbon filter into a
// BlockedBloom one (as rocksdb.Ribbon falls back to Bloom), with no error
// and no false negative; `sstfilter inspect` shows which.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>

#include "plugin/rocksdb/api_compat.h"
#include "plugin/core/bloom_math.h"
#include "plugin/core/filter_builder.h"
#include "plugin/core/format.h"
#include "plugin/rocksdb/cache_reservation.h"
#include "plugin/rocksdb/filter_bits.h"
#include "plugin/tools/inspection.h"
#include "tests/temp_dir.h"
#include "tests/test_util.h"

namespace sstfilter {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

constexpr size_t kKeys = 1000000;
constexpr size_t kHashBytes = kKeys * sizeof(uint64_t);  // 8 MB

std::shared_ptr<rdb::Cache> OneShardCache(size_t capacity, bool strict) {
  rdb::LRUCacheOptions o;
  o.capacity = capacity;
  o.num_shard_bits = 0;  // one shard: every 256 KiB entry shows in the usage
  o.strict_capacity_limit = strict;
  return rdb::NewLRUCache(o);
}

rdb::BlockBasedTableOptions Charged(std::shared_ptr<rdb::Cache> cache) {
  rdb::BlockBasedTableOptions t;
  t.block_cache = std::move(cache);
  t.cache_usage_options.options_overrides.insert(
      {rdb::CacheEntryRole::kFilterConstruction,
       {rdb::CacheEntryRoleOptions::Decision::kEnabled}});
  return t;
}

std::shared_ptr<const rdb::FilterPolicy> Ribbon10() {
  std::shared_ptr<const rdb::FilterPolicy> p;
  rdb::ConfigOptions c;
  c.ignore_unsupported_options = false;
  EXPECT_TRUE(rdb::FilterPolicy::CreateFromString(c, "sstfilter.Ribbon:10", &p).ok());
  return p;
}

// The kind a finished block says it is.
FilterKind KindOf(const rdb::Slice& block) {
  ParsedBlock parsed;
  return ParseBlock(block.data(), block.size(), &parsed) ? parsed.trailer.kind
                                                          : FilterKind::kAlwaysTrue;
}

std::unique_ptr<rdb::DB> OpenDb(const rdb::Options& options, const std::string& path) {
  std::unique_ptr<rdb::DB> db;
  const rdb::Status s = compat::OpenDB(options, path, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return db;
}

TEST(ConstructionChargeTest, OnlyWhenAskedAndWithACache) {
  rdb::BlockBasedTableOptions t;
  EXPECT_FALSE(ChargesFilterConstruction(t));
  t = Charged(nullptr);
  EXPECT_FALSE(ChargesFilterConstruction(t));
  t = Charged(OneShardCache(1 << 20, false));
  EXPECT_TRUE(ChargesFilterConstruction(t));
  t.no_block_cache = true;
  EXPECT_FALSE(ChargesFilterConstruction(t));
}

// Usage rises with the hashes (8 bytes per key, in 256 KiB steps) and is
// back to zero once the filter is built.
TEST(ConstructionChargeTest, UsageFollowsTheBuilder) {
  const auto cache = OneShardCache(size_t{1} << 30, false);
  const auto policy = Ribbon10();
  bits::Builder b(*policy, rdb::FilterBuildingContext(Charged(cache)));
  EXPECT_EQ(cache->GetUsage(), 0u);
  for (size_t i = 0; i < kKeys; ++i) b.AddKey(test::Key(i));
  EXPECT_GE(cache->GetUsage(), kHashBytes);
  EXPECT_LE(cache->GetUsage(), kHashBytes + CacheReservation::kEntryBytes);
  std::unique_ptr<const char[]> buf;
  const rdb::Slice block = b.Finish(&buf);
  EXPECT_EQ(KindOf(block), FilterKind::kRibbon);
  EXPECT_EQ(cache->GetUsage(), 0u);
}

// A strict cache with room for the hashes but not for Ribbon's band: the
// filter is BlockedBloom at the same bits per key and has every key; with
// room for both it is Ribbon (so the first half can fail).
TEST(ConstructionChargeTest, FullStrictCacheFallsBackToBlockedBloom) {
  const auto policy = Ribbon10();
  for (const bool room : {false, true}) {
    const size_t capacity = kHashBytes + (room ? 16 : 2) * CacheReservation::kEntryBytes * 8;
    const auto cache = OneShardCache(capacity, true);
    bits::Builder b(*policy, rdb::FilterBuildingContext(Charged(cache)));
    for (size_t i = 0; i < kKeys; ++i) b.AddKey(test::Key(i));
    std::unique_ptr<const char[]> buf;
    const rdb::Slice block = b.Finish(&buf);
    ASSERT_EQ(KindOf(block), room ? FilterKind::kRibbon : FilterKind::kBlockedBloom) << room;
    EXPECT_EQ(cache->GetUsage(), 0u);
    const bits::Reader reader(*policy, block);
    for (size_t i = 0; i < kKeys; i += 7) ASSERT_TRUE(reader.MayMatch(test::Key(i))) << i;
  }
}

// End to end: a flush of 1M keys into a strict cache above a data block but
// below the band writes BlockedBloom (inspect says so); reopened with an
// ordinary cache, every key is found and absent keys are rejected at
// BlockedBloom's FP rate.
TEST(ConstructionChargeTest, DatabaseFileFallsBackAndStaysCorrect) {
  test::TempDir dir;
  rdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 256 << 20;  // one flush holds every key
  rdb::BlockBasedTableOptions t = Charged(OneShardCache(kHashBytes + (4 << 20), true));
  t.filter_policy = Ribbon10();
  options.table_factory.reset(rdb::NewBlockBasedTableFactory(t));
  {
    std::unique_ptr<rdb::DB> db = OpenDb(options, dir.path());
    for (size_t i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(db->Put(rdb::WriteOptions(), test::Key(i), "v").ok());
    }
    ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
  }
  tools::InspectOptions io;
  io.paths = {dir.path()};
  io.progress = tools::ProgressMode::kNever;
  tools::Inspection in;
  std::string error;
  std::ostringstream progress;
  ASSERT_TRUE(tools::Inspect(io, progress, false, &in, &error)) << error;
  ASSERT_EQ(in.files.size(), 1u);
  EXPECT_EQ(in.files[0].sst.block.kind, "BlockedBloom");

  t.block_cache = rdb::NewLRUCache(64 << 20);
  options.table_factory.reset(rdb::NewBlockBasedTableFactory(t));
  options.statistics = rdb::CreateDBStatistics();
  std::unique_ptr<rdb::DB> db = OpenDb(options, dir.path());
  std::string value;
  for (size_t i = 0; i < kKeys; i += 13) {
    ASSERT_TRUE(db->Get(rdb::ReadOptions(), test::Key(i), &value).ok()) << i;
  }
  const uint64_t useful_before = options.statistics->getTickerCount(rdb::BLOOM_FILTER_USEFUL);
  constexpr int kAbsent = 100000;
  for (int i = 0; i < kAbsent; ++i) {
    ASSERT_TRUE(db->Get(rdb::ReadOptions(), test::Key(i, 99), &value).IsNotFound());
  }
  const uint64_t fps =
      kAbsent - (options.statistics->getTickerCount(rdb::BLOOM_FILTER_USEFUL) - useful_before);
  const double p = BlockedBloomFpRate(10.0, OptimalBlockedBloomProbes(10.0, 1), 1);
  const auto bounds = test::PoissonBounds(p * kAbsent);
  EXPECT_GE(fps, bounds.lo);
  EXPECT_LE(fps, bounds.hi);
}

}  // namespace
}  // namespace sstfilter
