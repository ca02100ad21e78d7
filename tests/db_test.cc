// sstfilter inside a real RocksDB: policies selected by options string,
// several SST files through flush and compaction, reopen, Get and MultiGet,
// statistics proving the filter answered with the predicted FP rate; also
// partitioned filters, prefix filtering, SstFileWriter ingestion and the
// OPTIONS file round trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/utilities/options_util.h>

#include "plugin/rocksdb/api_compat.h"
#include "plugin/core/bloom_math.h"
#include "plugin/core/filter_builder.h"
#include "plugin/rocksdb/policy.h"
#include "tests/db_lookup.h"
#include "tests/db_options.h"
#include "tests/temp_dir.h"
#include "tests/test_util.h"

namespace sstfilter {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

constexpr int kKeys = 40000;  // present keys: even indexes 0, 2, ..., 2*(kKeys-1)

std::string DbKey(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "user%06d:%08d", i / 100, i);  // 11-byte prefix "userNNNNNN:"
  return buf;
}

std::string Value(int i) { return std::string(100, static_cast<char>('a' + i % 26)); }

struct FilterStats {
  uint64_t useful, positive, true_positive;
  uint64_t false_positives() const { return positive - true_positive; }
  uint64_t negatives_checked() const { return useful + false_positives(); }
};

class DbTest : public ::testing::Test {
 protected:
  // Options from an options string, as a user would write them. Small
  // memtables so the load makes many SST files.
  rdb::Options MakeOptions(const std::string& table_options) {
    rdb::Options base;
    base.create_if_missing = true;
    base.write_buffer_size = 256 << 10;
    base.target_file_size_base = 512 << 10;
    base.statistics = rdb::CreateDBStatistics();
    return test::WithTableOptions(base, table_options);
  }

  void Open(const rdb::Options& options) {
    db_.reset();
    const rdb::Status s = compat::OpenDB(options, dir_, &db_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    options_ = options;
  }

  void Load() {
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(db_->Put(rdb::WriteOptions(), DbKey(2 * i), Value(i)).ok());
    }
    ASSERT_TRUE(db_->Flush(rdb::FlushOptions()).ok());
  }

  FilterStats Stats() const {
    auto* st = options_.statistics.get();
    return {st->getTickerCount(rdb::BLOOM_FILTER_USEFUL),
            st->getTickerCount(rdb::BLOOM_FILTER_FULL_POSITIVE),
            st->getTickerCount(rdb::BLOOM_FILTER_FULL_TRUE_POSITIVE)};
  }

  // Whole-key and prefix checks together (the prefix tickers have no
  // positive count of their own: checked - useful).
  FilterStats PrefixStats() const {
    auto* st = options_.statistics.get();
    const FilterStats whole = Stats();
    const uint64_t checked = st->getTickerCount(rdb::BLOOM_FILTER_PREFIX_CHECKED);
    const uint64_t useful = st->getTickerCount(rdb::BLOOM_FILTER_PREFIX_USEFUL);
    return {whole.useful + useful, whole.positive + (checked - useful), whole.true_positive};
  }

  int NumSstFiles() {
    std::string v;
    EXPECT_TRUE(db_->GetProperty("rocksdb.num-files-at-level0", &v));
    int total = 0;
    for (int level = 0; level < 7; ++level) {
      db_->GetProperty("rocksdb.num-files-at-level" + std::to_string(level), &v);
      total += std::atoi(v.c_str());
    }
    return total;
  }

  // Every SST must carry `policy_name`: the guard against the "unknown id
  // silently means no filter" trap.
  void ExpectPolicyInEveryTable(const std::string& policy_name) {
    rdb::TablePropertiesCollection props;
    ASSERT_TRUE(db_->GetPropertiesOfAllTables(&props).ok());
    ASSERT_FALSE(props.empty());
    for (const auto& [file, p] : props) {
      EXPECT_EQ(p->filter_policy_name, policy_name) << file;
      EXPECT_GT(p->filter_size, 0u) << file;
    }
  }

