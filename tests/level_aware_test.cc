// sstfilter.LevelAware through RocksDB: its option forms and refusals, the
// plan each FilterBuildingContext gets, and real databases whose files, at
// each level, carry exactly the filter the plan gives that level.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>

#include "plugin/core/filter_builder.h"
#include "plugin/core/level_allocation.h"
#include "plugin/rocksdb/compat.h"  // FilterBitsBuilder
#include "plugin/rocksdb/level_aware_policy.h"
#include "tests/temp_dir.h"

namespace sstfilter {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

rdb::Status Create(const std::string& value, std::shared_ptr<const rdb::FilterPolicy>* policy) {
  policy->reset();
  rdb::ConfigOptions config_options;
  config_options.ignore_unsupported_options = false;
  return rdb::FilterPolicy::CreateFromString(config_options, value, policy);
}

const LevelAwarePolicy& AsLevelAware(const std::shared_ptr<const rdb::FilterPolicy>& policy) {
  const auto* p = dynamic_cast<const LevelAwarePolicy*>(policy.get());
  EXPECT_NE(p, nullptr);
  return *p;
}

TEST(LevelAwarePolicyTest, AcceptedForms) {
  std::shared_ptr<const rdb::FilterPolicy> policy;
  ASSERT_TRUE(Create("sstfilter.LevelAware", &policy).ok());
  EXPECT_STREQ(policy->Name(), "sstfilter.LevelAware");
  EXPECT_STREQ(policy->CompatibilityName(), "rocksdb.BuiltinBloomFilter");
  EXPECT_TRUE(AsLevelAware(policy).Model() == LevelModel());  // all defaults, budget 10

  ASSERT_TRUE(Create("sstfilter.LevelAware:6.5", &policy).ok());
  EXPECT_EQ(AsLevelAware(policy).Model().budget_bits_per_key, 6.5);

  ASSERT_TRUE(Create("{id=sstfilter.LevelAware;bits_per_key=16;level_size_ratio=8;"
                     "populated_levels=5;l0_files=3.5;bottommost_bits_per_key=2}",
                     &policy)
                  .ok());
  const LevelModel m = AsLevelAware(policy).Model();
  EXPECT_EQ(m.budget_bits_per_key, 16);
  EXPECT_EQ(m.level_size_ratio, 8);
  EXPECT_EQ(m.populated_levels, 5);
  EXPECT_EQ(m.l0_files, 3.5);
  EXPECT_EQ(m.bottommost_bits_per_key, 2);
  ASSERT_TRUE(Create("{id=sstfilter.LevelAware;bits_per_key=1;bottommost_bits_per_key=0}", &policy)
                  .ok());
  EXPECT_EQ(AsLevelAware(policy).Model().bottommost_bits_per_key, 0);
}

TEST(LevelAwarePolicyTest, BadValuesAreRefusedWithAClearStatus) {
  const struct { const char* value; const char* message; } cases[] = {
      {"sstfilter.LevelAware:0", "bits_per_key"},
      {"sstfilter.LevelAware:abc", "bits_per_key"},
      {"{id=sstfilter.LevelAware;fp_rate=0.01}", "not fp_rate"},
      {"{id=sstfilter.LevelAware;lines_per_key=2}", "lines_per_key"},
      {"{id=sstfilter.LevelAware;level_size_ratio=1}", "level_size_ratio"},
      {"{id=sstfilter.LevelAware;level_size_ratio=0.5}", "level_size_ratio"},
      {"{id=sstfilter.LevelAware;level_size_ratio=5000}", "level_size_ratio"},
      {"{id=sstfilter.LevelAware;level_size_ratio=nan}", "level_size_ratio"},
      {"{id=sstfilter.LevelAware;populated_levels=0}", "populated_levels"},
      {"{id=sstfilter.LevelAware;populated_levels=2.5}", "whole number"},
      {"{id=sstfilter.LevelAware;populated_levels=65}", "populated_levels"},
      {"{id=sstfilter.LevelAware;l0_files=-1}", "l0_files"},
      {"{id=sstfilter.LevelAware;l0_files=101}", "l0_files"},
      {"{id=sstfilter.LevelAware;bottommost_bits_per_key=0.5}", "bottommost_bits_per_key"},
      {"{id=sstfilter.LevelAware;bottommost_bits_per_key=-1}", "or 0"},
      {"{id=sstfilter.LevelAware;bits_per_key=10;bottommost_bits_per_key=11}", "must not exceed"},
      {"{id=sstfilter.LevelAware;bogus=1}", "bogus"},
      {"sstfilter.LevelAwareX", ""},
  };
  for (const auto& c : cases) {
    std::shared_ptr<const rdb::FilterPolicy> policy;
    const rdb::Status s = Create(c.value, &policy);
    EXPECT_FALSE(s.ok()) << c.value << " was accepted";
    EXPECT_NE(s.ToString().find(c.message), std::string::npos) << c.value << ": " << s.ToString();
  }
}

// What RocksDB writes to an OPTIONS file reads back as the same model.
TEST(LevelAwarePolicyTest, SerializedFormRoundTrips) {
  for (const char* value :
       {"sstfilter.LevelAware", "sstfilter.LevelAware:7.25",
        "{id=sstfilter.LevelAware;bits_per_key=12;level_size_ratio=6.5;populated_levels=4;"
        "l0_files=1;bottommost_bits_per_key=0}"}) {
    std::shared_ptr<const rdb::FilterPolicy> policy, again;
    ASSERT_TRUE(Create(value, &policy).ok()) << value;
    const std::string serialized = policy->ToString(rdb::ConfigOptions());
    ASSERT_TRUE(Create(serialized, &again).ok()) << serialized;
    EXPECT_TRUE(AsLevelAware(again).Model() == AsLevelAware(policy).Model()) << serialized;
    std::string mismatch;
    EXPECT_TRUE(policy->AreEquivalent(rdb::ConfigOptions(), again.get(), &mismatch))
        << serialized << " mismatch " << mismatch;
  }
}

// FilterBuildingContext -> plan, as RocksDB 7.8.3 fills the context.
TEST(LevelAwarePolicyTest, PlanForEveryKindOfFile) {
  std::shared_ptr<const rdb::FilterPolicy> policy;
  ASSERT_TRUE(Create("sstfilter.LevelAware:10", &policy).ok());
  const LevelAwarePolicy& la = AsLevelAware(policy);
  const auto plan = PlanLevels(la.Model(), 7);
  const rdb::BlockBasedTableOptions table_options = compat::ExactLengthTableOptions();
  auto context = [&](rdb::TableFileCreationReason reason, int level, bool bottommost) {
    rdb::FilterBuildingContext c(table_options);
    c.reason = reason;
    c.num_levels = 7;
    c.level_at_creation = level;
    c.is_bottommost = bottommost;
    return c;
  };
  using Reason = rdb::TableFileCreationReason;
  const LevelPlan flush = la.PlanFor(context(Reason::kFlush, 0, false));
  EXPECT_EQ(flush.filter.kind, FilterKind::kBlockedBloom);
  EXPECT_EQ(flush.filter.bits_per_key, plan[0].filter.bits_per_key);
  for (int level = 1; level < 7; ++level) {
    const LevelPlan p = la.PlanFor(context(Reason::kCompaction, level, level == 6));
    EXPECT_EQ(p.filter.kind, FilterKind::kRibbon);
    EXPECT_EQ(p.filter.bits_per_key, plan[level].filter.bits_per_key) << level;
  }
  // SstFileWriter: reason kMisc, nothing else filled in.
  const LevelPlan ingested = la.PlanFor(rdb::FilterBuildingContext(table_options));
  EXPECT_EQ(ingested.filter.bits_per_key, plan[6].filter.bits_per_key);
  // FIFO: every file at the budget.
  rdb::FilterBuildingContext fifo = context(Reason::kFlush, 0, false);
  fifo.compaction_style = rdb::kCompactionStyleFIFO;
  fifo.num_levels = 1;
  EXPECT_EQ(la.PlanFor(fifo).filter.bits_per_key, 10.0);
  // The builder RocksDB gets is sized by the plan.
  std::unique_ptr<rdb::FilterBitsBuilder> builder(
      policy->GetBuilderWithContext(context(Reason::kCompaction, 6, true)));
  ASSERT_NE(builder, nullptr);
  for (int i = 0; i < 1000; ++i) builder->AddKey("key" + std::to_string(i));
  std::unique_ptr<const char[]> buf;
  EXPECT_EQ(builder->Finish(&buf).size(), FilterBuilder(plan[6].filter).BytesForKeys(1000));
}

constexpr int kNumLevels = 5;
constexpr int kBatchKeys = 3000;

class LevelAwareDbTest : public ::testing::Test {
 protected:
  void TearDown() override { db_.reset(); }  // before the directory goes

