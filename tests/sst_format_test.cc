// The tool's SST parsing (plugin/tools/sst_format.h, block_checksum.h,
// filter_block_info.h) on files RocksDB writes with every footer and
// checksum type, and on damaged input: every truncation and bit flip of the
// parts it reads, never a crash (the ASan build runs these too). Footers of
// format_version 6 and 7, which Debian's RocksDB cannot write, come from
// the committed files under tests/golden/sst/ (make_sst_fixtures.cc there).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include "plugin/core/filter_builder.h"
#include "plugin/core/hash.h"
#include "plugin/rocksdb/api_compat.h"
#include "plugin/rocksdb/filter_bits.h"
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

// The block's checksum, with its context from format_version 6 on.
bool Verify(const Footer& footer, const std::string& file, const BlockHandle& h,
            std::string* error) {
  return VerifyBlockChecksum(footer.checksum_type, footer.base_context_checksum, h.offset,
                             BlockWithTrailer(file, h), error);
}

// The newest format_version the linked RocksDB writes: 6 from 8.6, 7 from
// 10.4 (its table/format.h, kLatestBbtFormatVersion).
#if SSTF_ROCKSDB_AT_LEAST(10, 4)
constexpr uint32_t kNewestWritten = 7;
#elif SSTF_ROCKSDB_AT_LEAST(8, 6)
constexpr uint32_t kNewestWritten = 6;
#else
constexpr uint32_t kNewestWritten = 5;
#endif

struct FormatCase {
  uint32_t format_version;
  rdb::ChecksumType checksum;
};

void PrintTo(const FormatCase& c, std::ostream* os) {
  *os << "format_version " << c.format_version << ", checksum type "
      << static_cast<int>(c.checksum);
}

class SstFormatTest : public ::testing::TestWithParam<FormatCase> {};

// Every footer version and checksum type the linked RocksDB writes: the
// filter is found under its family name and every block's checksum verifies.
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
  BlockHandle index;
  ASSERT_TRUE(IndexHandle(p.footer, p.meta, &index));
  ASSERT_TRUE(HandleInFile(index, file.size()));
  for (const BlockHandle& h : {filter->handle, p.footer.metaindex, index}) {
    EXPECT_TRUE(Verify(p.footer, file, h, &error)) << error;
  }
  const FilterBlockInfo info =
      DescribeSstFilterBlock(std::string_view(file).substr(filter->handle.offset, filter->handle.size));
  EXPECT_TRUE(info.usable) << info.problem;
  EXPECT_EQ(info.kind, "BlockedBloom");
  EXPECT_EQ(info.sstfilter_version, 3);
  EXPECT_FALSE(info.has_num_keys);  // version 3 leaves the count to the table
  EXPECT_EQ(info.probes, 6);        // 10 bits/key, one line
  // A damaged byte fails the checksum (none to fail without one).
  std::string damaged(BlockWithTrailer(file, filter->handle));
  damaged[damaged.size() / 2] ^= 0x10;
  EXPECT_EQ(VerifyBlockChecksum(p.footer.checksum_type, p.footer.base_context_checksum,
                                filter->handle.offset, damaged, &error),
            GetParam().checksum == rdb::kNoChecksum);
}

