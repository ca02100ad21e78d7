// The reader of the shared family name (NewFamilyBitsReader): RocksDB's
// built-in blocks, as RocksDB writes them, are read by RocksDB's reader and
// answer as there; bytes RocksDB never writes (a damaged, cut or extended
// sstfilter block among them) never reach it in a layout it would read
// past or answer "no" from; a version byte one bit off is caught by
// construction.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include "plugin/core/format.h"
#include "plugin/rocksdb/bits_reader.h"
#include "tests/policy_block.h"

namespace sstfilter {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

std::string Key(int i, int family) {
  return "key-" + std::to_string(family) + "-" + std::to_string(i);
}

std::string BuildBlock(const std::string& policy_id, int keys, bool optimize_for_memory) {
  return test::PolicyBlock(policy_id, keys, [](int i) { return Key(i, 1); }, optimize_for_memory);
}

const rdb::FilterPolicy& Builtin() {
  static const rdb::FilterPolicy* const policy = rdb::NewBloomFilterPolicy(10);
  return *policy;
}

// RocksDB's Bloom and Ribbon blocks at every size and setting a table may
// hold: the family reader answers each query as RocksDB's own reader does
// (so none is taken for damage and read as "may match").
TEST(FamilyReaderTest, BuiltinBlocksAnswerAsRocksDBsReader) {
  int blocks = 0;
  for (const char* kind : {"bloomfilter", "ribbonfilter"}) {
    for (double bits : {1.0, 3.5, 10.0, 23.0}) {
      for (int keys : {1, 2, 5, 30, 100, 1000, 10000, 60000}) {
        for (bool optimize : {false, true}) {
          const std::string id = std::string(kind) + ":" + std::to_string(bits);
          const std::string block = BuildBlock(id, keys, optimize);
          std::unique_ptr<rdb::FilterBitsReader> ours(NewFamilyBitsReader(block));
          std::unique_ptr<rdb::FilterBitsReader> theirs(Builtin().GetFilterBitsReader(block));
          int no = 0;
          for (int i = 0; i < 2000; ++i) {  // up to 1000 added keys, then absent ones
            const std::string key = i < std::min(keys, 1000) ? Key(i, 1) : Key(i, 2);
            const bool answer = theirs->MayMatch(key);
            ASSERT_EQ(ours->MayMatch(key), answer)
                << id << " keys " << keys << " len " << block.size();
            no += !answer;
          }
          if (bits >= 10 && keys >= 100) {
            EXPECT_GT(no, 0) << id << " keys " << keys;  // a real filter, not always true
          }
          ++blocks;
        }
      }
    }
  }
  EXPECT_EQ(blocks, 128);
}

// A FastLocalBloom marker on a block shorter than one 64-byte line: RocksDB's
// reader would read a whole line from its start. Put at the end of a page
// followed by an inaccessible one, any such read crashes.
TEST(FamilyReaderTest, BytesRocksDBNeverWritesAnswerMayMatch) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* mem = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  char* base = static_cast<char*>(mem);
  ASSERT_EQ(mprotect(base + page, page, PROT_NONE), 0);
  for (size_t payload = 1; payload < 200; ++payload) {
    const size_t len = payload + 5;
    char* block = base + page - len;
    std::memset(block, 0, len);
    block[payload] = static_cast<char>(0xFF);  // FastLocalBloom
    block[payload + 2] = 6;                    // 6 probes, 64-byte lines
    std::unique_ptr<rdb::FilterBitsReader> reader(NewFamilyBitsReader(rdb::Slice(block, len)));
    for (int i = 0; i < 50; ++i) {
      if (payload % 64 != 0) {
        ASSERT_TRUE(reader->MayMatch(Key(i, 1))) << payload;
      }
    }
  }
  munmap(mem, 2 * page);
  // 1 to 4 bytes: no one writes them. 5 bytes: only RocksDB's filters of
  // no keys (FastLocalBloom's metadata, a legacy filter of no lines), which
  // match nothing; a block cut to 5 bytes answers "may match".
  for (size_t len = 1; len <= 4; ++len) {
    const std::string block(len, '\0');
    std::unique_ptr<rdb::FilterBitsReader> reader(NewFamilyBitsReader(block));
    EXPECT_TRUE(reader->MayMatch(Key(0, 1))) << len;
  }
  for (const std::string& block : {std::string("\xff\x00\x06\x00\x00", 5),
                                  std::string("\x06\x00\x00\x00\x00", 5), std::string()}) {
    std::unique_ptr<rdb::FilterBitsReader> reader(NewFamilyBitsReader(block));
    EXPECT_FALSE(reader->MayMatch(Key(0, 1))) << block.size();
    std::unique_ptr<rdb::FilterBitsReader> theirs(Builtin().GetFilterBitsReader(block));
    EXPECT_FALSE(theirs->MayMatch(Key(0, 1)));
  }
  for (const char* id : {"sstfilter.StandardBloom:10", "sstfilter.Ribbon:10"}) {
    const std::string cut = BuildBlock(id, 1000, false).substr(0, 5);
    std::unique_ptr<rdb::FilterBitsReader> reader(NewFamilyBitsReader(cut));
    EXPECT_TRUE(reader->MayMatch(Key(0, 1))) << id;
  }
}