  rdb::Options MakeOptions(const std::string& policy_id) {
    rdb::Options options;
    options.create_if_missing = true;
    options.num_levels = kNumLevels;
    options.level_compaction_dynamic_level_bytes = true;
    options.disable_auto_compactions = true;  // the test places every file
    options.write_buffer_size = 64 << 20;
    stats_ = rdb::CreateDBStatistics();
    options.statistics = stats_;
    rdb::BlockBasedTableOptions table = compat::ExactLengthTableOptions();
    EXPECT_TRUE(Create(policy_id, &table.filter_policy).ok());
    options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
    policy_ = table.filter_policy;
    return options;
  }

  void Open(const rdb::Options& options) {
    ASSERT_TRUE(compat::OpenDB(options, dir_, &db_).ok());
  }

  // Batch b holds keys b, b + 8, b + 16, ...: every batch spans the same
  // key range, so a file compacted above another overlaps it and is not
  // bottommost.
  static std::string Key(int batch, int i) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "key%08d", i * 8 + batch);
    return buf;
  }

  // Writes batch `batch`, flushes it (an L0 file) and, for output_level >
  // 0, compacts that file into output_level.
  void WriteBatchTo(int batch, int output_level) {
    for (int i = 0; i < kBatchKeys; ++i) {
      ASSERT_TRUE(db_->Put(rdb::WriteOptions(), Key(batch, i), "v" + std::to_string(i)).ok());
    }
    ASSERT_TRUE(db_->Flush(rdb::FlushOptions()).ok());
    if (output_level == 0) return;
    std::vector<rdb::LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    std::vector<std::string> l0;
    for (const auto& f : files) {
      if (f.level == 0) l0.push_back(f.name);
    }
    ASSERT_EQ(l0.size(), 1u);
    ASSERT_TRUE(db_->CompactFiles(rdb::CompactionOptions(), l0, output_level).ok());
  }

  struct FileFilter {
    int level;
    uint64_t entries;
    uint64_t filter_bytes;
  };
  std::vector<FileFilter> Files() {
    rdb::TablePropertiesCollection props;
    EXPECT_TRUE(db_->GetPropertiesOfAllTables(&props).ok());
    std::vector<rdb::LiveFileMetaData> live;
    db_->GetLiveFilesMetaData(&live);
    std::vector<FileFilter> out;
    for (const auto& f : live) {
      const auto& p = props.at(f.db_path + f.name);
      EXPECT_EQ(p->filter_policy_name, "sstfilter.LevelAware");
      out.push_back({f.level, p->num_filter_entries, p->filter_size});
    }
    return out;
  }

  void ExpectAllPresent(int batches) {
    for (int b = 0; b < batches; ++b) {
      for (int i = 0; i < kBatchKeys; i += 7) {
        std::string value;
        ASSERT_TRUE(db_->Get(rdb::ReadOptions(), Key(b, i), &value).ok()) << Key(b, i);
      }
    }
  }

  test::TempDir tmp_{"sstfilter_level_aware_test"};
  const std::string dir_ = tmp_.path();
  std::unique_ptr<rdb::DB> db_;
  std::shared_ptr<const rdb::FilterPolicy> policy_;
  std::shared_ptr<rdb::Statistics> stats_;
};

