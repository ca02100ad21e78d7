// Pins the exact bytes of small filters in format versions 2 and 3, so any
// change to hashing, probing, sizing or the trailer is a deliberate format
// change (new version) and never slips in unnoticed. Regenerate only
// together with docs/FORMAT.md.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "plugin/core/filter_builder.h"
#include "plugin/core/hash.h"
#include "tests/test_util.h"

namespace sstfilter {
namespace {

std::string BuildHex(const FilterConfig& config, int num_keys) {
  FilterBuilder b(config);
  for (int i = 0; i < num_keys; ++i) {
    const std::string k = "key" + std::to_string(i);
    b.AddKeyHash(HashKey(k.data(), k.size()));
  }
  size_t len = 0;
  auto block = b.Finish(&len);
  std::string hex;
  char buf[3];
  for (size_t i = 0; i < len; ++i) {
    std::snprintf(buf, sizeof(buf), "%02x", static_cast<uint8_t>(block[i]));
    hex += buf;
  }
  return hex;
}

TEST(GoldenTest, HashIsXxh3) {
  // XXH3_64bits("") and of "key0", frozen since xxHash 0.8.0.
  EXPECT_EQ(HashKey("", 0), 0x2D06800538D394C2ULL);
  EXPECT_EQ(HashKey("key0", 4), 0x74D935ED02021EC6ULL);
}

TEST(GoldenTest, EmptyFilterV2) {
  // Trailer only: params, num_keys, seed, kind 1 (AlwaysFalse), version byte
  // 0x82 (format version 2), check.
  EXPECT_EQ(BuildHex(FilterConfig{FilterKind::kStandardBloom, 10, 1, 2}, 0),
            "00000000" "00000000" "0000" "01" "82" "5515f0d0");
}

TEST(GoldenTest, StandardBloom10Keys10BitsPerKeyV2) {
  // 10 keys * 10 bits = 100 bits -> 13 bytes; 104 / 10 bits per key -> 7 probes.
  EXPECT_EQ(BuildHex(FilterConfig{FilterKind::kStandardBloom, 10, 1, 2}, 10),
            "0fb2dc6f20c40fb1c6969a12ba"
            "07000000" "0a000000" "0000" "03" "82" "bb2f17a2");
}

TEST(GoldenTest, StandardBloom7Keys6Point5BitsPerKeyV2) {
  // 6.5 * 7 = 45.5 bits -> 46 -> 6 bytes; 48 / 7 = 6.86 bits per key -> 5 probes.
  EXPECT_EQ(BuildHex(FilterConfig{FilterKind::kStandardBloom, 6.5, 1, 2}, 7),
            "233eea50bd57"
            "05000000" "07000000" "0000" "03" "82" "e2b303ad");
}

TEST(GoldenTest, BlockedBloom60Keys10BitsPerKeyV2) {
  // 600 bits -> 2 lines of 64 bytes = 17.1 actual bits/key -> 10 probes, 1 line per key.
  EXPECT_EQ(BuildHex(FilterConfig{FilterKind::kBlockedBloom, 10, 1, 2}, 60),
            "7dcb82732f4786e340e661d29814b08fca72a1176627bf95bcbe3d0765043525"
            "90b955c7511df5a96192562e381a28e8d61afc3b103c7a496868f10bb0345d12"
            "c60b8514a202f1d1e1f64039d4076463407484f2905a628d11a001f67054710f"
            "be560e0a58ad6f14e2049be80bce0a42093285a87972170072b4e1a251404496"
            "0a010000" "3c000000" "0000" "04" "82" "4dc02c41");
}

TEST(GoldenTest, BlockedBloomTwoLines20Keys20BitsPerKeyV2) {
  // 400 bits -> 1 line; 25.6 bits/key, 12.8 per line -> 8 probes per line.
  EXPECT_EQ(BuildHex(FilterConfig{FilterKind::kBlockedBloom, 20, 2, 2}, 20),
            "4d3a82736614dfca69e4639e5b8600eeceaab9966830a2c58ce0278761c43906"
            "b64b3dc0dd1f85b1aad592101e9013b891026526613eb2d06c98d982e3213613"
            "08020000" "14000000" "0000" "04" "82" "2d9759ab");
}

TEST(GoldenTest, Ribbon60Keys6Point5BitsPerKeyV2) {
  // 60 keys * 6.5 bits = 390 bits -> 49 bytes: one plain layer (start range
  // 48 after one growth step, tail 16: S = 64 slots, one whole block),
  // (49 - 4) / 8 = 5 columns (words), all r_lo (lower_blocks = 1 = total).
  // Header 01 10 30 (lower_blocks, tail, start range of layer 0), length 03.
  // params 0x89020e25: r_lo 5, 1 layer, B = 2^7, t1 16, t2 36, compact end.
  EXPECT_EQ(BuildHex(FilterConfig{FilterKind::kRibbon, 6.5, 1, 2}, 60),
            "3699742e707e7d01" "013734c8025cc591" "3c505859e7043401" "ca10af6fc8b09812"
            "1f17bc49c2d15611" "0000000000" "011030" "03"
            "250e0289" "3c000000" "0000" "05" "82" "14654005");
}

TEST(GoldenTest, Ribbon2000Keys7Point3BitsPerKeyV2) {
  // Two chained layers (start ranges 1900 = 0.95 * 2000 and 104) and a
  // 16-slot tail: S = 2020 slots, 31 whole blocks and a last block of 36
  // slots stored in 5-byte columns. 27 blocks of 7 columns, then 5 of 8;
  // codes for layer 0's buckets. 1841 bytes: pinned by their XXH3 and the
  // tail (header 1b 10 ec0e 68 = lower_blocks 27, tail 16, ranges 1900 and
  // 104; length 05; trailer with params 0x89020e47: r_lo 7, 2 layers,
  // compact end). The codes and the solution also pin the builder's choices
  // (bumping, insertion order): changing those rewrites them without a
  // format change, and golden_files_test still reads the filters written
  // before.
  const std::string hex = BuildHex(FilterConfig{FilterKind::kRibbon, 7.3, 1, 2}, 2000);
  ASSERT_EQ(hex.size(), 2 * 1841u);
  EXPECT_EQ(hex.substr(hex.size() - 48),
            "0000" "1b10ec0e68" "05" "470e0289" "d0070000" "0000" "05" "82" "b008a953");
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  EXPECT_EQ(XXH3_64bits(bytes.data(), bytes.size()), 0x9fba612f16676e10ULL);
}

// Version 3: the same payloads (Ribbon's header adds the thresholds when it
// has two layers or more), an 8-byte trailer: kind | seed << 4, params u16,
// 0x83 at len - 5, CRC-32 of everything before it and of its length.

TEST(GoldenTest, EmptyFilterV3) {
  // Trailer only: kind 1 (AlwaysFalse), seed 0, params 0, 0x83, check.
  EXPECT_EQ(BuildHex(FilterConfig{FilterKind::kStandardBloom, 10}, 0), "01" "0000" "83" "70b8e23b");
}

TEST(GoldenTest, StandardBloom10Keys10BitsPerKeyV3) {
  // The version 2 payload; params 7 (probes).
  EXPECT_EQ(BuildHex(FilterConfig{FilterKind::kStandardBloom, 10}, 10),
            "0fb2dc6f20c40fb1c6969a12ba" "03" "0700" "83" "891ee516");
}

TEST(GoldenTest, BlockedBloomTwoLines20Keys20BitsPerKeyV3) {
  // The version 2 payload; params 0x208: 8 probes per line, 2 lines.
  EXPECT_EQ(BuildHex(FilterConfig{FilterKind::kBlockedBloom, 20, 2}, 20),
            "4d3a82736614dfca69e4639e5b8600eeceaab9966830a2c58ce0278761c43906"
            "b64b3dc0dd1f85b1aad592101e9013b891026526613eb2d06c98d982e3213613"
            "04" "0802" "83" "a462d7fb");
}

TEST(GoldenTest, Ribbon60Keys6Point5BitsPerKeyV3) {
  // One plain layer, as in version 2 (no thresholds in the header); params
  // 0x0e25: r_lo 5, 1 layer, B = 2^7.
  EXPECT_EQ(BuildHex(FilterConfig{FilterKind::kRibbon, 6.5}, 60),
            "3699742e707e7d01" "013734c8025cc591" "3c505859e7043401" "ca10af6fc8b09812"
            "1f17bc49c2d15611" "0000000000" "011030" "03"
            "05" "250e" "83" "69529581");
}

TEST(GoldenTest, Ribbon2000Keys7Point3BitsPerKeyV3) {
  // Two layers: the header gains t1 = 16 and t2 = 36 after the tail.
  const std::string hex = BuildHex(FilterConfig{FilterKind::kRibbon, 7.3}, 2000);
  ASSERT_EQ(hex.size(), 2 * 1833u);
  // Header 1b 10 10 24 ec0e 68: lower_blocks 27, tail 16, t1 16, t2 36,
  // ranges 1900 and 104; length 07; params 0x0e47: r_lo 7, 2 layers.
  EXPECT_EQ(hex.substr(hex.size() - 40),
            "00000000" "1b101024ec0e68" "07" "05" "470e" "83" "5d03608b");
  std::string bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  EXPECT_EQ(XXH3_64bits(bytes.data(), bytes.size()), 0x9ce1a35af2cd6220ULL);
}

}  // namespace
}  // namespace sstfilter
