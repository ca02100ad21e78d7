// The sstfilter.LsmShape listener where an application's set-up differs
// from RocksDB's defaults: its own Logger given to several DBs, a DB
// reopened (its first flush's size unknown), flushes that begin and never
// complete, a listener held by a static object. In each, sstfilter.LevelAware
// keeps the live files within the band around its budget.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdarg>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/listener.h>
#include <rocksdb/options.h>

#include "plugin/rocksdb/api_compat.h"
#include "plugin/rocksdb/level_aware_policy.h"
#include "plugin/rocksdb/shape_listener.h"
#include "tests/level_aware_db.h"
#include "tests/temp_dir.h"

namespace sstfilter {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using test::kNumLevels;
using test::LevelAwareDbTest;

constexpr double kTop = (1 + LevelAwarePolicy::kJobHeadroom) * 10;
constexpr double kBottom = (1 - LevelAwarePolicy::kJobHeadroom) * 10;

// An application's own info log: it keeps the warnings LevelAware writes.
class KeptLogger : public rdb::Logger {
 public:
  using rdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    char buf[1024];
    std::vsnprintf(buf, sizeof(buf), format, ap);
    lines.push_back(buf);
  }
  void Logv(const rdb::InfoLogLevel level, const char* format, va_list ap) override {
    if (level >= rdb::InfoLogLevel::WARN_LEVEL) Logv(format, ap);
  }
  bool Has(const std::string& text) const {
    for (const std::string& line : lines) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }
  std::vector<std::string> lines;
};

// Two DBs given one Logger: a builder knows only the info log, so neither
// DB's files may be planned for the other's shape. DB A is closed with keys
// in its WAL while DB B holds a shallow tree with L0 files (an L0 plan far
// above the budget); A's reopen writes those keys before any callback of
// its new session, and A's flushes while B is open find no shape (a
// warning in the log says why). Once B is closed, A plans by level again.
TEST_F(LevelAwareDbTest, DbsSharingAnInfoLogKeepTheirBudgets) {
  auto logger = std::make_shared<KeptLogger>();
  rdb::Options a_options = MakeOptions("sstfilter.LevelAware:10");
  a_options.info_log = logger;
  test::TempDir a_dir{"sstfilter_shared_log_a"};
  std::unique_ptr<rdb::DB> a;
  ASSERT_TRUE(compat::OpenDB(a_options, a_dir.path(), &a).ok());
  for (int i = 0; i < 3000; ++i) {
    ASSERT_TRUE(a->Put(rdb::WriteOptions(), Key(0, i), "v").ok());
  }
  a.reset();  // closed without a flush: the keys stay in its WAL

  rdb::Options b_options = MakeOptions("sstfilter.LevelAware:10");
  b_options.info_log = logger;
  Open(b_options);  // db_ is B
  WriteBatchTo(0, kNumLevels - 1, 18000);
  for (int batch = 1; batch < 4; ++batch) WriteBatchTo(batch, 0, 1000);
  const auto b_shape = FindLiveShape(logger.get(), "default");
  ASSERT_NE(b_shape, nullptr);
  ASSERT_GT(PlanForShape(b_shape->levels, 10)[0].filter.bits_per_key, 11.0);

  ASSERT_TRUE(compat::OpenDB(a_options, a_dir.path(), &a).ok());
  std::swap(a, db_);  // Files() and WriteBatchTo() act on db_
  EXPECT_NEAR(BitsPerKey(Files()), 10.0, 0.05) << "the file written at open";
  bool shared = false;
  for (int batch = 1; batch < 3; ++batch) {
    WriteBatchTo(batch, 0, 1000);
    EXPECT_EQ(FindLiveShape(logger.get(), "default", &shared), nullptr);
    EXPECT_TRUE(shared);
  }
  EXPECT_NEAR(BitsPerKey(Files()), 10.0, 0.05);
  EXPECT_TRUE(logger->Has("several open DBs write to this info log"));

  ASSERT_TRUE(a->Close().ok());  // B
  a.reset();
  WriteBatchTo(3, 0, 1000);
  EXPECT_NE(FindLiveShape(logger.get(), "default", &shared), nullptr);
  EXPECT_FALSE(shared);
  ASSERT_TRUE(db_->Close().ok());  // A, before its directory goes
  db_.reset();
}