// Every bit of a version 3 block's version byte, flipped: the block passes
// its check with the byte restored, so it is ours and damaged, whatever a
// built-in reader would make of the byte (0x03: a legacy Bloom filter of 3
// probes; 0x82: version 2, whose own check covers only its trailer).
TEST(FamilyReaderTest, AVersionByteOneBitOffIsCaught) {
  for (const char* id : {"sstfilter.StandardBloom:10", "sstfilter.BlockedBloom:10",
                         "sstfilter.Ribbon:10"}) {
    const std::string block = BuildBlock(id, 3000, false);
    ASSERT_EQ(static_cast<uint8_t>(block[block.size() - 5]), kVersionByteV3);
    EXPECT_FALSE(IsFlippedSstFilterBlock(block.data(), block.size())) << id;
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = block;
      flipped[flipped.size() - 5] = static_cast<char>(flipped[flipped.size() - 5] ^ (1 << bit));
      ParsedBlock parsed;
      EXPECT_FALSE(ParseBlock(flipped.data(), flipped.size(), &parsed)) << id << " bit " << bit;
      if (!HasSstFilterVersionByte(flipped.data(), flipped.size())) {
        EXPECT_TRUE(IsFlippedSstFilterBlock(flipped.data(), flipped.size()))
            << id << " bit " << bit;
      }
      std::unique_ptr<rdb::FilterBitsReader> reader(NewFamilyBitsReader(flipped));
      for (int i = 0; i < 3000; ++i) {
        ASSERT_TRUE(reader->MayMatch(Key(i, 1))) << id << " bit " << bit;
      }
    }
  }
  // A version 2 block with its byte flipped to version 3's, and the reverse:
  // the other version's check with the byte restored says so.
  const std::string v2 = BuildBlock("{id=sstfilter.Ribbon;bits_per_key=10;format_version=2}", 3000,
                                    false);
  ASSERT_EQ(static_cast<uint8_t>(v2[v2.size() - 5]), kVersionByteV2);
  EXPECT_TRUE(ChecksWithVersionByte(v2.data(), v2.size(), kVersionByteV2));
  const std::string v3 = BuildBlock("sstfilter.Ribbon:10", 3000, false);
  EXPECT_TRUE(ChecksWithVersionByte(v3.data(), v3.size(), kVersionByteV3));
  EXPECT_FALSE(ChecksWithVersionByte(v3.data(), v3.size(), kVersionByteV2));
}

// Every cut of a version 3 block to 5 bytes or more, and extensions by
// zero or random bytes: whatever reader each one gets, no added key is
// answered "no".
TEST(FamilyReaderTest, CutAndExtendedBlocksMissNoKey) {
  for (const char* id : {"sstfilter.StandardBloom:10", "sstfilter.BlockedBloom:10",
                         "sstfilter.Ribbon:10"}) {
    const int keys = 300;
    const std::string block = BuildBlock(id, keys, false);
    std::vector<std::string> damaged;
    for (size_t len = 5; len < block.size(); ++len) damaged.push_back(block.substr(0, len));
    uint64_t x = 12345;
    for (size_t extra = 1; extra <= 64; ++extra) {
      damaged.push_back(block + std::string(extra, '\0'));
      std::string tail;
      for (size_t i = 0; i < extra; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        tail.push_back(static_cast<char>(x >> 56));
      }
      damaged.push_back(block + tail);
    }
    for (const std::string& d : damaged) {
      std::unique_ptr<rdb::FilterBitsReader> reader(NewFamilyBitsReader(d));
      for (int i = 0; i < keys; ++i) {
        ASSERT_TRUE(reader->MayMatch(Key(i, 1))) << id << " length " << d.size() << " of "
                                                 << block.size();
      }
    }
  }
}

}  // namespace
}  // namespace sstfilter