// One file per level, each written where it stays (CompactFiles rewrites,
// never moves): every filter is exactly the size the plan gives its level
// and its key count, the kind included (BlockedBloom payloads are whole
// 64-byte lines, Ribbon's whole bytes of bits_per_key * n).
TEST_F(LevelAwareDbTest, EachLevelsFiltersCarryThePlannedBitsPerKey) {
  Open(MakeOptions("sstfilter.LevelAware:10"));
  for (int level = kNumLevels - 1; level >= 0; --level) {
    WriteBatchTo(kNumLevels - 1 - level, level);
  }
  const auto plan = PlanLevels(AsLevelAware(policy_).Model(), kNumLevels);
  const auto files = Files();
  ASSERT_EQ(files.size(), static_cast<size_t>(kNumLevels));
  std::map<int, double> bits_by_level;
  for (const FileFilter& f : files) {
    ASSERT_EQ(f.entries, static_cast<uint64_t>(kBatchKeys));
    EXPECT_EQ(f.filter_bytes, FilterBuilder(plan[f.level].filter).BytesForKeys(f.entries))
        << "L" << f.level << " planned " << plan[f.level].filter.bits_per_key;
    bits_by_level[f.level] = f.filter_bytes * 8.0 / f.entries;
  }
  // More bits per key up the populated levels; the last pays for them.
  for (int level = 1; level + 1 < kNumLevels; ++level) {
    if (plan[level].key_share > 0) {
      EXPECT_GT(bits_by_level[level], bits_by_level[level + 1]) << level;
    }
  }
  EXPECT_LT(bits_by_level[kNumLevels - 1], 10.0);
  EXPECT_EQ(plan[0].filter.kind, FilterKind::kBlockedBloom);
  for (const FileFilter& f : files) {
    if (f.level == 0) {
      EXPECT_EQ(f.filter_bytes % 64, 16u);  // whole lines + trailer
    }
  }
  ExpectAllPresent(kNumLevels);
  // The filters answer: absent keys (batch 7) are rejected by them.
  const uint64_t useful_before = stats_->getTickerCount(rdb::BLOOM_FILTER_USEFUL);
  for (int i = 0; i < 2000; ++i) {
    std::string value;
    EXPECT_TRUE(db_->Get(rdb::ReadOptions(), Key(7, i), &value).IsNotFound());
  }
  EXPECT_GT(stats_->getTickerCount(rdb::BLOOM_FILTER_USEFUL) - useful_before, 2000u * 4);
}

