// sstfilter.LevelAware through RocksDB: its option forms and refusals, the
// plan each FilterBuildingContext gets for a given live shape, and real
// databases: with the sstfilter.LsmShape listener (from an options string)
// a shallow tree keeps the budget and splits it by level; without it every
// file gets the budget.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
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

#include "plugin/core/bloom_math.h"
#include "plugin/core/filter_builder.h"
#include "plugin/core/level_allocation.h"
#include "plugin/rocksdb/api_compat.h"
#include "plugin/rocksdb/filter_bits.h"
#include "include/sstfilter/sstfilter.h"
#include "plugin/rocksdb/level_aware_policy.h"
#include "tests/level_aware_db.h"

namespace sstfilter {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using test::kBatchKeys;
using test::kNumLevels;
using test::LevelAwareDbTest;

rdb::Status Create(const std::string& value, std::shared_ptr<const rdb::FilterPolicy>* policy) {
  return test::CreatePolicy(value, policy);
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
  EXPECT_EQ(AsLevelAware(policy).BudgetBitsPerKey(), 10);
  EXPECT_LT(AsLevelAware(policy).BottommostBitsPerKey(), 0);  // unset

  ASSERT_TRUE(Create("sstfilter.LevelAware:6.5", &policy).ok());
  EXPECT_EQ(AsLevelAware(policy).BudgetBitsPerKey(), 6.5);

  // The shape options of OPTIONS files written for the earlier planner
  // still load.
  ASSERT_TRUE(Create("{id=sstfilter.LevelAware;bits_per_key=16;level_size_ratio=8;"
                     "populated_levels=5;l0_files=3.5;bottommost_bits_per_key=2}",
                     &policy)
                  .ok());
  EXPECT_EQ(AsLevelAware(policy).BudgetBitsPerKey(), 16);
  EXPECT_EQ(AsLevelAware(policy).BottommostBitsPerKey(), 2);
  ASSERT_TRUE(Create("{id=sstfilter.LevelAware;bits_per_key=1;bottommost_bits_per_key=0}", &policy)
                  .ok());
  EXPECT_EQ(AsLevelAware(policy).BottommostBitsPerKey(), 0);
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
    EXPECT_EQ(AsLevelAware(again).BudgetBitsPerKey(), AsLevelAware(policy).BudgetBitsPerKey());
    EXPECT_EQ(AsLevelAware(again).BottommostBitsPerKey(),
              AsLevelAware(policy).BottommostBitsPerKey());
    std::string mismatch;
    EXPECT_TRUE(policy->AreEquivalent(rdb::ConfigOptions(), again.get(), &mismatch))
        << serialized << " mismatch " << mismatch;
  }
}

// A shallow live shape: L0 three files over 13.6% of the keys, L5 27.7%,
// L6 58.7% (what the stock db_bench leaves after 4M keys), its filters
// spending exactly the budget.
std::shared_ptr<const LiveShape> ShallowShape(double spent_bits_per_key) {
  auto shape = std::make_shared<LiveShape>();
  shape->levels = {{136, 3}, {}, {}, {}, {}, {277, 1}, {587, 1}};
  shape->live.Add(1000, 1000 * spent_bits_per_key);
  shape->flushes.inputs.Add(45, -1);  // a flush under way
  shape->flushes.adds_keys = true;
  shape->flushes.files = 1;
  return shape;
}

// A new file's FilterBuildingContext in a 7-level tree, as RocksDB 7.8.3
// fills it.
rdb::FilterBuildingContext FileContext(const rdb::BlockBasedTableOptions& table_options,
                                       rdb::TableFileCreationReason reason, int level) {
  rdb::FilterBuildingContext c(table_options);
  c.reason = reason;
  c.num_levels = 7;
  c.level_at_creation = level;
  return c;
}