  // One flush, no compaction: a single SST whose filter partitions depend
  // only on the keys, so FP counts do not vary with background timing.
  void OpenSingleFile(const std::string& table_options) {
    rdb::Options options = MakeOptions(table_options);
    options.write_buffer_size = 64 << 20;
    options.disable_auto_compactions = true;
    Open(options);
    Load();
    ASSERT_EQ(NumSstFiles(), 1);
    Open(options_);  // filters read back from disk
  }

  // Every present key is found by Get and MultiGet.
  void ExpectAllPresent() {
    std::string value;
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(db_->Get(rdb::ReadOptions(), DbKey(2 * i), &value).ok()) << i;
      ASSERT_EQ(value, Value(i));
    }
    std::vector<std::string> keys;
    for (int i = 0; i < kKeys; ++i) keys.push_back(DbKey(2 * i));
    test::MultiGetInBatches(db_.get(), rdb::ReadOptions(), keys,
                            [](const std::string& key, const rdb::Status& s, const auto&) {
                              EXPECT_TRUE(s.ok()) << key << " " << s.ToString();
                              return s.ok();
                            });
  }

  // Absent keys interleaved with present ones (odd indexes), by Get and by
  // MultiGet; returns the filter statistics those lookups added.
  FilterStats LookUpAbsent(int count) {
    const FilterStats before = Stats();
    std::string value;
    for (int i = 0; i < count / 2; ++i) {
      EXPECT_TRUE(db_->Get(rdb::ReadOptions(), DbKey(2 * (i % kKeys) + 1), &value).IsNotFound());
    }
    std::vector<std::string> keys;
    for (int i = count / 2; i < count; ++i) keys.push_back(DbKey(2 * (i % kKeys) + 1));
    std::vector<rdb::Slice> slices(keys.begin(), keys.end());
    std::vector<rdb::PinnableSlice> values(keys.size());
    std::vector<rdb::Status> statuses(keys.size());
    db_->MultiGet(rdb::ReadOptions(), db_->DefaultColumnFamily(), keys.size(), slices.data(),
                  values.data(), statuses.data());
    for (const auto& s : statuses) EXPECT_TRUE(s.IsNotFound());
    const FilterStats after = Stats();
    return {after.useful - before.useful, after.positive - before.positive,
            after.true_positive - before.true_positive};
  }

  // The observed false positives must be a Poisson draw around the predicted
  // rate of a standard Bloom filter of `bits_per_key` (large-n form: each
  // SST filter holds thousands of keys, so rounding adds < 0.01 bit/key).
  void ExpectFpRateNear(const FilterStats& s, double bits_per_key) {
    ExpectFpRateNearPredicted(
        s, StandardBloomFpRate(bits_per_key, OptimalStandardBloomProbes(bits_per_key)));
  }

  // The same around any predicted FP rate `p`.
  void ExpectFpRateNearPredicted(const FilterStats& s, double p) {
    ASSERT_GT(s.negatives_checked(), 20000u) << "the filter was not consulted";
    const auto bounds = test::PoissonBounds(p * static_cast<double>(s.negatives_checked()));
    EXPECT_GE(static_cast<double>(s.false_positives()), bounds.lo);
    EXPECT_LE(static_cast<double>(s.false_positives()), bounds.hi)
        << "useful " << s.useful << " fp " << s.false_positives() << " predicted " << p;
  }

  // Closes the database and moves to a new, empty directory (the old one
  // is removed), for a test that builds more than one database.
  void FreshDirectory() {
    db_.reset();
    tmp_ = std::make_unique<test::TempDir>("sstfilter_db_test");
    dir_ = tmp_->path();
  }

  // Declared before db_, so the database is closed before its directory goes.
  std::unique_ptr<test::TempDir> tmp_ = std::make_unique<test::TempDir>("sstfilter_db_test");
  std::string dir_ = tmp_->path();
  rdb::Options options_;
  std::unique_ptr<rdb::DB> db_;
};

