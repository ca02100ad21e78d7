// Concurrency: many threads querying one FilterBitsReader, and many threads
// doing Get / MultiGet against one database while a writer, flushes and
// compactions keep building new filters and retiring old ones. Every
// registered policy is covered (PolicyIds()).
//
// A reader is shared by every thread that looks up its table, so it must
// be safe to query concurrently (it is immutable after construction); a
// builder is used by one flush or compaction at a time, but several run at
// once. Correctness is checked on every answer: a present key is always
// found, an absent key never. Under ThreadSanitizer (scripts/tsan.sh) the
// same tests look for data races in our code.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>

#include "plugin/rocksdb/compat.h"
#include "plugin/rocksdb/register.h"
#include "tests/temp_dir.h"
#include "tests/test_util.h"

namespace sstfilter {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

constexpr int kThreads = 8;

std::shared_ptr<const rdb::FilterPolicy> MakePolicy(const std::string& id) {
  std::shared_ptr<const rdb::FilterPolicy> policy;
  EXPECT_TRUE(rdb::FilterPolicy::CreateFromString(rdb::ConfigOptions(), id, &policy).ok());
  return policy;
}

class ConcurrencyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ConcurrencyTest, ManyThreadsOneReader) {
  constexpr int kKeys = 20000;
  const auto policy = MakePolicy(GetParam());
  rdb::BlockBasedTableOptions table_options;
  std::unique_ptr<rdb::FilterBitsBuilder> builder(
      policy->GetBuilderWithContext(rdb::FilterBuildingContext(table_options)));
  for (int i = 0; i < kKeys; ++i) builder->AddKey(test::Key(i, 1));
  std::unique_ptr<const char[]> buf;
  const rdb::Slice filter = builder->Finish(&buf);
  std::unique_ptr<rdb::FilterBitsReader> reader(policy->GetFilterBitsReader(filter));