// FilterBuildingContext and live shape -> plan, as RocksDB 7.8.3 fills the
// context.
TEST(LevelAwarePolicyTest, PlanForEveryKindOfFile) {
  std::shared_ptr<const rdb::FilterPolicy> policy;
  ASSERT_TRUE(Create("sstfilter.LevelAware:10", &policy).ok());
  const LevelAwarePolicy& la = AsLevelAware(policy);
  const auto shape = ShallowShape(10);
  EXPECT_DOUBLE_EQ(la.PlanningBudget(*shape), 10.0);
  const auto plan = PlanForShape(shape->levels, 10.0);
  const rdb::BlockBasedTableOptions table_options = compat::ExactLengthTableOptions();
  auto context = [&](rdb::TableFileCreationReason reason, int level, bool bottommost) {
    rdb::FilterBuildingContext c = FileContext(table_options, reason, level);
    c.is_bottommost = bottommost;
    return c;
  };
  using Reason = rdb::TableFileCreationReason;
  // The plan of the shape, level by level: L0's three checks over 13.6%
  // of the keys get more bits than the budget, the last level fewer.
  for (int level : {0, 5, 6}) {
    const LevelPlan p = la.PlanFor(
        context(Reason::kCompaction, level, level == 6), shape);
    EXPECT_EQ(p.filter.kind, plan[level].filter.kind) << level;
    EXPECT_EQ(p.filter.bits_per_key, plan[level].filter.bits_per_key) << level;
  }
  EXPECT_GT(plan[0].filter.bits_per_key, 11.0);
  EXPECT_LT(plan[6].filter.bits_per_key, 10.0);
  // A flush gets L0's plan while the live files are within the budget.
  EXPECT_EQ(la.PlanFor(context(Reason::kFlush, 0, false), shape).filter.bits_per_key,
            plan[0].filter.bits_per_key);
  // The most and fewest bits per key a job may leave the live files at,
  // and the trailer of the one file each job here writes, in bits.
  const double top = (1 + LevelAwarePolicy::kJobHeadroom) * 10;
  const double bottom = (1 - LevelAwarePolicy::kJobHeadroom) * 10;
  const double trailer = 8.0 * kTrailerBytes;
  // Live files over budget: the next files plan for less (at most 10%
  // less), and the flush under way takes no more than keeps them at top.
  const auto over = ShallowShape(10.5);
  EXPECT_DOUBLE_EQ(la.PlanningBudget(*over), 9.5);
  EXPECT_DOUBLE_EQ(la.PlanningBudget(*ShallowShape(14)), 9.0);
  EXPECT_DOUBLE_EQ(la.PlanningBudget(*ShallowShape(5)), 11.0);
  const LevelPlan capped = la.PlanFor(context(Reason::kFlush, 0, false), over);
  EXPECT_NEAR(capped.filter.bits_per_key, (top * 1045 - 10500 - trailer) / 45.0, 1e-9);
  EXPECT_NEAR(la.JobBounds(over, 0, true, true).cap, (top * 1045 - 10500 - trailer) / 45.0, 1e-9);
  EXPECT_NEAR(la.JobBounds(over, 0, true, true).floor, (bottom * 1045 - 10500 - trailer) / 45.0,
              1e-9);
  EXPECT_EQ(la.JobBounds(over, 5).cap, kMaxBitsPerKey);  // nothing under way there
  EXPECT_EQ(la.JobBounds(over, 5).floor, 0);
  // Live files far under budget: the flush takes at least what brings them
  // back to bottom, far more than L0's plan.
  const LevelPlan raised = la.PlanFor(context(Reason::kFlush, 0, false), ShallowShape(9));
  EXPECT_NEAR(raised.filter.bits_per_key, (bottom * 1045 - 9000 - trailer) / 45.0, 1e-9);
  EXPECT_EQ(capped.filter.kind, FilterKind::kRibbon);
  // Universal compaction: a compaction into L5 while L0 is empty (its mean
  // is 136 keys) leaves room for the L0 files to come at their plan's bits:
  // its cap is lower by their bits above the budget, spread over its 277
  // keys. With L0 as full as its mean, nothing is held back.
  auto compacting = std::make_shared<LiveShape>(*ShallowShape(10));
  compacting->pending.resize(6);
  compacting->pending[5].inputs.Add(277, 277 * 10.0);
  compacting->l0_keys_now = 0;
  const double cap5 = (top * 1000 - 10000 + 2770 - trailer) / 277.0;
  const double l0_excess = plan[0].filter.bits_per_key - 10;
  EXPECT_NEAR(la.JobBounds(compacting, 5, false).cap, cap5 - 136 * l0_excess / 277.0, 1e-9);
  compacting->l0_keys_now = 136;
  EXPECT_NEAR(la.JobBounds(compacting, 5, false).cap, cap5, 1e-9);
  // Leveled, before the first flush (no peak known): as universal.
  EXPECT_NEAR(la.JobBounds(compacting, 5).cap, cap5, 1e-9);
  compacting->l0_keys_now = 0;
  EXPECT_NEAR(la.JobBounds(compacting, 5).cap, cap5 - 136 * l0_excess / 277.0, 1e-9);
  EXPECT_EQ(la.L0Limit(*compacting), kMaxBitsPerKey);
  // Leveled: room for L0 to refill to its peak (181 keys: three files and
  // a flush), at its bits (at most L0Limit) above the floor. L0Limit: the
  // 864 keys outside L0's live files at the bits they hold (their 8,368
  // bits: 9.69 per key, below the floor), the peak's 181 at the limit, all
  // of them at the cap. Files below the floor leave L0 more than a floor
  // would.
  compacting->l0_keys_now = 136;
  compacting->l0_files.Add(136, 136 * 12.0);
  compacting->l0_peak_keys = 181;
  const double limit = (top * (864 + 181) - 8368) / 181.0;
  EXPECT_NEAR(la.L0Limit(*compacting), limit, 1e-9);
  EXPECT_NEAR((8368 + la.L0Limit(*compacting) * 181) / (864 + 181), top, 1e-9);
  EXPECT_GT(la.L0Limit(*compacting), top + (top - bottom) * 864 / 181.0);
  const double l0_bits = std::min(plan[0].filter.bits_per_key, limit);
  EXPECT_NEAR(la.JobBounds(compacting, 5).cap, cap5 - (181 - 136) * (l0_bits - bottom) / 277.0,
              1e-9);
  // L0 just compacted: the whole peak is missing, and the room can take
  // the compaction's cap down to its floor.
  compacting->l0_keys_now = 0;
  compacting->l0_files = FilterMemory{};
  const double drained_bits = std::min(plan[0].filter.bits_per_key, la.L0Limit(*compacting));
  EXPECT_NEAR(la.JobBounds(compacting, 5).cap,
              std::max(la.JobBounds(compacting, 5).floor,
                       cap5 - 181 * (drained_bits - bottom) / 277.0),
              1e-9);
  // Three input files: the cap counts three output files' trailers, the
  // floor one (a job may write fewer files than it reads).
  compacting->l0_keys_now = 181;
  compacting->pending[5].files = 3;
  EXPECT_NEAR(la.JobBounds(compacting, 5).cap,
              (top * 1000 - 10000 + 2770 - 3 * trailer) / 277.0, 1e-9);
  EXPECT_NEAR(la.JobBounds(compacting, 5).floor,
              (bottom * 1000 - 10000 + 2770 - trailer) / 277.0, 1e-9);
  // Leveled, L0's peak 600 keys beside the 864 outside L0 at the budget:
  // its swing fits the band only at 10.68 bits per key, and a flush gets
  // that, not L0's plan. Universal compaction: L0's plan.
  auto peaked = std::make_shared<LiveShape>(*ShallowShape(10));
  peaked->l0_peak_keys = 600;
  peaked->l0_files.Add(136, 1360);
  const double peak_limit = (top * (864 + 600) - 8640) / 600.0;
  ASSERT_LT(peak_limit, plan[0].filter.bits_per_key);
  EXPECT_NEAR(la.PlanFor(context(Reason::kFlush, 0, false), peaked).filter.bits_per_key,
              peak_limit, 1e-9);
  rdb::FilterBuildingContext universal = context(Reason::kFlush, 0, false);
  universal.compaction_style = rdb::kCompactionStyleUniversal;
  EXPECT_EQ(la.PlanFor(universal, peaked).filter.bits_per_key, plan[0].filter.bits_per_key);
  // L0Limit below the job's floor (the live files far under the budget,
  // nearly all of it outside L0): the floor wins, and the bounds PlanFor
  // reports say so.
  auto under = std::make_shared<LiveShape>(*ShallowShape(9));
  under->l0_peak_keys = 600;
  under->l0_files.Add(136, 136);
  const double under_floor = la.JobBounds(under, 0, true, true).floor;
  ASSERT_LT(la.L0Limit(*under), under_floor);
  LevelAwarePolicy::Bounds bounds{};
  EXPECT_NEAR(la.PlanFor(context(Reason::kFlush, 0, false), under, &bounds).filter.bits_per_key,
              under_floor, 1e-9);
  EXPECT_NEAR(bounds.floor, under_floor, 1e-9);
  EXPECT_NEAR(bounds.cap, under_floor, 1e-9);
  // A plan no bound applies to reports none.
  la.PlanFor(context(Reason::kCompaction, 3, false), shape, &bounds);
  EXPECT_EQ(bounds.floor, 0);
  EXPECT_EQ(bounds.cap, kMaxBitsPerKey);
  // A level the shape has no keys in, an ingested file (kMisc, no level),
  // FIFO: the planning budget, as Ribbon.
  EXPECT_EQ(la.PlanFor(context(Reason::kCompaction, 3, false), shape).filter.bits_per_key, 10.0);
  EXPECT_EQ(la.PlanFor(rdb::FilterBuildingContext(table_options), shape).filter.bits_per_key, 10.0);
  rdb::FilterBuildingContext fifo = context(Reason::kFlush, 0, false);
  fifo.compaction_style = rdb::kCompactionStyleFIFO;
  fifo.num_levels = 1;
  EXPECT_EQ(la.PlanFor(fifo, shape).filter.bits_per_key, 10.0);
  // No shape (no listener, nothing flushed yet): the budget, as Ribbon.
  for (int level : {0, 3, 6}) {
    const LevelPlan p = la.PlanFor(context(Reason::kCompaction, level, level == 6), nullptr);
    EXPECT_EQ(p.filter.kind, FilterKind::kRibbon);
    EXPECT_EQ(p.filter.bits_per_key, 10.0);
  }
  // The builder RocksDB gets (no shape published for a context without an
  // info log) is the budget's.
  bits::Builder builder(*policy, context(Reason::kCompaction, 6, true));
  ASSERT_TRUE(builder);
  for (int i = 0; i < 1000; ++i) builder.AddKey("key" + std::to_string(i));
  std::unique_ptr<const char[]> buf;
  EXPECT_EQ(builder.Finish(&buf).size(),
            FilterBuilder(FilterConfig{FilterKind::kRibbon, 10.0, 1}).BytesForKeys(1000));
  // bottommost_bits_per_key: bottommost files get that, whatever the shape.
  ASSERT_TRUE(Create("{id=sstfilter.LevelAware;bits_per_key=10;bottommost_bits_per_key=4}", &policy)
                  .ok());
  EXPECT_EQ(AsLevelAware(policy).PlanFor(context(Reason::kCompaction, 6, true), shape)
                .filter.bits_per_key,
            4.0);
  EXPECT_EQ(AsLevelAware(policy).PlanFor(context(Reason::kCompaction, 6, true), nullptr)
                .filter.bits_per_key,
            4.0);
}