std::vector<FormatCase> AllFormatCases() {
  std::vector<FormatCase> cases;
  // RocksDB 11 no longer writes format_version 0 and 1.
  if (!SSTF_ROCKSDB_AT_LEAST(11, 0)) cases.push_back({0, rdb::kCRC32c});
  cases.push_back({2, rdb::kCRC32c});
  for (uint32_t version = 5; version <= kNewestWritten; ++version) {
    for (const rdb::ChecksumType checksum :
         {rdb::kNoChecksum, rdb::kCRC32c, rdb::kxxHash, rdb::kxxHash64, rdb::kXXH3}) {
      cases.push_back({version, checksum});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(
    AllFootersAndChecksums, SstFormatTest, ::testing::ValuesIn(AllFormatCases()),
    [](const auto& info) {
      return "v" + std::to_string(info.param.format_version) + "_checksum" +
             std::to_string(static_cast<int>(info.param.checksum));
    });

// A Ribbon block of `version` holding keys "k0".."k<keys-1>" at 10 bits per
// key, and the builder's predicted FP rate for it.
std::pair<std::string, double> BuildRibbonBlock(uint8_t version, int keys) {
  FilterBuilder b(FilterConfig{FilterKind::kRibbon, 10, 1, version});
  for (int i = 0; i < keys; ++i) {
    const std::string k = "k" + std::to_string(i);
    b.AddKeyHash(HashKey(k.data(), k.size()));
  }
  size_t len = 0;
  auto block = b.Finish(&len);
  return {std::string(block.get(), len), b.PredictedFpRate(keys, len)};
}

// The FP rate the tool predicts for a block is the builder's for the same
// keys and length, whether or not the block records its key count (version
// 2 does, 3 does not); 0 for an empty filter of either version.
TEST(FilterBlockInfoTest, PredictsFromTheKeysOfEitherVersion) {
  for (uint8_t version : {2, 3}) {
    const auto [block, expected] = BuildRibbonBlock(version, 3000);
    const FilterBlockInfo info = DescribeSstFilterBlock(block);
    ASSERT_TRUE(info.usable) << info.problem;
    EXPECT_EQ(info.has_num_keys, version == 2);
    EXPECT_DOUBLE_EQ(PredictSstFilterFpRate(info, 3000, block.size()), expected) << +version;
    const auto [empty, zero] = BuildRibbonBlock(version, 0);
    const FilterBlockInfo e = DescribeSstFilterBlock(empty);
    ASSERT_TRUE(e.usable) << e.problem;
    EXPECT_EQ(zero, 0.0) << +version;
    EXPECT_EQ(PredictSstFilterFpRate(e, 3000, empty.size()), 0.0) << +version;
  }
}

// `sstfilter inspect` predicts a version-2 block from the keys it records
// and a version-3 block from its table's entries: a table of 5000 entries
// whose filter holds 3000 keys (prefixes, or keys the filter dedups) shows
// which count each took.
TEST(FilterBlockInfoTest, InspectPredictsVersion2FromItsCountAndVersion3FromTheTable) {
  for (uint8_t version : {2, 3}) {
    const std::string block = BuildRibbonBlock(version, 3000).first;
    const size_t len = block.size();
    const FilterBlockInfo info = DescribeSstFilterBlock(block);
    ASSERT_TRUE(info.usable) << info.problem;
    const double from_filter = PredictSstFilterFpRate(info, 3000, len);
    const double from_table = PredictSstFilterFpRate(info, 5000, len);
    ASSERT_LT(from_filter, from_table);  // the two counts give different predictions
    EXPECT_DOUBLE_EQ(PredictBlockFpRate(info, 5000, len), version == 2 ? from_filter : from_table)
        << +version;
  }
}

TEST(BlockChecksumTest, Crc32cKnownAnswer) {
  EXPECT_EQ(Crc32c(0, "123456789"), 0xE3069283u);  // RFC 3720's check value
}

// Partition index blocks: delta-encoded handles (format_version >= 4) and
// full handles; every partition lies in the file with a good checksum.
TEST(SstFormatPartitionTest, ParsesPartitionIndexes) {
  for (const uint32_t version : std::set<uint32_t>{3, 5, kNewestWritten}) {
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
      EXPECT_TRUE(Verify(p.footer, file, h, &error)) << error;
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

// --- Files RocksDB 11.8.1 wrote (tests/golden/sst/) --------------------------

struct Fixture {
  const char* name;  // tests/golden/sst/<name>.sst
  uint32_t format_version;
  rdb::ChecksumType checksum;
  bool partitioned;
  int keys;  // test::SortedKey(0 .. keys-1)
};

const Fixture kFixtures[] = {
    {"v6_xxh3_full", 6, rdb::kXXH3, false, 100},
    {"v6_crc32c_full", 6, rdb::kCRC32c, false, 100},
    {"v7_xxh3_full", 7, rdb::kXXH3, false, 100},
    {"v7_crc32c_full", 7, rdb::kCRC32c, false, 100},
    {"v7_nochecksum_full", 7, rdb::kNoChecksum, false, 100},
    {"v7_xxh3_partitioned", 7, rdb::kXXH3, true, 400},
};

void PrintTo(const Fixture& f, std::ostream* os) { *os << f.name; }

std::string FixturePath(const Fixture& f) {
  return std::string(SSTFILTER_SOURCE_DIR) + "/tests/golden/sst/" + f.name + ".sst";
}

// The filter blocks of a whole file in memory, reached and checked as
// `inspect` does: footer, metaindex, partition index and each filter block
// verified (checksum with its context, stored uncompressed); false at the
// first thing that fails. Partition handles are taken as delta-encoded from
// format_version 4 on, what RocksDB writes (the tool asks the table
// property instead).
bool VerifiedFilterBlocks(const std::string& file, std::vector<std::string>* blocks,
                          std::string* error) {
  Footer footer;
  std::vector<MetaIndexEntry> meta;
  auto read = [&](const BlockHandle& h, std::string_view* contents) {
    if (!HandleInFile(h, file.size()) || !Verify(footer, file, h, error)) return false;
    if (file[h.offset + h.size] != 0) {
      *error = "compressed";
      return false;
    }
    *contents = std::string_view(file).substr(h.offset, h.size);
    return true;
  };
  std::string_view metaindex, contents;
  if (!ParseFooter(Tail(file), file.size(), &footer, error) ||
      footer.table_type != TableType::kBlockBased || !read(footer.metaindex, &metaindex) ||
      !ParseMetaIndex(metaindex, &meta, error)) {
    return false;
  }
  for (const MetaIndexEntry& e : meta) {
    const bool full = e.name.rfind(kFullFilterPrefix, 0) == 0;
    if (!full && e.name.rfind(kPartitionedFilterPrefix, 0) != 0) continue;
    if (!read(e.handle, &contents)) return false;
    if (full) {
      blocks->emplace_back(contents);
      continue;
    }
    std::vector<BlockHandle> partitions;
    if (!ParsePartitionIndex(contents, footer.format_version >= 4, &partitions, error)) {
      return false;
    }
    for (const BlockHandle& h : partitions) {
      if (!read(h, &contents)) return false;
      blocks->emplace_back(contents);
    }
  }
  if (blocks->empty()) *error = "no filter";
  return !blocks->empty();
}

class SstFormatFixtureTest : public ::testing::TestWithParam<Fixture> {
 protected:
  void SetUp() override {
    file_ = ReadFile(FixturePath(GetParam()));
    ASSERT_GT(file_.size(), kFooterBytes) << FixturePath(GetParam());
  }
  std::string file_;
};

// Footer, metaindex, index and every meta and filter block: found, and
// every checksum verifies with its context, and with no other context.
TEST_P(SstFormatFixtureTest, ParsesFooterAndVerifiesEveryBlock) {
  const Fixture& f = GetParam();
  const ParsedSst p = Parse(file_);
  EXPECT_EQ(p.footer.format_version, f.format_version);
  EXPECT_EQ(p.footer.checksum_type, static_cast<uint8_t>(f.checksum));
  EXPECT_NE(p.footer.base_context_checksum, 0u);
  EXPECT_EQ(p.footer.metaindex.offset + p.footer.metaindex.size + kBlockTrailerBytes,
            file_.size() - kFooterBytes);
  BlockHandle index;
  ASSERT_TRUE(IndexHandle(p.footer, p.meta, &index));
  ASSERT_NE(p.Find(kIndexMetaName), nullptr);
  ASSERT_NE(p.Find("rocksdb.properties"), nullptr);
  const std::string_view prefix = f.partitioned ? kPartitionedFilterPrefix : kFullFilterPrefix;
  const MetaIndexEntry* filter = p.Find(prefix);
  ASSERT_NE(filter, nullptr);
  EXPECT_EQ(filter->name, std::string(prefix) + "rocksdb.BuiltinBloomFilter");
  std::vector<BlockHandle> blocks = {p.footer.metaindex, index};
  for (const MetaIndexEntry& e : p.meta) blocks.push_back(e.handle);
  std::string error;
  for (const BlockHandle& h : blocks) {
    ASSERT_TRUE(HandleInFile(h, file_.size()));
    EXPECT_TRUE(Verify(p.footer, file_, h, &error)) << h.offset << ": " << error;
    // The same bytes read at another offset, or as a block of another file
    // (another base), fail: the context RocksDB adds from format_version 6.
    for (const auto& [base, offset] : {std::pair{p.footer.base_context_checksum, h.offset + 1},
                                       std::pair{p.footer.base_context_checksum, h.offset - 1},
                                       std::pair{p.footer.base_context_checksum ^ 1, h.offset},
                                       std::pair{0u, h.offset}}) {
      EXPECT_FALSE(VerifyBlockChecksum(p.footer.checksum_type, base, offset,
                                       BlockWithTrailer(file_, h), &error))
          << h.offset;
    }
  }
}

// The filter blocks are RocksDB's FastLocalBloom holding every key, read
// through RocksDB's own reader.
TEST_P(SstFormatFixtureTest, FindsTheFilterAndItsKeys) {
  const Fixture& f = GetParam();
  std::vector<std::string> blocks;
  std::string error;
  ASSERT_TRUE(VerifiedFilterBlocks(file_, &blocks, &error)) << error;
  EXPECT_EQ(blocks.size() > 1, f.partitioned);
  std::unique_ptr<const rdb::FilterPolicy> policy(rdb::NewBloomFilterPolicy(10));
  std::vector<bits::Reader> readers;
  for (const std::string& block : blocks) {
    const FilterBlockInfo info = DescribeBuiltinFilterBlock(block);
    EXPECT_EQ(info.kind, "FastLocalBloom");
    EXPECT_TRUE(info.usable) << info.problem;
    // The 100 keys of a full filter got 2 cache lines (10.24 bits per key).
    if (!f.partitioned) {
      EXPECT_EQ(info.probes, 7);
    }
    readers.emplace_back(*policy, block);
  }
  for (int i = 0; i < f.keys; ++i) {
    const std::string key = test::SortedKey(i);
    EXPECT_TRUE(std::any_of(readers.begin(), readers.end(),
                            [&](const bits::Reader& r) { return r.MayMatch(key); }))
        << key;
  }
}

// Through the tool's reader: with a RocksDB that reads the format, the
// filter as `inspect` reports it; with an older one, an error naming the
// format_version.
TEST_P(SstFormatFixtureTest, ToolReadsTheFilter) {
  const Fixture& f = GetParam();
  const SstFilterReport r = ReadSstFilter(FixturePath(f), true);
  if (f.format_version > kNewestWritten) {
    EXPECT_FALSE(r.readable);
    EXPECT_NE(r.error.find("format_version " + std::to_string(f.format_version)),
              std::string::npos)
        << r.error;
    return;
  }
  ASSERT_TRUE(r.readable) << r.error;
  EXPECT_TRUE(r.problems.empty()) << r.problems.front();
  EXPECT_EQ(r.layout, f.partitioned ? FilterLayout::kPartitioned : FilterLayout::kFull);
  EXPECT_EQ(r.family, "rocksdb.BuiltinBloomFilter");
  EXPECT_TRUE(r.described);
  EXPECT_EQ(r.block.kind, "FastLocalBloom");
  EXPECT_TRUE(r.block.usable) << r.block.problem;
  EXPECT_EQ(r.partitions > 1, f.partitioned);
}

// Every single-byte change of the footer (each bit, and the byte inverted)
// and of each filter block with its trailer. With a checksum, the verified
// parse fails for every one: the footer checksum covers all 53 bytes.
// Without one, it fails or finds the very same filter for footer changes
// (the context still pins the metaindex's offset) and fails for trailer
// changes; a filter block's contents cannot be checked, only never crash.
TEST_P(SstFormatFixtureTest, EveryByteChangeIsDetected) {
  enum class Expect { kDetected, kDetectedOrSame, kNoCrash };
  const bool checksummed = GetParam().checksum != rdb::kNoChecksum;
  std::vector<std::string> intact;
  std::string error;
  ASSERT_TRUE(VerifiedFilterBlocks(file_, &intact, &error)) << error;
  auto check = [&](size_t pos, Expect expect) {
    for (int x = 0; x <= 8; ++x) {
      std::string damaged = file_;
      damaged[pos] ^= static_cast<char>(x < 8 ? 1 << x : 0xff);
      std::vector<std::string> blocks;
      if (!VerifiedFilterBlocks(damaged, &blocks, &error) || expect == Expect::kNoCrash) continue;
      EXPECT_NE(expect, Expect::kDetected) << "change at " << pos << " not detected";
      EXPECT_EQ(blocks, intact) << "change at " << pos << " read as a different filter";
    }
  };
  const size_t footer_at = file_.size() - kFooterBytes;
  for (size_t i = 0; i < kFooterBytes; ++i) {
    check(footer_at + i, checksummed ? Expect::kDetected : Expect::kDetectedOrSame);
  }
  const ParsedSst p = Parse(file_);
  for (const MetaIndexEntry& e : p.meta) {
    if (e.name.rfind(kFullFilterPrefix, 0) != 0 && e.name.rfind(kPartitionedFilterPrefix, 0) != 0) {
      continue;
    }
    for (size_t i = 0; i < e.handle.size + kBlockTrailerBytes; ++i) {
      check(e.handle.offset + i,
            checksummed || i >= e.handle.size ? Expect::kDetected : Expect::kNoCrash);
    }
  }
}

// Every truncation fails the verified parse (ASan: never reads past the
// cut), and the tool reports a cut file as unreadable.
TEST_P(SstFormatFixtureTest, EveryTruncationFails) {
  std::string error;
  for (size_t len = 0; len < file_.size(); ++len) {
    const std::string cut = file_.substr(0, len);
    std::vector<std::string> blocks;
    EXPECT_FALSE(VerifiedFilterBlocks(cut, &blocks, &error)) << len;
  }
  TempDir dir;
  const std::string path = dir.path() + "/cut.sst";
  for (size_t len = 0; len < file_.size(); len += len + 200 < file_.size() ? 97 : 1) {
    WriteFile(path, file_.substr(0, len));
    const SstFilterReport r = ReadSstFilter(path, true);
    EXPECT_FALSE(r.readable) << len;
    EXPECT_FALSE(r.error.empty()) << len;
  }
}

INSTANTIATE_TEST_SUITE_P(RocksDb11, SstFormatFixtureTest, ::testing::ValuesIn(kFixtures),
                         [](const auto& info) { return std::string(info.param.name); });

// A format_version 6+ footer changed, with its checksum recomputed: the
// reserved bytes mark a future feature and are refused, the unused ones are
// ignored; versions past 7 are refused by name.
TEST(SstFormatFooterTest, ReservedBytesAndFutureVersions) {
  const std::string file = ReadFile(FixturePath(kFixtures[0]));
  const Footer intact = Parse(file).footer;
  const uint64_t footer_at = file.size() - kFooterBytes;
  auto reparse = [&](size_t pos, const std::string& bytes, bool fix_checksum,
                     std::string* error) {
    std::string tail(Tail(file));
    tail.replace(pos, bytes.size(), bytes);
    if (fix_checksum) {
      std::string zeroed = tail;
      zeroed.replace(5, 4, 4, '\0');
      uint32_t checksum = 0;
      EXPECT_TRUE(BuiltinChecksum(intact.checksum_type, zeroed, &checksum));
      checksum += ChecksumContextModifier(intact.base_context_checksum, footer_at);
      for (int i = 0; i < 4; ++i) tail[5 + i] = static_cast<char>(checksum >> (8 * i));
    }
    Footer f;
    const bool ok = ParseFooter(tail, file.size(), &f, error);
    if (ok) {
      EXPECT_EQ(f.metaindex.offset, intact.metaindex.offset);
      EXPECT_EQ(f.base_context_checksum, intact.base_context_checksum);
    }
    return ok;
  };
  std::string error;
  EXPECT_TRUE(reparse(0, std::string(1, static_cast<char>(intact.checksum_type)), true, &error))
      << error;
  EXPECT_TRUE(reparse(20, "x", true, &error)) << error;  // unused
  EXPECT_FALSE(reparse(36, "x", true, &error));          // reserved
  EXPECT_NE(error.find("newer than this tool"), std::string::npos) << error;
  EXPECT_FALSE(reparse(20, "x", false, &error));  // covered by the checksum
  EXPECT_NE(error.find("checksum mismatch"), std::string::npos) << error;
  for (const int version : {8, 100}) {
    EXPECT_FALSE(reparse(kFooterBytes - 12, std::string(1, static_cast<char>(version)), true,
                         &error));
    EXPECT_NE(error.find("format_version " + std::to_string(version) + " is newer"),
              std::string::npos)
        << error;
  }
  EXPECT_FALSE(reparse(kFooterBytes - 12, std::string(1, '\0'), true, &error));
  EXPECT_FALSE(reparse(9, std::string(4, '\0'), true, &error));
  EXPECT_NE(error.find("base_context_checksum is 0"), std::string::npos) << error;
  EXPECT_FALSE(reparse(1, "?", true, &error));
  EXPECT_NE(error.find("extended magic"), std::string::npos) << error;
}

// The context modifier's arithmetic (RocksDB's ChecksumModifierForContext)
// and the edge cases of the checksum function.
TEST(BlockChecksumTest, ContextModifier) {
  EXPECT_EQ(ChecksumContextModifier(0, 12345), 0u);
  EXPECT_EQ(ChecksumContextModifier(0x12345678, 0), 0x12345678u);
  EXPECT_EQ(ChecksumContextModifier(0x12345678, 0x100000001), 0x12345678u ^ 2u);
  EXPECT_EQ(ChecksumContextModifier(1, 0xffffffff00000001), 1u);  // low + high wraps to 0
  uint32_t c = 1;
  EXPECT_TRUE(BuiltinChecksum(4, "", &c));
  EXPECT_EQ(c, 0u);
  EXPECT_FALSE(BuiltinChecksum(5, "abc", &c));
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