  // Present keys (family 1) then absent ones (family 2); the single-threaded
  // answers are the reference.
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; ++i) keys.push_back(test::Key(i, 1));
  for (int i = 0; i < kKeys; ++i) keys.push_back(test::Key(i, 2));
  std::vector<char> expected(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) expected[i] = reader->MayMatch(keys[i]);
  for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(expected[i]) << "false negative " << i;

  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<rdb::Slice> slices;
      std::vector<rdb::Slice*> ptrs;
      bool answers[64];
      for (int round = 0; round < 3; ++round) {
        // Single lookups in a per-thread order, then batches of 1..64.
        const size_t offset = rng() % keys.size();
        for (size_t j = 0; j < keys.size(); ++j) {
          const size_t i = (offset + j) % keys.size();
          if (reader->MayMatch(keys[i]) != static_cast<bool>(expected[i])) ++mismatches;
        }
        for (size_t start = 0; start < keys.size();) {
          const size_t n = std::min<size_t>(1 + rng() % 64, keys.size() - start);
          slices.assign(keys.begin() + start, keys.begin() + start + n);
          ptrs.clear();
          for (auto& s : slices) ptrs.push_back(&s);
          reader->MayMatch(static_cast<int>(n), ptrs.data(), answers);
          for (size_t k = 0; k < n; ++k) {
            if (answers[k] != static_cast<bool>(expected[start + k])) ++mismatches;
          }
          start += n;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// RocksDB runs flushes and compactions in parallel, each with its own
// builder from the one shared policy: builders must share nothing mutable.
TEST_P(ConcurrencyTest, ParallelBuildersFromOnePolicy) {
  const auto policy = MakePolicy(GetParam());
  std::atomic<int> false_negatives{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      rdb::BlockBasedTableOptions table_options;
      table_options.detect_filter_construct_corruption = t % 2 == 0;
      std::unique_ptr<rdb::FilterBitsBuilder> builder(
          policy->GetBuilderWithContext(rdb::FilterBuildingContext(table_options)));
      for (int round = 0; round < 4; ++round) {  // reused, as for partitions
        const int n = 1000 + 3000 * round + t;
        for (int i = 0; i < n; ++i) builder->AddKey(test::Key(i, 100 * t + round));
        std::unique_ptr<const char[]> buf;
        rdb::Status s;
        const rdb::Slice filter = builder->Finish(&buf, &s);
        if (!s.ok() || !builder->MaybePostVerify(filter).ok()) ++false_negatives;
        std::unique_ptr<rdb::FilterBitsReader> reader(policy->GetFilterBitsReader(filter));
        for (int i = 0; i < n; ++i) {
          if (!reader->MayMatch(test::Key(i, 100 * t + round))) ++false_negatives;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(false_negatives.load(), 0);
}

// One writer adds keys in batches and publishes how far it got; a flusher
// forces flushes and full compactions; reader threads look up keys below
// the published mark (must be found) and odd keys (never written, must not
// be), by Get and by MultiGet. Automatic compactions run as well, on
// RocksDB's background threads.
TEST_P(ConcurrencyTest, GetAndMultiGetDuringFlushesAndCompactions) {
  constexpr int kKeys = 40000;
  constexpr int kBatch = 100;
  constexpr int kReaders = 4;
  // Declared before db, so the database is closed before its directory goes.
  test::TempDir tmp("sstfilter_concurrency");
  const std::string dir = tmp.path();

  rdb::BlockBasedTableOptions table;
  table.filter_policy = MakePolicy(GetParam());
  rdb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 64 << 10;
  options.target_file_size_base = 128 << 10;
  options.level0_file_num_compaction_trigger = 2;
  options.max_background_jobs = 4;
  options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
  options.statistics = rdb::CreateDBStatistics();
  std::unique_ptr<rdb::DB> db;
  ASSERT_TRUE(compat::OpenDB(options, dir, &db).ok());

  auto key = [](int i) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "key%09d", i);
    return std::string(buf);
  };
  auto value = [](int i) { return std::string(40, static_cast<char>('a' + i % 26)); };

  std::atomic<int> written{0};  // keys 2*i for i < written are in the DB
  std::atomic<bool> done{false};
  std::atomic<int> errors{0}, lookups{0};

  std::thread writer([&] {
    for (int start = 0; start < kKeys; start += kBatch) {
      rdb::WriteBatch batch;
      for (int i = start; i < start + kBatch; ++i) batch.Put(key(2 * i), value(i));
      if (!db->Write(rdb::WriteOptions(), &batch).ok()) ++errors;
      written.store(start + kBatch, std::memory_order_release);
    }
  });
  std::thread flusher([&] {
    int round = 0;
    while (written.load(std::memory_order_acquire) < kKeys) {
      if (!db->Flush(rdb::FlushOptions()).ok()) ++errors;
      if (++round % 4 == 0 &&
          !db->CompactRange(rdb::CompactRangeOptions(), nullptr, nullptr).ok()) {
        ++errors;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  std::vector<std::thread> readers;
  for (int t = 0; t < kReaders; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937 rng(100 + t);
      std::string v;
      while (!done.load(std::memory_order_acquire)) {
        const int mark = written.load(std::memory_order_acquire);
        if (mark == 0) continue;
        const int i = static_cast<int>(rng() % mark);
        rdb::Status s = db->Get(rdb::ReadOptions(), key(2 * i), &v);
        if (!s.ok() || v != value(i)) {
          ++errors;
          std::fprintf(stderr, "present %s: %s\n", key(2 * i).c_str(), s.ToString().c_str());
        }
        s = db->Get(rdb::ReadOptions(), key(2 * i + 1), &v);
        if (!s.IsNotFound()) ++errors;
        // A MultiGet of 16: even indexes present, odd absent.
        std::vector<std::string> keys;
        for (int k = 0; k < 16; ++k) keys.push_back(key(2 * static_cast<int>(rng() % mark) + k % 2));
        std::vector<rdb::Slice> slices(keys.begin(), keys.end());
        std::vector<rdb::PinnableSlice> values(keys.size());
        std::vector<rdb::Status> statuses(keys.size());
        db->MultiGet(rdb::ReadOptions(), db->DefaultColumnFamily(), keys.size(), slices.data(),
                     values.data(), statuses.data());
        for (int k = 0; k < 16; ++k) {
          if (k % 2 == 0 ? !statuses[k].ok() : !statuses[k].IsNotFound()) {
            ++errors;
            std::fprintf(stderr, "multiget %s: %s\n", keys[k].c_str(),
                         statuses[k].ToString().c_str());
          }
        }
        lookups += 18;
      }
    });
  }
  writer.join();
  flusher.join();
  ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
  ASSERT_TRUE(db->CompactRange(rdb::CompactRangeOptions(), nullptr, nullptr).ok());
  done.store(true, std::memory_order_release);
  for (auto& th : readers) th.join();

  EXPECT_EQ(errors.load(), 0);
  EXPECT_GT(lookups.load(), 10000);
  // The filters answered (not a DB without filters).
  EXPECT_GT(options.statistics->getTickerCount(rdb::BLOOM_FILTER_USEFUL), 1000u);
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, ConcurrencyTest, ::testing::ValuesIn(PolicyIds()),
                         [](const auto& info) {
                           return info.param.substr(info.param.find('.') + 1);
                         });

}  // namespace
}  // namespace sstfilter