// Jobs the shape knows little about keep the live files within the band
// all the same: a flush of unknown size, a flush and a compaction into the
// same level at once, a file written while the DB opens, and a plan with
// no filter where the band asks for one.
TEST(LevelAwarePolicyTest, JobsTheShapeKnowsLittleOfKeepTheBand) {
  std::shared_ptr<const rdb::FilterPolicy> policy;
  ASSERT_TRUE(Create("sstfilter.LevelAware:10", &policy).ok());
  const LevelAwarePolicy& la = AsLevelAware(policy);
  const rdb::BlockBasedTableOptions table_options = compat::ExactLengthTableOptions();
  auto context = [&](rdb::TableFileCreationReason reason, int level, bool universal) {
    rdb::FilterBuildingContext c = FileContext(table_options, reason, level);
    if (universal) c.compaction_style = rdb::kCompactionStyleUniversal;
    return c;
  };
  using Reason = rdb::TableFileCreationReason;
  const double top = (1 + LevelAwarePolicy::kJobHeadroom) * 10;
  const double bottom = (1 - LevelAwarePolicy::kJobHeadroom) * 10;
  const double l0_plan = PlanForShape(ShallowShape(10)->levels, 10.0)[0].filter.bits_per_key;
  ASSERT_GT(l0_plan, top);
  // No flush has completed since the DB opened: the flush under way has no
  // size. Whatever its size, a file within the band around the budget
  // keeps the live files where they are; L0's plan would not.
  auto unknown = std::make_shared<LiveShape>(*ShallowShape(10));
  unknown->flushes = PendingWrite{};
  unknown->flushes.inputs.Add(0, -1);
  unknown->flushes.adds_keys = true;
  unknown->flushes.files = 1;
  const LevelAwarePolicy::Bounds band = la.JobBounds(unknown, 0, false, true);
  EXPECT_DOUBLE_EQ(band.floor, bottom);
  EXPECT_DOUBLE_EQ(band.cap, top);
  EXPECT_DOUBLE_EQ(la.PlanFor(context(Reason::kFlush, 0, true), unknown).filter.bits_per_key, top);
  // No flush under way: no bounds for one.
  unknown->flushes = PendingWrite{};
  EXPECT_EQ(la.JobBounds(unknown, 0, false, true).cap, kMaxBitsPerKey);
  // Universal compaction into L0 (num_levels=1, or intra-L0) while a flush
  // runs: the compaction replaces its inputs and adds no keys; the flush
  // adds its own. Each is bounded by its own job: the compaction's files
  // leave the live files at the cap, not over it.
  auto both = std::make_shared<LiveShape>();
  both->levels = {LevelLoad{100000, 5}};
  both->l0_keys_now = 100000;
  both->live.Add(100000, 10.0 * 100000);
  both->l0_files = both->live;
  both->flushes.inputs.Add(1000, -1);
  both->flushes.adds_keys = true;
  both->flushes.files = 1;
  both->pending.resize(1);
  both->pending[0].inputs.Add(90000, 10.0 * 90000);
  both->pending[0].files = 20;
  const double cap = la.JobBounds(both, 0, false).cap;
  const double trailers = 20 * 8.0 * kTrailerBytes;
  EXPECT_NEAR((10.0 * 100000 - 10.0 * 90000 + cap * 90000 + trailers) / 100000, top, 1e-9);
  const double flush_cap = la.JobBounds(both, 0, false, true).cap;
  EXPECT_NEAR((10.0 * 100000 + flush_cap * 1000 + 8.0 * kTrailerBytes) / 101000, top, 1e-9);
  // A file written while the DB opens (its WAL's keys, kRecovery) comes
  // before any callback of this DB session: whatever shape is found, the
  // budget.
  EXPECT_EQ(la.PlanFor(context(Reason::kRecovery, 0, false), ShallowShape(10)).filter.bits_per_key,
            10.0);
  // At a budget of 1 bit per key the plan has no filter for the last
  // level; a job rewriting most of the DB there still gets the band's
  // floor, not 0 bits per key.
  ASSERT_TRUE(Create("sstfilter.LevelAware:1", &policy).ok());
  const LevelAwarePolicy& tiny = AsLevelAware(policy);
  auto deep = std::make_shared<LiveShape>();
  deep->levels = {{1000, 2}, {}, {}, {}, {}, {10000, 1}, {89000, 1}};
  deep->l0_keys_now = 1000;
  deep->live.Add(100000, 100000);
  deep->l0_files.Add(1000, 1000);
  deep->pending.resize(7);
  deep->pending[6].inputs.Add(89000, 89000);
  deep->pending[6].files = 10;
  ASSERT_FALSE(PlanForShape(deep->levels, tiny.PlanningBudget(*deep)).back().has_filter);
  LevelAwarePolicy::Bounds bounds{};
  const LevelPlan last = tiny.PlanFor(context(Reason::kCompaction, 6, false), deep, &bounds);
  ASSERT_GT(bounds.floor, 0);
  ASSERT_TRUE(last.has_filter);
  EXPECT_GE(last.filter.bits_per_key, bounds.floor);
}



