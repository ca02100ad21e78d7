// A program that uses sstfilter the way the README shows, built by
// tests/consumer_test.sh three ways against an installed sstfilter:
// find_package, pkg-config, and a plain `g++ ... -lrocksdb -lsstfilter`
// under --as-needed. It must get a real policy, and its database must have
// filters that answer: the test of the silent no-filter trap.
//
//   app DB_DIR    exit status 0 if every check passed
#include <cstdio>
#include <memory>
#include <string>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/version.h>

#include <sstfilter/sstfilter.h>

namespace {

int Fail(const std::string& what) {
  std::fprintf(stderr, "consumer app: FAILED: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return Fail("usage: app DB_DIR");
  rocksdb::BlockBasedTableOptions table_options;
  // [readme-snippet]
  std::shared_ptr<const rocksdb::FilterPolicy> policy;
  rocksdb::Status s = sstfilter::NewFilterPolicy("sstfilter.Ribbon:10", &policy);
  if (!s.ok()) {  // never OK without a policy
    std::fprintf(stderr, "no filter policy: %s\n", s.ToString().c_str());
    return 1;
  }
  table_options.filter_policy = policy;
  // [readme-snippet]

  // The id in an options string resolves too (RegisterAll ran).
  rocksdb::ConfigOptions config_options;
  config_options.ignore_unsupported_options = false;
  std::shared_ptr<const rocksdb::FilterPolicy> from_string;
  s = rocksdb::FilterPolicy::CreateFromString(config_options, "sstfilter.BlockedBloom:10",
                                              &from_string);
  if (!s.ok() || from_string == nullptr) return Fail("CreateFromString: " + s.ToString());

  rocksdb::Options options;
  options.create_if_missing = true;
  options.statistics = rocksdb::CreateDBStatistics();
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));
  std::unique_ptr<rocksdb::DB> db;
#if ROCKSDB_MAJOR > 9 || (ROCKSDB_MAJOR == 9 && ROCKSDB_MINOR >= 11)
  s = rocksdb::DB::Open(options, argv[1], &db);
#else
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::Open(options, argv[1], &raw);
  db.reset(raw);
#endif
  if (!s.ok()) return Fail("open: " + s.ToString());
  for (int i = 0; i < 20000; i += 2) {
    if (!db->Put(rocksdb::WriteOptions(), "key" + std::to_string(i), "v").ok()) return Fail("put");
  }
  if (!db->Flush(rocksdb::FlushOptions()).ok()) return Fail("flush");

  rocksdb::TablePropertiesCollection props;
  if (!db->GetPropertiesOfAllTables(&props).ok() || props.empty()) return Fail("no tables");
  for (const auto& [file, p] : props) {
    if (p->filter_policy_name != "sstfilter.Ribbon" || p->filter_size == 0) {
      return Fail(file + " has filter '" + p->filter_policy_name + "'");
    }
  }
  std::string value;
  for (int i = 0; i < 20000; ++i) {
    const bool present = db->Get(rocksdb::ReadOptions(), "key" + std::to_string(i), &value).ok();
    if (present != (i % 2 == 0)) return Fail("wrong answer for key" + std::to_string(i));
  }
  const uint64_t useful = options.statistics->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL);
  if (useful < 9000) return Fail("filter useful only " + std::to_string(useful) + " times");
  std::printf("consumer app: policy %s, filter useful %llu of 10000 absent lookups\n",
              policy->Name(), static_cast<unsigned long long>(useful));
  return 0;
}