TEST_F(DbTest, FlushCompactReopenGetMultiGet) {
  const auto options = MakeOptions("filter_policy=sstfilter.StandardBloom:10");
  Open(options);
  Load();
  EXPECT_GE(NumSstFiles(), 4) << "want several SST files";
  ExpectAllPresent();
  ExpectFpRateNear(LookUpAbsent(60000), 10.0);

  ASSERT_TRUE(db_->CompactRange(rdb::CompactRangeOptions(), nullptr, nullptr).ok());
  Open(options);  // reopen: filters are read back from disk
  ExpectPolicyInEveryTable("sstfilter.StandardBloom");
  ExpectAllPresent();
  ExpectFpRateNear(LookUpAbsent(60000), 10.0);
}

TEST_F(DbTest, FpRateFollowsTheBudget) {
  Open(MakeOptions("filter_policy=sstfilter.StandardBloom:6"));
  Load();
  ExpectFpRateNear(LookUpAbsent(40000), 6.0);
}

TEST_F(DbTest, PartitionedFilters) {
  OpenSingleFile(
      "filter_policy=sstfilter.StandardBloom:10;partition_filters=true;"
      "index_type=kTwoLevelIndexSearch;metadata_block_size=1024");
  ExpectPolicyInEveryTable("sstfilter.StandardBloom");
  rdb::TablePropertiesCollection props;
  ASSERT_TRUE(db_->GetPropertiesOfAllTables(&props).ok());
  for (const auto& [file, p] : props) EXPECT_GT(p->index_partitions, 0u) << file;
  ExpectAllPresent();
  // Partitions are cut at ~1 KiB, so each filter block holds ~800 keys; the
  // large-n prediction still holds to well within the Poisson bound.
  ExpectFpRateNear(LookUpAbsent(60000), 10.0);
}

// From RocksDB 10.9 on, target_file_size_is_upper_bound makes compaction
// cut its output files near the target, estimating each file's tail after
// every data block, the filter with the builder's CalculateSpace. RocksDB
// 11.8 still lets files with a full filter pass the target by ~0.8% (its
// own Bloom filter too: the index and the last data block), so the
// reference is RocksDB's own Bloom filter at the same bits per key: no
// sstfilter file may be larger than the largest of its files plus one
// 64-byte line (the Bloom kinds' granularity). At 30 bits per key the
// filter is ~3% of a file (100-byte values), so a size model that
// undercounts it by half would add ~4 KB.
TEST_F(DbTest, OutputFilesStayWithinTheTargetSize) {
#if !SSTF_ROCKSDB_AT_LEAST(10, 9)
  GTEST_SKIP() << "target_file_size_is_upper_bound exists from RocksDB 10.9 on";
#else
  auto largest_file = [&](const std::string& policy) -> uint64_t {
    rdb::Options options = MakeOptions("filter_policy=" + policy);
    options.target_file_size_base = 256 << 10;
    options.target_file_size_is_upper_bound = true;
    options.write_buffer_size = 8 << 20;  // one L0 file per load
    options.compression = rdb::kNoCompression;
    Open(options);
    Load();
    Load();  // the same keys again: two overlapping L0 files, merged (not moved)
    EXPECT_TRUE(db_->CompactRange(rdb::CompactRangeOptions(), nullptr, nullptr).ok());
    std::vector<rdb::LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    EXPECT_GE(files.size(), 10u) << policy;
    uint64_t largest = 0;
    for (const auto& f : files) largest = std::max<uint64_t>(largest, f.size);
    ExpectAllPresent();
    db_.reset();
    EXPECT_TRUE(rdb::DestroyDB(dir_, options).ok());
    return largest;
  };
  const uint64_t reference = largest_file("bloomfilter:30:false");
  EXPECT_LE(reference, (256u << 10) * 101 / 100) << "RocksDB's own cut changed";
  for (const std::string policy :
       {"sstfilter.Ribbon:30", "sstfilter.BlockedBloom:30", "sstfilter.StandardBloom:30"}) {
    EXPECT_LE(largest_file(policy), reference + 64) << policy;
  }
#endif
}