// A shallow tree: the last level 60% of the keys, the level above it 30%,
// then three flushes of 3.3% each land in L0. A plan for an assumed deep
// tree gives L0 ~25 bits per key and spends ~15% over the budget here; a
// uniform plan gives every level 10. Planned for the live shape, L0 gets
// more than the budget, the last level less, and the DB stays within 3% of
// the budget throughout.
TEST_F(LevelAwareDbTest, ShallowTreeKeepsTheBudgetAndSplitsIt) {
  Open(MakeOptions("sstfilter.LevelAware:10"));
  WriteBatchTo(0, kNumLevels - 1, 18000);
  EXPECT_NEAR(BitsPerKey(Files()), 10.0, 0.3);
  WriteBatchTo(1, kNumLevels - 2, 9000);
  EXPECT_NEAR(BitsPerKey(Files()), 10.0, 0.3);
  for (int batch = 2; batch < 5; ++batch) {
    WriteBatchTo(batch, 0, 1000);
    EXPECT_NEAR(BitsPerKey(Files()), 10.0, 0.3) << "after flush " << batch - 1;
  }
  const auto files = Files();
  EXPECT_GT(BitsPerKey(files, 0), 11.0);
  EXPECT_LT(BitsPerKey(files, kNumLevels - 2), BitsPerKey(files, 0));
  // L0's peak as the listener publishes it: the most L0 held after a flush
  // (three files of 1,000 keys) and one flush more, room for a flush that
  // begins while L0 is at its peak.
  const auto shape = FindLiveShape(db_->GetDBOptions().info_log.get(), "default");
  ASSERT_NE(shape, nullptr);
  EXPECT_DOUBLE_EQ(shape->l0_peak_keys, 4000);
  ExpectAllPresent(2, 9000);
  // The filters answer: absent keys (batch 7) are rejected by them.
  const uint64_t useful_before = stats_->getTickerCount(rdb::BLOOM_FILTER_USEFUL);
  for (int i = 0; i < 2000; ++i) {
    std::string value;
    EXPECT_TRUE(db_->Get(rdb::ReadOptions(), Key(7, i), &value).IsNotFound());
  }
  EXPECT_GT(stats_->getTickerCount(rdb::BLOOM_FILTER_USEFUL) - useful_before, 2000u * 4);
}

