// The tool's SST parsing (plugin/tools/sst_format.h, block_checksum.h,
// filter_block_info.h) on files RocksDB writes with every footer and
// checksum type, and on damaged input: every truncation and bit flip of the
// parts it reads, never a crash (the ASan build runs these too).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include "plugin/tools/block_checksum.h"
#include "plugin/tools/filter_block_info.h"
#include "plugin/tools/sst_filter_reader.h"
#include "plugin/tools/sst_format.h"
#include "tests/tool_test_util.h"

namespace sstfilter::tools {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using test::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string_view Tail(const std::string& file) {
  return std::string_view(file).substr(file.size() - std::min(file.size(), kFooterBytes));
}

// The parsed footer and metaindex of a whole file in memory.
struct ParsedSst {
  Footer footer;
  std::vector<MetaIndexEntry> meta;
  const MetaIndexEntry* Find(std::string_view prefix) const {
    for (const auto& e : meta) {
      if (e.name.rfind(prefix, 0) == 0) return &e;
    }
    return nullptr;
  }
};

ParsedSst Parse(const std::string& file) {
  ParsedSst p;
  std::string error;
  EXPECT_TRUE(ParseFooter(Tail(file), file.size(), &p.footer, &error)) << error;
  const std::string_view block =
      std::string_view(file).substr(p.footer.metaindex.offset, p.footer.metaindex.size);
  EXPECT_TRUE(ParseMetaIndex(block, &p.meta, &error)) << error;
  return p;
}

std::string_view BlockWithTrailer(const std::string& file, const BlockHandle& h) {
  return std::string_view(file).substr(h.offset, h.size + kBlockTrailerBytes);
}

struct FormatCase {
  uint32_t format_version;
  rdb::ChecksumType checksum;
};

class SstFormatTest : public ::testing::TestWithParam<FormatCase> {};

// Every footer version and checksum type RocksDB 7.8 writes: the filter is
// found under its family name and every block's checksum verifies.
TEST_P(SstFormatTest, FindsAndVerifiesTheFilterBlock) {
  TempDir dir;
  rdb::Options options = test::OptionsFor("filter_policy=sstfilter.BlockedBloom:10");
  auto* table = options.table_factory->GetOptions<rdb::BlockBasedTableOptions>();
  table->format_version = GetParam().format_version;
  table->checksum = GetParam().checksum;
  const std::string path = dir.path() + "/a.sst";
  test::WriteSst(path, options, 0, 5000);
  const std::string file = ReadFile(path);
  const ParsedSst p = Parse(file);
  EXPECT_EQ(p.footer.table_type, TableType::kBlockBased);
  EXPECT_EQ(p.footer.format_version, GetParam().format_version);
  EXPECT_EQ(p.footer.checksum_type, static_cast<uint8_t>(GetParam().checksum));
  ASSERT_NE(p.Find("rocksdb.properties"), nullptr);
  const MetaIndexEntry* filter = p.Find(kFullFilterPrefix);
  ASSERT_NE(filter, nullptr);
  EXPECT_EQ(filter->name, "fullfilter.rocksdb.BuiltinBloomFilter");
  std::string error;
  for (const BlockHandle& h : {filter->handle, p.footer.metaindex, p.footer.index}) {
    EXPECT_TRUE(VerifyBlockChecksum(p.footer.checksum_type, BlockWithTrailer(file, h), &error))
        << error;
  }
  const FilterBlockInfo info =
      DescribeSstFilterBlock(std::string_view(file).substr(filter->handle.offset, filter->handle.size));
  EXPECT_TRUE(info.usable) << info.problem;
  EXPECT_EQ(info.kind, "BlockedBloom");
  EXPECT_EQ(info.num_keys, 5000u);
  EXPECT_EQ(info.probes, 6);  // 10 bits/key, one line
  // A damaged byte fails the checksum (none to fail without one).
  std::string damaged(BlockWithTrailer(file, filter->handle));
  damaged[damaged.size() / 2] ^= 0x10;
  EXPECT_EQ(VerifyBlockChecksum(p.footer.checksum_type, damaged, &error),
            GetParam().checksum == rdb::kNoChecksum);
}

INSTANTIATE_TEST_SUITE_P(
    AllFootersAndChecksums, SstFormatTest,
    ::testing::Values(FormatCase{0, rdb::kCRC32c}, FormatCase{2, rdb::kCRC32c},
                      FormatCase{5, rdb::kNoChecksum}, FormatCase{5, rdb::kCRC32c},
                      FormatCase{5, rdb::kxxHash}, FormatCase{5, rdb::kxxHash64},
                      FormatCase{5, rdb::kXXH3}),
    [](const auto& info) {
      return "v" + std::to_string(info.param.format_version) + "_checksum" +
             std::to_string(static_cast<int>(info.param.checksum));
    });

TEST(BlockChecksumTest, Crc32cKnownAnswer) {
  EXPECT_EQ(Crc32c(0, "123456789"), 0xE3069283u);  // RFC 3720's check value
}

// Partition index blocks: delta-encoded handles (format_version >= 4) and
// full handles; every partition lies in the file with a good checksum.
TEST(SstFormatPartitionTest, ParsesPartitionIndexes) {
  for (const uint32_t version : {3u, 5u}) {
    TempDir dir;
    rdb::Options options = test::OptionsFor(
        "filter_policy=bloomfilter:10:false;partition_filters=true;"
        "index_type=kTwoLevelIndexSearch;metadata_block_size=256");
    options.table_factory->GetOptions<rdb::BlockBasedTableOptions>()->format_version = version;
    const std::string path = dir.path() + "/p.sst";
    test::WriteSst(path, options, 0, 20000);
    const std::string file = ReadFile(path);
    const ParsedSst p = Parse(file);
    const MetaIndexEntry* index = p.Find(kPartitionedFilterPrefix);
    ASSERT_NE(index, nullptr) << version;
    EXPECT_EQ(index->name, "partitionedfilter.rocksdb.BuiltinBloomFilter");
    std::vector<BlockHandle> partitions;
    std::string error;
    ASSERT_TRUE(ParsePartitionIndex(
        std::string_view(file).substr(index->handle.offset, index->handle.size), version >= 4,
        &partitions, &error))
        << error;
    EXPECT_GT(partitions.size(), 10u) << version;
    for (const BlockHandle& h : partitions) {
      ASSERT_TRUE(HandleInFile(h, file.size()));
      EXPECT_TRUE(VerifyBlockChecksum(p.footer.checksum_type, BlockWithTrailer(file, h), &error))
          << error;
      const FilterBlockInfo info =
          DescribeBuiltinFilterBlock(std::string_view(file).substr(h.offset, h.size));
      // Before format_version 5, NewBloomFilterPolicy writes the legacy Bloom filter.
      EXPECT_EQ(info.kind, version >= 5 ? "FastLocalBloom" : "LegacyBloom");
      EXPECT_TRUE(info.usable);
    }
  }
}

// Every truncation and every single-bit flip of the footer, the metaindex
// and the filter block: the parsers answer, never crash or over-read.
TEST(SstFormatDamageTest, DamagedBytesNeverCrash) {
  TempDir dir;
  const std::string path = dir.path() + "/d.sst";
  test::WriteSst(path, test::OptionsFor("filter_policy=sstfilter.Ribbon:10"), 0, 3000);
  const std::string file = ReadFile(path);
  const ParsedSst p = Parse(file);
  const MetaIndexEntry* filter = p.Find(kFullFilterPrefix);
  ASSERT_NE(filter, nullptr);
  const std::string metaindex = file.substr(p.footer.metaindex.offset, p.footer.metaindex.size);
  const std::string block = file.substr(filter->handle.offset, filter->handle.size);
  std::string error;
  for (size_t cut = 0; cut < kFooterBytes; ++cut) {
    Footer f;
    const std::string tail(Tail(file).substr(cut));
    EXPECT_FALSE(ParseFooter(tail, tail.size(), &f, &error)) << cut;
  }
  for (size_t bit = 0; bit < 8 * kFooterBytes; ++bit) {
    std::string tail(Tail(file));
    tail[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    Footer f;
    if (ParseFooter(tail, file.size(), &f, &error)) {
      EXPECT_TRUE(HandleInFile(f.metaindex, file.size()));
    }
  }
  for (size_t len = 0; len <= metaindex.size(); ++len) {
    std::vector<MetaIndexEntry> entries;
    ParseMetaIndex(std::string_view(metaindex).substr(0, len), &entries, &error);
  }
  for (size_t bit = 0; bit < 8 * metaindex.size(); ++bit) {
    std::string damaged = metaindex;
    damaged[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    std::vector<MetaIndexEntry> entries;
    ParseMetaIndex(damaged, &entries, &error);
    std::vector<BlockHandle> partitions;
    ParsePartitionIndex(damaged, bit % 2 == 0, &partitions, &error);
  }
  for (size_t len = 0; len < block.size(); ++len) {
    const std::string_view cut = std::string_view(block).substr(0, len);
    EXPECT_FALSE(DescribeSstFilterBlock(cut).usable) << len;
    DescribeBuiltinFilterBlock(cut);
  }
  for (size_t bit = 8 * (block.size() - 16); bit < 8 * block.size(); ++bit) {
    std::string damaged = block;
    damaged[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    EXPECT_FALSE(DescribeSstFilterBlock(damaged).usable) << bit;  // the trailer check
  }
  // Whole files cut anywhere (every length near the end, a spread before):
  // a clear error, never a crash.
  for (size_t len = 0; len < file.size(); len += len + 200 < file.size() ? 97 : 1) {
    WriteFile(path, file.substr(0, len));
    const SstFilterReport r = ReadSstFilter(path, true);
    EXPECT_FALSE(r.readable) << len;
    EXPECT_FALSE(r.error.empty()) << len;
  }
}

// RocksDB's built-in metadata: each marker, and the reserved or
// inconsistent encodings its reader treats as "may match".
TEST(FilterBlockInfoTest, BuiltinMetadata) {
  auto block = [](std::vector<int> meta) {
    std::string b(128, '\0');
    for (int v : meta) b.push_back(static_cast<char>(v));
    return b;
  };
  EXPECT_EQ(DescribeBuiltinFilterBlock("").kind, "AlwaysFalse");
  EXPECT_TRUE(DescribeBuiltinFilterBlock("abcde").usable);
  FilterBlockInfo i = DescribeBuiltinFilterBlock(block({-1, 0, 6, 0, 0}));
  EXPECT_EQ(i.kind, "FastLocalBloom");
  EXPECT_TRUE(i.usable);
  EXPECT_EQ(i.probes, 6);
  EXPECT_FALSE(DescribeBuiltinFilterBlock(block({-1, 0, 6, 1, 0})).usable);   // reserved bytes
  EXPECT_FALSE(DescribeBuiltinFilterBlock(block({-1, 0, 31, 0, 0})).usable);  // probes
  EXPECT_FALSE(DescribeBuiltinFilterBlock(block({-1, 0, 0x26, 0, 0})).usable);  // 128-byte lines
  EXPECT_FALSE(DescribeBuiltinFilterBlock(block({-1, 1, 6, 0, 0})).usable);   // sub-implementation
  i = DescribeBuiltinFilterBlock(block({-2, 7, 2, 0, 0}));
  EXPECT_EQ(i.kind, "Standard128Ribbon");
  EXPECT_TRUE(i.usable);
  EXPECT_FALSE(DescribeBuiltinFilterBlock(block({-2, 7, 1, 0, 0})).usable);  // < 2 blocks
  EXPECT_FALSE(DescribeBuiltinFilterBlock(block({0, 0, 0, 0, 0})).usable);    // zero probes
  EXPECT_FALSE(DescribeBuiltinFilterBlock(block({-3, 0, 0, 0, 0})).usable);   // reserved marker
  i = DescribeBuiltinFilterBlock(block({5, 2, 0, 0, 0}));  // 2 lines of 64 bytes
  EXPECT_EQ(i.kind, "LegacyBloom");
  EXPECT_TRUE(i.usable);
  EXPECT_EQ(i.probes, 5);
  EXPECT_FALSE(DescribeBuiltinFilterBlock(block({5, 3, 0, 0, 0})).usable);  // 128 / 3
  EXPECT_FALSE(DescribeBuiltinFilterBlock(block({5, 0, 0, 0, 0})).usable);  // 0 lines
}

}  // namespace
}  // namespace sstfilter::tools