TEST_F(DbTest, PrefixFilterWithoutWholeKeys) {
  rdb::Options options = MakeOptions(
      "filter_policy=sstfilter.StandardBloom:10;whole_key_filtering=false");
  options.prefix_extractor.reset(rdb::NewFixedPrefixTransform(11));
  Open(options);
  Load();
  ExpectAllPresent();
  // Keys whose 11-byte prefix is in no file but which fall inside the files'
  // key ranges: "userNNNNNN" + a character other than ':'. Every lookup uses
  // a distinct prefix, so the filter answers are independent draws.
  // Get counts prefix checks in the whole-key tickers up to RocksDB 7.x and
  // in the prefix tickers later (PrefixStats sums both).
  const FilterStats before = PrefixStats();
  std::string value;
  const int num_prefixes = 2 * kKeys / 100;
  for (int i = 0; i < 20000; ++i) {
    const char c = static_cast<char>('<' + i / num_prefixes);  // '<' .. past 'Z', never ':'
    char buf[32];
    std::snprintf(buf, sizeof(buf), "user%06d%c%08d", i % num_prefixes, c, i);
    ASSERT_TRUE(db_->Get(rdb::ReadOptions(), buf, &value).IsNotFound());
  }
  const FilterStats after = PrefixStats();
  const uint64_t useful = after.useful - before.useful;
  const uint64_t positive = after.positive - before.positive;
  ASSERT_GT(useful + positive, 10000u) << "the prefix filter was not consulted";
  const double p = StandardBloomFpRate(10.0, 7);
  const auto bounds = test::PoissonBounds(p * static_cast<double>(useful + positive));
  EXPECT_GE(static_cast<double>(positive), bounds.lo);
  EXPECT_LE(static_cast<double>(positive), bounds.hi) << "useful " << useful;
  // Prefix iteration still sees every key of a present prefix.
  rdb::ReadOptions ro;
  ro.prefix_same_as_start = true;
  std::unique_ptr<rdb::Iterator> it(db_->NewIterator(ro));
  int seen = 0;
  for (it->Seek("user000003:"); it->Valid(); it->Next()) ++seen;
  EXPECT_EQ(seen, 50);  // indexes 300..399, even ones present
}

TEST_F(DbTest, SstFileWriterAndIngest) {
  const auto options = MakeOptions("filter_policy=sstfilter.StandardBloom:10");
  Open(options);
  const std::string sst = dir_ + "/ingest.sst";
  rdb::SstFileWriter writer(rdb::EnvOptions(), options);
  ASSERT_TRUE(writer.Open(sst).ok());
  for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(writer.Put(DbKey(2 * i), Value(i)).ok());
  ASSERT_TRUE(writer.Finish().ok());
  ASSERT_TRUE(db_->IngestExternalFile({sst}, rdb::IngestExternalFileOptions()).ok());
  ExpectPolicyInEveryTable("sstfilter.StandardBloom");
  ExpectAllPresent();
  ExpectFpRateNear(LookUpAbsent(60000), 10.0);
}

// RocksDB writes the policy into the OPTIONS file; a DB reopened from that
// file alone must run with the same policy and configuration.
TEST_F(DbTest, OptionsFileRoundTrip) {
  Open(MakeOptions("filter_policy={id=sstfilter.StandardBloom;fp_rate=0.02}"));
  Load();
  db_.reset();

  rdb::ConfigOptions config_options;
  config_options.ignore_unsupported_options = false;
  rdb::DBOptions db_options;
  std::vector<rdb::ColumnFamilyDescriptor> cfs;
  ASSERT_TRUE(rdb::LoadLatestOptions(config_options, dir_, &db_options, &cfs).ok());
  ASSERT_EQ(cfs.size(), 1u);
  auto* table = cfs[0].options.table_factory->GetOptions<rdb::BlockBasedTableOptions>();
  ASSERT_NE(table, nullptr);
  auto* policy = dynamic_cast<const SstFilterPolicy*>(table->filter_policy.get());
  ASSERT_NE(policy, nullptr) << "OPTIONS file lost the sstfilter policy";
  EXPECT_DOUBLE_EQ(policy->ResolvedConfig().bits_per_key,
                   StandardBloomBitsPerKeyForFpRate(0.02));

  rdb::Options reopened(db_options, cfs[0].options);
  reopened.statistics = rdb::CreateDBStatistics();
  Open(reopened);
  ASSERT_TRUE(db_->Put(rdb::WriteOptions(), DbKey(2 * kKeys), "new").ok());
  ASSERT_TRUE(db_->Flush(rdb::FlushOptions()).ok());
  ExpectPolicyInEveryTable("sstfilter.StandardBloom");
  ExpectFpRateNear(LookUpAbsent(40000), StandardBloomBitsPerKeyForFpRate(0.02));
}