// RocksDB's own flushes and compactions (the listener's DB callbacks, not
// DB::CompactFiles): the live files stay within 3% of the budget after
// every flush of a load, and the shape the listener publishes is the DB's.
TEST_F(LevelAwareDbTest, AutomaticCompactionsKeepTheBudget) {
  rdb::Options options = MakeOptions("sstfilter.LevelAware:10");
  options.disable_auto_compactions = false;
  options.write_buffer_size = 256 << 10;
  options.max_bytes_for_level_base = 1 << 20;
  options.target_file_size_base = 256 << 10;
  options.level0_file_num_compaction_trigger = 3;
  Open(options);
  for (int round = 0; round < 12; ++round) {
    for (int i = 0; i < 4000; ++i) {
      const std::string key = Key(round % 8, (round / 8) * 4000 + i, 18000);
      ASSERT_TRUE(db_->Put(rdb::WriteOptions(), key, std::string(40, 'v')).ok());
    }
    ASSERT_TRUE(db_->Flush(rdb::FlushOptions()).ok());
    WaitForCompactions();
    EXPECT_NEAR(BitsPerKey(Files()), 10.0, 0.3) << "after round " << round;
  }
  const auto shape = FindLiveShape(db_->GetDBOptions().info_log.get(), "default");
  ASSERT_NE(shape, nullptr);
  double keys = 0;
  for (const FileFilter& f : Files()) keys += f.entries;
  EXPECT_NEAR(shape->live.keys, keys, 0.01 * keys);
  EXPECT_GT(shape->live.known_keys, 0);
}

