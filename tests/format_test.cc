// The block format under damage, versions 2 and 3: every truncation, every
// trailer bit flip (version 3: every bit of the block), unknown kinds and
// versions, inconsistent parameters. Untrusted blocks must
// read as "may match" (AlwaysTrueReader), and nothing may crash (the suite
// also runs under ASan/UBSan).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "plugin/core/filter_builder.h"
#include "plugin/core/filter_reader.h"
#include "plugin/core/hash.h"
#include "tests/test_util.h"

namespace sstfilter {
namespace {

using test::Key;

std::vector<char> BuildBlock(const FilterConfig& config, size_t num_keys) {
  FilterBuilder b(config);
  for (size_t i = 0; i < num_keys; ++i) {
    const std::string k = Key(i);
    b.AddKeyHash(HashKey(k.data(), k.size()));
  }
  size_t len = 0;
  auto block = b.Finish(&len);
  return std::vector<char>(block.get(), block.get() + len);
}

bool ReadsAsMayMatchAll(const char* data, size_t len) {
  return VisitFilter(data, len, [](const auto& r) {
    return std::is_same_v<std::decay_t<decltype(r)>, AlwaysTrueReader>;
  });
}

// Rewrites the trailer with a valid check, so only the field under test is
// wrong: proves the reader validates fields, not just the checksum.
std::vector<char> WithTrailer(std::vector<char> block, const Trailer& t) {
  EncodeTrailer(t, block.data(), block.size() - TrailerBytes(t.version));
  return block;
}

Trailer TrailerOf(const std::vector<char>& block) {
  ParsedBlock parsed;
  EXPECT_TRUE(ParseBlock(block.data(), block.size(), &parsed));
  return parsed.trailer;
}

// Every kind and setting, written in version 3 and in version 2.
std::vector<FilterConfig> ConfigsOfBothVersions() {
  std::vector<FilterConfig> configs;
  for (uint8_t version : {3, 2}) {
    for (FilterConfig c : test::AllConfigs()) {
      c.format_version = version;
      configs.push_back(c);
    }
  }
  return configs;
}

class FormatTest : public ::testing::TestWithParam<FilterConfig> {
 protected:
  size_t trailer_bytes() const { return TrailerBytes(WrittenVersion(GetParam())); }
};

TEST_P(FormatTest, WritesTheAskedVersion) {
  const auto block = BuildBlock(GetParam(), 500);
  EXPECT_EQ(TrailerOf(block).version, WrittenVersion(GetParam()));
  EXPECT_EQ(static_cast<uint8_t>(block[block.size() - 5]),
            GetParam().format_version == 2 ? kVersionByteV2 : kVersionByteV3);
}

TEST_P(FormatTest, ValidBlockIsTrusted) {
  const auto block = BuildBlock(GetParam(), 500);
  EXPECT_FALSE(ReadsAsMayMatchAll(block.data(), block.size()));
}

TEST_P(FormatTest, EveryTruncationReadsAsMayMatch) {
  const auto block = BuildBlock(GetParam(), 500);
  for (size_t len = 0; len < block.size(); ++len) {
    // A fresh heap copy of exactly `len` bytes, so ASan sees any over-read.
    std::unique_ptr<char[]> copy(new char[len + 1]);
    std::copy(block.begin(), block.begin() + len, copy.get());
    ASSERT_TRUE(ReadsAsMayMatchAll(copy.get(), len)) << "prefix len " << len;
    ASSERT_TRUE(ReadsAsMayMatchAll(block.data() + (block.size() - len), len))
        << "suffix len " << len;
  }
}

TEST_P(FormatTest, EveryTrailerBitFlipReadsAsMayMatch) {
  auto block = BuildBlock(GetParam(), 500);
  const size_t start = block.size() - trailer_bytes();
  for (size_t bit = 0; bit < 8 * trailer_bytes(); ++bit) {
    block[start + bit / 8] ^= static_cast<char>(1 << (bit % 8));
    ASSERT_TRUE(ReadsAsMayMatchAll(block.data(), block.size())) << "bit " << bit;
    for (int i = 0; i < 500; ++i) {
      const std::string k = Key(i);
      ASSERT_TRUE(FilterMayMatch(block.data(), block.size(), HashKey(k.data(), k.size())));
    }
    block[start + bit / 8] ^= static_cast<char>(1 << (bit % 8));
  }
  EXPECT_FALSE(ReadsAsMayMatchAll(block.data(), block.size()));
}

// Version 3's check is a CRC over every byte before it: any single flipped
// bit, payload included, makes the block untrusted, by construction.
TEST_P(FormatTest, EveryBitFlipOfVersion3ReadsAsMayMatch) {
  if (WrittenVersion(GetParam()) != 3) GTEST_SKIP() << "version 2 checks its trailer only";
  auto block = BuildBlock(GetParam(), 500);
  for (size_t bit = 0; bit < 8 * block.size(); ++bit) {
    block[bit / 8] ^= static_cast<char>(1 << (bit % 8));
    ASSERT_TRUE(ReadsAsMayMatchAll(block.data(), block.size())) << "bit " << bit;
    block[bit / 8] ^= static_cast<char>(1 << (bit % 8));
  }
  EXPECT_FALSE(ReadsAsMayMatchAll(block.data(), block.size()));
}

// Appended bytes (zeros, or a copy of the block's own end) never make a
// block trusted.
TEST_P(FormatTest, EveryExtensionReadsAsMayMatch) {
  const auto block = BuildBlock(GetParam(), 500);
  for (size_t extra = 1; extra <= 64; ++extra) {
    for (bool zeros : {true, false}) {
      std::vector<char> longer = block;
      for (size_t i = 0; i < extra; ++i) {
        longer.push_back(zeros ? 0 : block[block.size() - extra + i % extra]);
      }
      ASSERT_TRUE(ReadsAsMayMatchAll(longer.data(), longer.size()))
          << "extra " << extra << (zeros ? " zeros" : " copied");
    }
  }
}

TEST_P(FormatTest, UnknownKindOrVersionReadsAsMayMatch) {
  const auto block = BuildBlock(GetParam(), 500);
  // Version 3 keeps 4 bits of kind: 6..15 are unknown there.
  for (int kind : {0, 6, 7, 15}) {
    Trailer t = TrailerOf(block);
    t.kind = static_cast<FilterKind>(kind);
    const auto bad = WithTrailer(block, t);
    EXPECT_TRUE(ReadsAsMayMatchAll(bad.data(), bad.size())) << "kind " << kind;
  }
  for (int version : {0, 4, 255}) {
    Trailer t = TrailerOf(block);
    t.version = static_cast<uint8_t>(version);
    const auto bad = WithTrailer(block, t);
    EXPECT_TRUE(ReadsAsMayMatchAll(bad.data(), bad.size())) << "version " << version;
  }
}

TEST_P(FormatTest, RandomBytesNeverCrash) {
  std::mt19937_64 rng(42);
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<char> junk(rng() % 200);
    for (char& c : junk) c = static_cast<char>(rng());
    const uint64_t h = rng();
    (void)FilterMayMatch(junk.data(), junk.size(), h);
  }
}

INSTANTIATE_TEST_SUITE_P(AllKinds, FormatTest, ::testing::ValuesIn(ConfigsOfBothVersions()),
                         [](const auto& info) {
                           return test::ConfigName(info.param) + "_v" +
                                  std::to_string(WrittenVersion(info.param));
                         });

TEST(FormatStandardBloomTest, InconsistentParametersReadAsMayMatch) {
  for (uint8_t version : {3, 2}) {
    const auto block = BuildBlock(FilterConfig{FilterKind::kStandardBloom, 10, 1, version}, 500);
    // Version 3 stores 16 bits of params, version 2 all 32.
    for (uint32_t params : {0u, 65u, 255u, 0x107u, 0x8007u, version == 2 ? 0x80000007u : 0u}) {
      Trailer t = TrailerOf(block);
      t.params = params;
      const auto bad = WithTrailer(block, t);
      EXPECT_TRUE(ReadsAsMayMatchAll(bad.data(), bad.size())) << params;
    }
  }
  const auto block = BuildBlock(FilterConfig{FilterKind::kStandardBloom, 10}, 500);
  // A Bloom trailer with no payload.
  Trailer t = TrailerOf(block);
  std::vector<char> bare(kTrailerBytes);
  EncodeTrailer(t, bare.data(), 0);
  EXPECT_TRUE(ReadsAsMayMatchAll(bare.data(), bare.size()));
}

TEST(FormatAlwaysFalseTest, OnlyAnEmptyConsistentBlockAnswersNo) {
  const auto empty = BuildBlock(FilterConfig{}, 0);
  ASSERT_EQ(empty.size(), kTrailerBytes);
  EXPECT_FALSE(FilterMayMatch(empty.data(), empty.size(), 12345));
  for (int field = 0; field < 2; ++field) {
    Trailer t = TrailerOf(empty);
    if (field == 0) t.params = 1;
    if (field == 1) t.seed = 1;
    auto bad = WithTrailer(empty, t);
    EXPECT_TRUE(ReadsAsMayMatchAll(bad.data(), bad.size())) << field;
  }
  // kAlwaysFalse in front of a payload is inconsistent.
  std::vector<char> with_payload(kTrailerBytes + 8);
  EncodeTrailer(TrailerOf(empty), with_payload.data(), 8);
  EXPECT_TRUE(ReadsAsMayMatchAll(with_payload.data(), with_payload.size()));
}

}  // namespace
}  // namespace sstfilter
