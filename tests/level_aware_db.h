// The real-database fixture of the sstfilter.LevelAware tests: a DB
// configured by text as a user would (the sstfilter.LsmShape listener in
// DBOptions, the policy in the table options), batches of keys placed in
// chosen levels, and the filter memory its live files hold.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>

#include "plugin/rocksdb/api_compat.h"
#include "tests/temp_dir.h"

namespace sstfilter {
namespace test {

namespace rdb = ROCKSDB_NAMESPACE;

// A policy from its options string, unknown options refused.
inline rdb::Status CreatePolicy(const std::string& value,
                                std::shared_ptr<const rdb::FilterPolicy>* policy) {
  policy->reset();
  rdb::ConfigOptions config_options;
  config_options.ignore_unsupported_options = false;
  return rdb::FilterPolicy::CreateFromString(config_options, value, policy);
}

constexpr int kNumLevels = 5;
constexpr int kBatchKeys = 3000;

class LevelAwareDbTest : public ::testing::Test {
 protected:
  void TearDown() override { db_.reset(); }  // before the directory goes

  // As a user configures it by text: the listener in DBOptions, the policy
  // in the table options.
  rdb::Options MakeOptions(const std::string& policy_id, bool listener = true) {
    rdb::ConfigOptions config;
    config.ignore_unsupported_options = false;
    rdb::DBOptions db_options;
    EXPECT_TRUE(rdb::GetDBOptionsFromString(
                    config, rdb::DBOptions(),
                    listener ? "create_if_missing=true;listeners={sstfilter.LsmShape}"
                             : "create_if_missing=true",
                    &db_options)
                    .ok());
    EXPECT_EQ(db_options.listeners.size(), listener ? 1u : 0u);
    rdb::Options options(db_options, rdb::ColumnFamilyOptions());
    options.num_levels = kNumLevels;
    options.level_compaction_dynamic_level_bytes = true;
    options.disable_auto_compactions = true;  // the test places every file
    options.write_buffer_size = 64 << 20;
    stats_ = rdb::CreateDBStatistics();
    options.statistics = stats_;
    rdb::BlockBasedTableOptions table = compat::ExactLengthTableOptions();
    EXPECT_TRUE(CreatePolicy(policy_id, &table.filter_policy).ok());
    options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
    policy_ = table.filter_policy;
    return options;
  }

  void Open(const rdb::Options& options) {
    ASSERT_TRUE(compat::OpenDB(options, dir_, &db_).ok());
  }

  // Batch b of n keys holds keys b + 8 * s * i, s = kSpanKeys / n: every
  // batch spans the same key range, so a file compacted above another
  // overlaps it and is not bottommost, and every level covers every key.
  static constexpr int kSpanKeys = 18000;
  static std::string Key(int batch, int i, int keys = kBatchKeys) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "key%08d", (i * std::max(1, kSpanKeys / keys)) * 8 + batch);
    return buf;
  }

  // Writes batch `batch` of `keys` keys, flushes it (an L0 file) and, for
  // output_level > 0, compacts that file into output_level.
  void WriteBatchTo(int batch, int output_level, int keys = kBatchKeys) {
    for (int i = 0; i < keys; ++i) {
      ASSERT_TRUE(
          db_->Put(rdb::WriteOptions(), Key(batch, i, keys), "v" + std::to_string(i)).ok());
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

  // Flush() returns once its result is installed, a moment before RocksDB
  // counts the flush as ended (and before the listeners hear of it).
  void WaitForFlushesToEnd() {
    uint64_t running = 1;
    for (int wait = 0; running > 0 && wait < 10000; ++wait) {
      ASSERT_TRUE(db_->GetIntProperty("rocksdb.num-running-flushes", &running));
      if (running > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(running, 0u);
  }

  // RocksDB 7.8 has no DB::WaitForCompact: poll until no compaction runs
  // or is pending.
  void WaitForCompactions() {
    for (int idle = 0; idle < 2;) {
      uint64_t running = 0, pending = 0;
      db_->GetIntProperty("rocksdb.num-running-compactions", &running);
      db_->GetIntProperty("rocksdb.compaction-pending", &pending);
      idle = running + pending == 0 ? idle + 1 : 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
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
      out.push_back({f.level, p->num_entries, p->filter_size});
    }
    return out;
  }

  // Filter bits per key over every live file, and by level.
  static double BitsPerKey(const std::vector<FileFilter>& files, int level = -1) {
    double bits = 0, keys = 0;
    for (const FileFilter& f : files) {
      if (level >= 0 && f.level != level) continue;
      bits += 8.0 * f.filter_bytes;
      keys += f.entries;
    }
    return bits / keys;
  }

  void ExpectAllPresent(int batches, int keys = kBatchKeys) {
    for (int b = 0; b < batches; ++b) {
      for (int i = 0; i < keys; i += 7) {
        std::string value;
        ASSERT_TRUE(db_->Get(rdb::ReadOptions(), Key(b, i, keys), &value).ok()) << Key(b, i, keys);
      }
    }
  }

  TempDir tmp_{"sstfilter_level_aware_test"};
  const std::string dir_ = tmp_.path();
  std::unique_ptr<rdb::DB> db_;
  std::shared_ptr<const rdb::FilterPolicy> policy_;
  std::shared_ptr<rdb::Statistics> stats_;
};

}  // namespace test
}  // namespace sstfilter