// A shape belongs to its DB: once the DB is closed and its info log gone,
// nothing is published under it any more.
TEST_F(LevelAwareDbTest, NoShapeOutlivesItsDb) {
  Open(MakeOptions("sstfilter.LevelAware:10"));
  WriteBatchTo(0, 0);
  std::shared_ptr<rdb::Logger> info_log = db_->GetDBOptions().info_log;
  const rdb::Logger* key = info_log.get();
  EXPECT_NE(FindLiveShape(key, "default"), nullptr);
  EXPECT_EQ(FindLiveShape(key, "no such column family"), nullptr);
  EXPECT_EQ(FindLiveShape(nullptr, "default"), nullptr);
  ASSERT_TRUE(db_->Close().ok());
  db_.reset();
  info_log.reset();  // the last owner
  EXPECT_EQ(FindLiveShape(key, "default"), nullptr);
}

// A reopened DB has no shape until its first flush or automatic compaction
// (DB::CompactFiles names no DB to the listener); ObserveLsmShape gives it
// one at once, with every level the DB holds. Without the listener it says
// NotFound.
TEST_F(LevelAwareDbTest, ObserveGivesAReopenedDbItsShape) {
  const rdb::Options options = MakeOptions("sstfilter.LevelAware:10");
  Open(options);
  WriteBatchTo(0, kNumLevels - 1);
  WriteBatchTo(1, 2);
  ASSERT_TRUE(db_->Close().ok());
  db_.reset();
  Open(options);
  const rdb::Logger* info_log = db_->GetDBOptions().info_log.get();
  EXPECT_EQ(FindLiveShape(info_log, "default"), nullptr);
  ASSERT_TRUE(ObserveLsmShape(db_.get()).ok());
  const auto shape = FindLiveShape(info_log, "default");
  ASSERT_NE(shape, nullptr);
  ASSERT_GE(shape->levels.size(), static_cast<size_t>(kNumLevels));
  EXPECT_DOUBLE_EQ(shape->levels[kNumLevels - 1].keys, kBatchKeys);
  EXPECT_DOUBLE_EQ(shape->levels[2].keys, kBatchKeys);
  ASSERT_TRUE(db_->Close().ok());
  db_.reset();

  Open(MakeOptions("sstfilter.LevelAware:10", /*listener=*/false));
  EXPECT_TRUE(ObserveLsmShape(db_.get()).IsNotFound());
  EXPECT_TRUE(ObserveLsmShape(nullptr).IsInvalidArgument());
}