// bottommost_bits_per_key=0: the files RocksDB marks bottommost have no
// filter (RocksDB's optimize_filters_for_hits, decided per file), the
// others share the whole budget; every key is still found.
TEST_F(LevelAwareDbTest, BottommostWithoutFilter) {
  Open(MakeOptions("{id=sstfilter.LevelAware;bits_per_key=2;bottommost_bits_per_key=0}"));
  WriteBatchTo(0, kNumLevels - 1);  // bottommost
  WriteBatchTo(1, 2);               // above it, overlapping: not bottommost
  WriteBatchTo(2, 0);
  const auto plan = PlanLevels(AsLevelAware(policy_).Model(), kNumLevels);
  for (const FileFilter& f : Files()) {
    if (f.level == kNumLevels - 1) {
      EXPECT_EQ(f.filter_bytes, 0u);
    } else {
      EXPECT_EQ(f.filter_bytes, FilterBuilder(plan[f.level].filter).BytesForKeys(f.entries))
          << f.level;
    }
  }
  ExpectAllPresent(3);
}

// Static level targets (RocksDB 7.8's default): the model does not hold, so
// every file gets the budget, as with a uniform policy, except that
// bottommost_bits_per_key still applies to bottommost files.
TEST_F(LevelAwareDbTest, StaticLevelSizingGetsTheBudgetEverywhere) {
  rdb::Options options =
      MakeOptions("{id=sstfilter.LevelAware;bits_per_key=10;bottommost_bits_per_key=4}");
  options.level_compaction_dynamic_level_bytes = false;
  Open(options);
  WriteBatchTo(0, kNumLevels - 1);  // bottommost
  WriteBatchTo(1, 2);
  WriteBatchTo(2, 0);
  const FilterConfig budget{FilterKind::kRibbon, 10.0, 1};
  const FilterConfig bottommost{FilterKind::kRibbon, 4.0, 1};
  for (const FileFilter& f : Files()) {
    EXPECT_EQ(f.filter_bytes,
              FilterBuilder(f.level == kNumLevels - 1 ? bottommost : budget).BytesForKeys(f.entries))
        << f.level;
  }
  ExpectAllPresent(3);
}

// An SstFileWriter file: no level, no num_levels; it gets the last level's
// plan of RocksDB's default 7 levels, and ingests like any other.
TEST_F(LevelAwareDbTest, IngestedFileGetsTheLastLevelsPlan) {
  const rdb::Options options = MakeOptions("sstfilter.LevelAware:10");
  Open(options);
  const std::string sst = dir_ + "/ingest.sst";
  rdb::SstFileWriter writer(rdb::EnvOptions(), options);
  ASSERT_TRUE(writer.Open(sst).ok());
  for (int i = 0; i < kBatchKeys; ++i) ASSERT_TRUE(writer.Put(Key(0, i), "v").ok());
  ASSERT_TRUE(writer.Finish().ok());
  ASSERT_TRUE(db_->IngestExternalFile({sst}, rdb::IngestExternalFileOptions()).ok());
  const auto plan = PlanLevels(AsLevelAware(policy_).Model(), kDefaultNumLevels);
  const auto files = Files();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filter_bytes, FilterBuilder(plan.back().filter).BytesForKeys(kBatchKeys));
  ExpectAllPresent(1);
}

}  // namespace
}  // namespace sstfilter