// The OPTIONS file shows the options as people write them ("bits_per_key=10",
// not "1e+01"), and reopening from it gives the same option values.
TEST_F(DbTest, OptionsFileWritesOptionsAsWritten) {
  Open(MakeOptions("filter_policy=sstfilter.Ribbon:10"));
  Load();
  db_.reset();

  std::string name;
  ASSERT_TRUE(rdb::GetLatestOptionsFileName(dir_, rdb::Env::Default(), &name).ok());
  std::ifstream in(dir_ + "/" + name);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("filter_policy={id=sstfilter.Ribbon;bits_per_key=10;}"), std::string::npos)
      << text.substr(text.find("filter_policy"), 120);

  rdb::ConfigOptions config_options;
  config_options.ignore_unsupported_options = false;
  rdb::DBOptions db_options;
  std::vector<rdb::ColumnFamilyDescriptor> cfs;
  ASSERT_TRUE(rdb::LoadLatestOptions(config_options, dir_, &db_options, &cfs).ok());
  auto* table = cfs[0].options.table_factory->GetOptions<rdb::BlockBasedTableOptions>();
  ASSERT_NE(table, nullptr);
  auto* reopened = dynamic_cast<const SstFilterPolicy*>(table->filter_policy.get());
  ASSERT_NE(reopened, nullptr);
  std::shared_ptr<const rdb::FilterPolicy> written;
  ASSERT_TRUE(rdb::FilterPolicy::CreateFromString(config_options, "sstfilter.Ribbon:10", &written)
                  .ok());
  EXPECT_EQ(reopened->ResolvedConfig().bits_per_key, 10.0);
  std::string mismatch;
  EXPECT_TRUE(written->AreEquivalent(config_options, reopened, &mismatch)) << mismatch;
}

// Cache-blocked Bloom, both modes, through flush, compaction, reopen and
// partitioned filters; FP rate around the blocked-Bloom prediction.
TEST_F(DbTest, BlockedBloomBothModes) {
  for (int lines : {1, 2}) {
    SCOPED_TRACE(lines);
    FreshDirectory();
    const double bpk = lines == 1 ? 10.0 : 16.0;
    const std::string policy = "filter_policy={id=sstfilter.BlockedBloom;bits_per_key=" +
                               std::to_string(static_cast<int>(bpk)) +
                               ";lines_per_key=" + std::to_string(lines) + "}";
    const double p =
        BlockedBloomFpRate(bpk, OptimalBlockedBloomProbes(bpk, lines), lines);
    Open(MakeOptions(policy));
    Load();
    ExpectAllPresent();
    ExpectFpRateNearPredicted(LookUpAbsent(60000), p);
    ASSERT_TRUE(db_->CompactRange(rdb::CompactRangeOptions(), nullptr, nullptr).ok());
    Open(options_);
    ExpectPolicyInEveryTable("sstfilter.BlockedBloom");
    ExpectAllPresent();
    ExpectFpRateNearPredicted(LookUpAbsent(60000), p);
  }
}

TEST_F(DbTest, BlockedBloomPartitioned) {
  OpenSingleFile(
      "filter_policy=sstfilter.BlockedBloom:10;partition_filters=true;"
      "index_type=kTwoLevelIndexSearch;metadata_block_size=1024");
  ExpectPolicyInEveryTable("sstfilter.BlockedBloom");
  ExpectAllPresent();
  // Partitions are cut when a ~1 KiB filter is full: 768 keys in 15 lines.
  FilterBuilder builder(FilterConfig{FilterKind::kBlockedBloom, 10.0, 1});
  const size_t keys = builder.KeysForBytes(1024);
  ExpectFpRateNearPredicted(LookUpAbsent(60000),
                            builder.PredictedFpRate(keys, builder.BytesForKeys(keys)));
}