// Without the listener the shape is unknown: every file gets the budget,
// as Ribbon, so the DB never spends more than it.
TEST_F(LevelAwareDbTest, WithoutTheListenerEveryFileGetsTheBudget) {
  Open(MakeOptions("sstfilter.LevelAware:10", /*listener=*/false));
  WriteBatchTo(0, kNumLevels - 1);
  WriteBatchTo(1, 2);
  WriteBatchTo(2, 0);
  WriteBatchTo(3, 0);
  const FilterConfig budget{FilterKind::kRibbon, 10.0, 1};
  for (const FileFilter& f : Files()) {
    EXPECT_EQ(f.filter_bytes, FilterBuilder(budget).BytesForKeys(f.entries)) << f.level;
  }
  ExpectAllPresent(4);
}

// bottommost_bits_per_key=0: the files RocksDB marks bottommost have no
// filter (RocksDB's optimize_filters_for_hits, decided per file), the
// others keep one; every key is still found.
TEST_F(LevelAwareDbTest, BottommostWithoutFilter) {
  Open(MakeOptions("{id=sstfilter.LevelAware;bits_per_key=2;bottommost_bits_per_key=0}"));
  WriteBatchTo(0, kNumLevels - 1);  // bottommost
  WriteBatchTo(1, 2);               // above it, overlapping: not bottommost
  WriteBatchTo(2, 0);
  for (const FileFilter& f : Files()) {
    if (f.level == kNumLevels - 1) {
      EXPECT_EQ(f.filter_bytes, 0u);
    } else {
      EXPECT_GT(f.filter_bytes, 0u) << f.level;
    }
  }
  ExpectAllPresent(3);
}

// An SstFileWriter file: no level, no num_levels; it gets the budget, and
// ingests like any other.
TEST_F(LevelAwareDbTest, IngestedFileGetsTheBudget) {
  const rdb::Options options = MakeOptions("sstfilter.LevelAware:10");
  Open(options);
  const std::string sst = dir_ + "/ingest.sst";
  rdb::SstFileWriter writer(rdb::EnvOptions(), options);
  ASSERT_TRUE(writer.Open(sst).ok());
  for (int i = 0; i < kBatchKeys; ++i) ASSERT_TRUE(writer.Put(Key(0, i), "v").ok());
  ASSERT_TRUE(writer.Finish().ok());
  ASSERT_TRUE(db_->IngestExternalFile({sst}, rdb::IngestExternalFileOptions()).ok());
  const auto files = Files();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filter_bytes,
            FilterBuilder(FilterConfig{FilterKind::kRibbon, 10.0, 1}).BytesForKeys(kBatchKeys));
  ExpectAllPresent(1);
}

}  // namespace
}  // namespace sstfilter
