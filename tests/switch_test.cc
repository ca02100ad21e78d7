// Switching a database between RocksDB's built-in filters and sstfilter's:
// both share the family name "rocksdb.BuiltinBloomFilter", so each side
// must read the other's blocks safely. sstfilter reads built-in blocks with
// RocksDB's own reader; RocksDB's reader reads sstfilter's (byte 0x83 at
// len - 5 in version 3, 0x82 in version 2: reserved markers) as "may
// match" for every key.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>

#include "plugin/core/format.h"
#include "plugin/rocksdb/api_compat.h"
#include "plugin/rocksdb/filter_bits.h"
#include "plugin/rocksdb/register.h"
#include "tests/temp_dir.h"
#include "tests/db_options.h"
#include "tests/test_util.h"

namespace sstfilter {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using PolicyPtr = std::shared_ptr<const rdb::FilterPolicy>;

PolicyPtr Policy(const std::string& id) { return test::PolicyFromId(id); }

// One filter block of `n` keys as `policy` writes it into an SST file.
std::string Block(const rdb::FilterPolicy& policy, size_t n) {
  const rdb::BlockBasedTableOptions table_options;
  bits::Builder b(policy, rdb::FilterBuildingContext(table_options));
  for (size_t i = 0; i < n; ++i) b.AddKey(test::Key(i, n));
  std::unique_ptr<const char[]> buf;
  const rdb::Slice s = b.Finish(&buf);
  return s.ToString();
}

const char* const kSstFilterIds[] = {"sstfilter.StandardBloom:10", "sstfilter.BlockedBloom:10",
                                     "{id=sstfilter.BlockedBloom;bits_per_key=20;lines_per_key=2}",
                                     "sstfilter.Ribbon:10", "sstfilter.Ribbon:1",
                                     "sstfilter.Ribbon:40", "sstfilter.LevelAware:10",
                                     "{id=sstfilter.Ribbon;bits_per_key=10;format_version=2}",
                                     "{id=sstfilter.BlockedBloom;bits_per_key=10;format_version=2}"};

// Every sstfilter block - every kind, 0 and 1 keys, Ribbon's Bloom fallback
// at a budget of 1 bit/key and its whole-Bloom range at 40 - reads as "may
// match" for every absent key through RocksDB's built-in readers.
TEST(SwitchTest, BuiltinReadersTakeSstFilterBlocksAsMayMatch) {
  const PolicyPtr builtins[] = {PolicyPtr(rdb::NewBloomFilterPolicy(10)),
                                PolicyPtr(rdb::NewRibbonFilterPolicy(10))};
  for (const char* id : kSstFilterIds) {
    const PolicyPtr ours = Policy(id);
    for (size_t n : {0, 1, 2, 100, 5000}) {
      const std::string block = Block(*ours, n);
      ASSERT_GE(block.size(), 6u) << id << " n=" << n;
      EXPECT_TRUE(HasSstFilterVersionByte(block.data(), block.size())) << id;
      for (const PolicyPtr& builtin : builtins) {
        const bits::Reader r(*builtin, block);
        int rejected = 0;
        for (int i = 0; i < 10000; ++i) rejected += !r.MayMatch(test::Key(i, 777));
        EXPECT_EQ(rejected, 0) << id << " n=" << n;
      }
    }
  }
}

// On built-in blocks (FastLocalBloom, Ribbon, legacy Bloom, empty), every
// sstfilter policy answers exactly as NewBloomFilterPolicy(10)'s reader.
TEST(SwitchTest, SstFilterPoliciesReadBuiltinBlocksAsRocksDBDoes) {
  const PolicyPtr reference(rdb::NewBloomFilterPolicy(10));
  std::vector<std::string> blocks;
  for (size_t n : {0, 1, 1000, 20000}) {
    blocks.push_back(Block(*PolicyPtr(rdb::NewBloomFilterPolicy(10)), n));
    blocks.push_back(Block(*PolicyPtr(rdb::NewRibbonFilterPolicy(10, -1)), n));
    blocks.push_back(Block(*Policy("rocksdb.internal.LegacyBloomFilter:10"), n));
  }
  for (const char* id : kSstFilterIds) {
    const PolicyPtr ours = Policy(id);
    for (const std::string& block : blocks) {
      const bits::Reader a(*ours, block);
      const bits::Reader b(*reference, block);
      int differ = 0, positives = 0;
      for (int i = 0; i < 20000; ++i) {
        const std::string key = test::Key(i, 1000);  // present in the 1000-key blocks
        const bool x = a.MayMatch(key);
        differ += x != b.MayMatch(key);
        positives += x;
      }
      EXPECT_EQ(differ, 0) << id << " block of " << block.size() << " bytes";
      (void)positives;
    }
  }
}

struct Shape {
  const char* name;
  bool partitioned;
  bool prefix;
};

rdb::Options OptionsWith(const PolicyPtr& policy, const Shape& shape) {
  rdb::Options o;
  o.create_if_missing = true;
  o.statistics = rdb::CreateDBStatistics();
  rdb::BlockBasedTableOptions t;
  t.filter_policy = policy;
  if (shape.partitioned) {
    t.partition_filters = true;
    t.index_type = rdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    t.metadata_block_size = 1024;
  }
  if (shape.prefix) o.prefix_extractor.reset(rdb::NewFixedPrefixTransform(8));
  o.table_factory.reset(rdb::NewBlockBasedTableFactory(t));
  return o;
}

std::unique_ptr<rdb::DB> Open(const rdb::Options& o, const std::string& path) {
  std::unique_ptr<rdb::DB> db;
  const rdb::Status s = compat::OpenDB(o, path, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return db;
}

constexpr int kKeys = 20000;

void Write(const rdb::Options& o, const std::string& path) {
  auto db = Open(o, path);
  for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(db->Put(rdb::WriteOptions(), test::Key(i), "v").ok());
  ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
  ASSERT_TRUE(db->CompactRange(rdb::CompactRangeOptions(), nullptr, nullptr).ok());
}

// Reopened with `o`: every key found; returns the share of absent lookups
// (keys inside the file's range) that a filter did not rule out: 1.0 with
// no filter or one that answers "may match" to everything.
double Read(const rdb::Options& o, const std::string& path) {
  auto db = Open(o, path);
  std::string v;
  for (int i = 0; i < kKeys; ++i) {
    EXPECT_TRUE(db->Get(rdb::ReadOptions(), test::Key(i), &v).ok()) << "lost key " << i;
  }
  const uint64_t useful0 = o.statistics->getTickerCount(rdb::BLOOM_FILTER_USEFUL);
  constexpr int kAbsent = 20000;
  for (int i = 0; i < kAbsent; ++i) {
    EXPECT_TRUE(db->Get(rdb::ReadOptions(), test::Key(kKeys + i), &v).IsNotFound());
  }
  const uint64_t useful = o.statistics->getTickerCount(rdb::BLOOM_FILTER_USEFUL) - useful0;
  return 1.0 - static_cast<double>(useful) / kAbsent;
}

// Built-in -> every sstfilter policy: the old files keep working filters
// (FP rate near FastLocalBloom's ~1% at 10 bits/key, not 100%). sstfilter
// -> the built-in: every key found, no error (the filters read as "may
// match"). Full, partitioned, and with a prefix extractor.
TEST(SwitchTest, DatabasesSwitchBothWaysWithoutLosingFiltersOrKeys) {
  for (const Shape& shape : {Shape{"full", false, false}, Shape{"partitioned", true, false},
                             Shape{"prefix", false, true}}) {
    SCOPED_TRACE(shape.name);
    const PolicyPtr builtin(rdb::NewBloomFilterPolicy(10));
    for (const char* id : {"sstfilter.BlockedBloom:10", "sstfilter.Ribbon:10",
                           "sstfilter.LevelAware:10"}) {
      SCOPED_TRACE(id);
      {
        test::TempDir dir;
        Write(OptionsWith(builtin, shape), dir.path());
        EXPECT_LT(Read(OptionsWith(Policy(id), shape), dir.path()), 0.03);
      }
      {
        test::TempDir dir;
        Write(OptionsWith(Policy(id), shape), dir.path());
        EXPECT_LT(Read(OptionsWith(Policy(id), shape), dir.path()), 0.03);
        EXPECT_EQ(Read(OptionsWith(builtin, shape), dir.path()), 1.0);  // all "may match"
        EXPECT_EQ(Read(OptionsWith(nullptr, shape), dir.path()), 1.0);  // no filter at all
      }
    }
  }
}

}  // namespace
}  // namespace sstfilter
