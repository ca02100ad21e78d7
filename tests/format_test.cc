// The block format under damage: every truncation, every trailer bit flip,
// unknown kinds and versions, inconsistent parameters. Untrusted blocks must
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
  EncodeTrailer(t, block.size() - kTrailerBytes, block.data() + block.size() - kTrailerBytes);
  return block;
}

Trailer TrailerOf(const std::vector<char>& block) {
  ParsedBlock parsed;
  EXPECT_TRUE(ParseBlock(block.data(), block.size(), &parsed));
  return parsed.trailer;
}

class FormatTest : public ::testing::TestWithParam<FilterConfig> {};

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
  const size_t start = block.size() - kTrailerBytes;
  for (size_t bit = 0; bit < 8 * kTrailerBytes; ++bit) {
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

TEST_P(FormatTest, UnknownKindOrVersionReadsAsMayMatch) {
  const auto block = BuildBlock(GetParam(), 500);
  for (int kind : {0, 6, 7, 100, 255}) {
    Trailer t = TrailerOf(block);
    t.kind = static_cast<FilterKind>(kind);
    const auto bad = WithTrailer(block, t);
    EXPECT_TRUE(ReadsAsMayMatchAll(bad.data(), bad.size())) << "kind " << kind;
  }
  for (int version : {0, 3, 255}) {
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

INSTANTIATE_TEST_SUITE_P(AllKinds, FormatTest, ::testing::ValuesIn(test::AllConfigs()),
                         [](const auto& info) { return test::ConfigName(info.param); });

TEST(FormatStandardBloomTest, InconsistentParametersReadAsMayMatch) {
  const auto block = BuildBlock(FilterConfig{FilterKind::kStandardBloom, 10}, 500);
  for (uint32_t params : {0u, 65u, 255u, 0x107u, 0x80000007u}) {
    Trailer t = TrailerOf(block);
    t.params = params;
    const auto bad = WithTrailer(block, t);
    EXPECT_TRUE(ReadsAsMayMatchAll(bad.data(), bad.size())) << params;
  }
  // A Bloom trailer with no payload.
  Trailer t = TrailerOf(block);
  std::vector<char> bare(kTrailerBytes);
  EncodeTrailer(t, 0, bare.data());
  EXPECT_TRUE(ReadsAsMayMatchAll(bare.data(), bare.size()));
}

TEST(FormatAlwaysFalseTest, OnlyAnEmptyConsistentBlockAnswersNo) {
  const auto empty = BuildBlock(FilterConfig{}, 0);
  ASSERT_EQ(empty.size(), kTrailerBytes);
  EXPECT_FALSE(FilterMayMatch(empty.data(), empty.size(), 12345));
  Trailer t = TrailerOf(empty);
  t.num_keys = 1;
  auto bad = WithTrailer(empty, t);
  EXPECT_TRUE(ReadsAsMayMatchAll(bad.data(), bad.size()));
  // kAlwaysFalse in front of a payload is inconsistent.
  std::vector<char> with_payload(kTrailerBytes + 8);
  EncodeTrailer(TrailerOf(empty), 8, with_payload.data() + 8);
  EXPECT_TRUE(ReadsAsMayMatchAll(with_payload.data(), with_payload.size()));
}

}  // namespace
}  // namespace sstfilter
