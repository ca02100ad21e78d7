// Writes the SST fixtures under tests/golden/sst/: small files in the
// footer formats RocksDB 8.6+ writes (format_version 6, with a footer
// checksum and checksums "with context") and 10.4+ writes (format_version 7,
// RocksDB 11's default), which Debian's RocksDB cannot write. Each holds the
// keys SortedKey(0 .. kKeys-1) of tests/tool_test_util.h with RocksDB's
// built-in Bloom filter, NewBloomFilterPolicy(10). The files differ from run
// to run (each draws a random base_context_checksum and session id), so
// tests check what they say, never their bytes.
//
// Built by hand against a RocksDB >= 10.4 install prefix PREFIX (one line):
//   g++ -std=c++20 -O1 -I PREFIX/include tests/golden/make_sst_fixtures.cc
//       -o /tmp/make_sst_fixtures -L PREFIX/lib -lrocksdb -Wl,-rpath,PREFIX/lib
//   /tmp/make_sst_fixtures tests/golden/sst
// Existing files are overwritten; tests/sst_format_test.cc lists the cases.
#include <cstdio>
#include <memory>
#include <string>

#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>

namespace rdb = ROCKSDB_NAMESPACE;

namespace {

constexpr int kKeys = 100;             // full filters: a 128-byte filter
constexpr int kPartitionedKeys = 400;  // several 128-byte partitions

struct Fixture {
  const char* name;
  int format_version;
  rdb::ChecksumType checksum;
  bool partitioned;
};

const Fixture kFixtures[] = {
    {"v6_xxh3_full", 6, rdb::kXXH3, false},
    {"v6_crc32c_full", 6, rdb::kCRC32c, false},
    {"v7_xxh3_full", 7, rdb::kXXH3, false},
    {"v7_crc32c_full", 7, rdb::kCRC32c, false},
    {"v7_nochecksum_full", 7, rdb::kNoChecksum, false},
    {"v7_xxh3_partitioned", 7, rdb::kXXH3, true},
};

std::string SortedKey(int i) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "key%010d", i);
  return buf;
}

bool Write(const Fixture& f, const std::string& dir) {
  rdb::BlockBasedTableOptions table;
  table.filter_policy.reset(rdb::NewBloomFilterPolicy(10));
  table.format_version = f.format_version;
  table.checksum = f.checksum;
  if (f.partitioned) {
    table.partition_filters = true;
    table.index_type = rdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
    table.metadata_block_size = 128;
  }
  rdb::Options options;
  options.compression = rdb::kNoCompression;
  options.db_host_id = "";  // no machine name in the committed files
  options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
  rdb::SstFileWriter writer(rdb::EnvOptions(), options);
  const std::string path = dir + "/" + f.name + ".sst";
  rdb::Status s = writer.Open(path);
  const int keys = f.partitioned ? kPartitionedKeys : kKeys;
  for (int i = 0; s.ok() && i < keys; ++i) s = writer.Put(SortedKey(i), "v");
  if (s.ok()) s = writer.Finish();
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), s.ToString().c_str());
    return false;
  }
  std::printf("wrote %s\n", path.c_str());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  bool ok = true;
  for (const Fixture& f : kFixtures) ok = Write(f, argv[1]) && ok;
  return ok ? 0 : 1;
}