// Universal compaction, reopened: the first flush of the new session has
// no size the listener knows (no flush has completed since the open), and
// no bound but the band around the budget fits every size. Its file, a
// large one here, keeps the DB within 3% of the budget.
TEST_F(LevelAwareDbTest, FirstFlushAfterReopenKeepsTheBand) {
  rdb::Options options = MakeOptions("sstfilter.LevelAware:10");
  options.compaction_style = rdb::kCompactionStyleUniversal;
  Open(options);
  WriteBatchTo(0, kNumLevels - 1, 18000);
  for (int batch = 1; batch < 4; ++batch) WriteBatchTo(batch, 0, 1000);
  EXPECT_NEAR(BitsPerKey(Files()), 10.0, 0.3);
  ASSERT_TRUE(db_->Close().ok());
  db_.reset();
  Open(options);
  WriteBatchTo(4, 0, 18000);
  const auto files = Files();
  EXPECT_NEAR(BitsPerKey(files), 10.0, 0.3);
  // The new file itself: within the band, not at L0's plan.
  double newest_bits = 0;
  for (const FileFilter& f : files) {
    if (f.level == 0 && f.entries == 18000) newest_bits = 8.0 * f.filter_bytes / f.entries;
  }
  EXPECT_GE(newest_bits, kBottom);
  EXPECT_LE(newest_bits, kTop + 0.01);
}

// What the shape says of the flushes under way, seen from a listener
// called after sstfilter.LsmShape at each flush's begin.
class FlushSpy : public rdb::EventListener {
 public:
  const char* Name() const override { return "FlushSpy"; }
  void OnFlushBegin(rdb::DB* db, const rdb::FlushJobInfo& info) override {
    const auto shape = FindLiveShape(db->GetDBOptions().info_log.get(), info.cf_name);
    flushes_seen.push_back(shape == nullptr ? -1 : shape->flushes.files);
  }
  std::vector<int> flushes_seen;
};

// A flush that begins and never completes (a mempurge, a flush that finds
// no memtable or fails) must not stay in the shape as a file to come: the
// DB says how many flushes run, and the listener keeps no more. A real
// flush stays in the shape while it runs.
TEST_F(LevelAwareDbTest, FlushThatNeverCompletesIsForgotten) {
  rdb::Options options = MakeOptions("sstfilter.LevelAware:10", /*listener=*/false);
  // Made here, to call it as RocksDB would.
  auto listener = std::make_shared<ShapeListener>();
  auto spy = std::make_shared<FlushSpy>();
  options.listeners = {listener, spy};
  Open(options);
  WriteBatchTo(0, kNumLevels - 1, 18000);
  WriteBatchTo(1, 0, 1000);
  const rdb::Logger* info_log = db_->GetDBOptions().info_log.get();
  WaitForFlushesToEnd();
  rdb::FlushJobInfo never;
  never.cf_name = "default";
  never.job_id = 0;  // older than every job of this DB session (ids start at 1)
  listener->OnFlushBegin(db_.get(), never);
  auto shape = FindLiveShape(info_log, "default");
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->flushes.files, 0) << "no flush is running";
  WriteBatchTo(2, 0, 1000);
  WaitForFlushesToEnd();
  // Three flushes, each in the shape while it ran.
  EXPECT_EQ(spy->flushes_seen, (std::vector<int>{1, 1, 1}));
  shape = FindLiveShape(info_log, "default");
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->flushes.files, 0);
  EXPECT_DOUBLE_EQ(shape->flushes.inputs.keys, 0);
}

// A listener held by an object made before the first listener (a global,
// as a static Options or DB holder would be) is destroyed after every
// function-local static: the listener's own registry must outlive it.
// Under AddressSanitizer a registry destroyed first is a use after free at
// exit, and this test's process fails.
std::shared_ptr<rdb::EventListener> listener_held_by_a_static;

TEST(ShapeListenerTest, ListenerHeldByAStaticObject) {
  listener_held_by_a_static = std::make_shared<ShapeListener>();
  EXPECT_STREQ(listener_held_by_a_static->Name(), kShapeListenerId);
}

}  // namespace
}  // namespace sstfilter
