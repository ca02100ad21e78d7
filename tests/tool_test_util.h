// Shared by the tests of the sstfilter command-line tool: SST files and
// databases written with a chosen filter policy, as a user would configure
// it.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>

#include "plugin/rocksdb/api_compat.h"
#include "tests/db_options.h"
#include "tests/temp_dir.h"

namespace sstfilter::test {

namespace rdb = ROCKSDB_NAMESPACE;

// Keys in bytewise order, as SstFileWriter needs them.
inline std::string SortedKey(int i) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "key%010d", i);
  return buf;
}

// Options from a BlockBasedTable options string, e.g.
// "filter_policy=sstfilter.Ribbon:10" (empty: no filter). Automatic
// compactions are off, so the tests choose the LSM shape.
inline rdb::Options OptionsFor(const std::string& table_options) {
  rdb::Options base;
  base.create_if_missing = true;
  base.disable_auto_compactions = true;
  base.write_buffer_size = 64 << 20;
  return WithTableOptions(base, table_options);
}

// One SST file of keys [first, first + count).
inline void WriteSst(const std::string& path, const rdb::Options& options, int first, int count) {
  rdb::SstFileWriter writer(rdb::EnvOptions(), options);
  ASSERT_TRUE(writer.Open(path).ok());
  for (int i = first; i < first + count; ++i) {
    ASSERT_TRUE(writer.Put(SortedKey(i), "value" + std::to_string(i)).ok());
  }
  ASSERT_TRUE(writer.Finish().ok());
}

// Writes `flushes` flushes of `keys_per_flush` keys (interleaved ranges);
// with `compact`, compacts all of them into L1 and writes two more flushes
// to L0, so the database has files on two levels.
inline void MakeDb(const std::string& dir, const rdb::Options& options, int flushes,
                   int keys_per_flush, bool compact) {
  std::unique_ptr<rdb::DB> db;
  const rdb::Status s = compat::OpenDB(options, dir, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  int next = 0;
  auto flush_some = [&](int n) {
    for (int f = 0; f < n; ++f) {
      for (int i = 0; i < keys_per_flush; ++i, ++next) {
        ASSERT_TRUE(db->Put(rdb::WriteOptions(), SortedKey(next * 7 % 1000003), "v").ok());
      }
      ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
    }
  };
  flush_some(flushes);
  if (compact) {
    ASSERT_TRUE(db->CompactRange(rdb::CompactRangeOptions(), nullptr, nullptr).ok());
    flush_some(2);
  }
  ASSERT_TRUE(db->Close().ok());
}

}  // namespace sstfilter::test