// Ribbon (kind 5): its FP rate depends on the filter's own layout, so the
// prediction is the builder's, averaged over the SST files weighted by the
// keys each holds (lookups land in files in proportion to their key ranges).
double RibbonPredictedFp(double bits_per_key, const std::vector<uint64_t>& keys_per_filter) {
  FilterBuilder builder(FilterConfig{FilterKind::kRibbon, bits_per_key});
  double weighted = 0, total = 0;
  for (uint64_t n : keys_per_filter) {
    weighted += n * builder.PredictedFpRate(n, builder.BytesForKeys(n));
    total += n;
  }
  return weighted / total;
}

TEST_F(DbTest, RibbonFlushCompactReopen) {
  constexpr double kBitsPerKey = 7.3;  // fractional: r_lo = 7 and 8 mixed
  Open(MakeOptions("filter_policy=sstfilter.Ribbon:7.3"));
  Load();
  EXPECT_GE(NumSstFiles(), 4) << "want several SST files";
  ExpectAllPresent();
  ASSERT_TRUE(db_->CompactRange(rdb::CompactRangeOptions(), nullptr, nullptr).ok());
  Open(options_);
  ExpectPolicyInEveryTable("sstfilter.Ribbon");
  ExpectAllPresent();
  rdb::TablePropertiesCollection props;
  ASSERT_TRUE(db_->GetPropertiesOfAllTables(&props).ok());
  std::vector<uint64_t> keys_per_filter;
  for (const auto& [file, p] : props) keys_per_filter.push_back(p->num_entries);
  ExpectFpRateNearPredicted(LookUpAbsent(60000), RibbonPredictedFp(kBitsPerKey, keys_per_filter));
}

TEST_F(DbTest, RibbonPartitioned) {
  OpenSingleFile(
      "filter_policy=sstfilter.Ribbon:10;partition_filters=true;"
      "index_type=kTwoLevelIndexSearch;metadata_block_size=1024");
  ExpectPolicyInEveryTable("sstfilter.Ribbon");
  rdb::TablePropertiesCollection props;
  ASSERT_TRUE(db_->GetPropertiesOfAllTables(&props).ok());
  for (const auto& [file, p] : props) EXPECT_GT(p->index_partitions, 0u) << file;
  ExpectAllPresent();
  // Partitions are cut at ~1 KiB of filter: ~800 keys each, a Ribbon of a
  // few BuRR blocks whose predicted rate is a little above the large-n one.
  FilterBuilder builder(FilterConfig{FilterKind::kRibbon, 10.0});
  const uint64_t keys_per_partition = builder.KeysForBytes(1024);
  ExpectFpRateNearPredicted(LookUpAbsent(60000), RibbonPredictedFp(10.0, {keys_per_partition}));
}

// Documents RocksDB 7.8's trap that README explains: an unregistered policy
// name outside "sstfilter.*" (those are refused, see policy_test) is
// accepted and the DB silently runs without filters; the table property is
// how to detect it. If RocksDB starts refusing it, this test fails and the
// README must be updated.
TEST_F(DbTest, UnknownPolicyNameSilentlyMeansNoFilter) {
  rdb::Options base;
  base.create_if_missing = true;
  base.statistics = rdb::CreateDBStatistics();
  rdb::Options out;
  rdb::ConfigOptions config_options;  // defaults, as most applications use
  const rdb::Status s = rdb::GetOptionsFromString(
      config_options, base, "block_based_table_factory={filter_policy=acme.NoSuchFilter:10}", &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  out.statistics = base.statistics;
  Open(out);
  ASSERT_TRUE(db_->Put(rdb::WriteOptions(), DbKey(0), "v").ok());
  ASSERT_TRUE(db_->Flush(rdb::FlushOptions()).ok());
  rdb::TablePropertiesCollection props;
  ASSERT_TRUE(db_->GetPropertiesOfAllTables(&props).ok());
  for (const auto& [file, p] : props) {
    EXPECT_EQ(p->filter_policy_name, "") << file;  // how to detect it
    EXPECT_EQ(p->filter_size, 0u);
  }
}

}  // namespace
}  // namespace sstfilter
