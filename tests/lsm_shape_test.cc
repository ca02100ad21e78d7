// The shape of an LSM from its files (plugin/core/lsm_shape.h): keys per
// level, and the filter checks an absent key spread like the keys costs.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "plugin/core/lsm_shape.h"

namespace sstfilter {
namespace {

// Keys spread evenly in byte order (big-endian), as random keys are; the
// shape reads positions inside a file off the keys' bytes.
std::string Key(int i) {
  const uint32_t v = static_cast<uint32_t>(i) * 4000000u;
  return std::string{'k', static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
}

ShapeFile File(int level, double entries, int lo, int hi) {
  return ShapeFile{level, entries, true, Key(lo), Key(hi)};
}

TEST(LsmShapeTest, KeysAndChecksPerLevel) {
  // L2: keys 0..999 in four files of 250; L1 covers a quarter of them;
  // L0: two files over everything and one over the first tenth.
  const std::vector<ShapeFile> files = {
      File(2, 250, 0, 249),   File(2, 250, 250, 499), File(2, 250, 500, 749),
      File(2, 250, 750, 999), File(1, 100, 500, 749), File(0, 30, 0, 999),
      File(0, 30, 1, 998),    File(0, 10, 0, 99),
  };
  const LsmShape shape = ShapeOfFiles(files);
  ASSERT_EQ(shape.size(), 3u);
  EXPECT_EQ(shape[0].keys, 70);
  EXPECT_EQ(shape[1].keys, 100);
  EXPECT_EQ(shape[2].keys, 1000);
  EXPECT_NEAR(shape[2].checks, 1.0, 1e-9);
  EXPECT_NEAR(shape[1].checks, 0.25, 0.01);
  EXPECT_NEAR(shape[0].checks, 2.1, 0.02);
}

TEST(LsmShapeTest, FilesWithoutRangeCoverEverything) {
  std::vector<ShapeFile> files = {File(1, 500, 0, 999), File(0, 10, 0, 10)};
  files.push_back(ShapeFile{0, 20, false, "", ""});
  const LsmShape shape = ShapeOfFiles(files);
  EXPECT_NEAR(shape[0].checks, 1.0 + 11.0 / 1000, 0.002);
  // No file with a range at all: every file counts as covering every key.
  const LsmShape bare = ShapeOfFiles({ShapeFile{0, 5, false, "", ""}, ShapeFile{3, 50, false, "", ""}});
  ASSERT_EQ(bare.size(), 4u);
  EXPECT_EQ(bare[0].checks, 1);
  EXPECT_EQ(bare[3].checks, 1);
  EXPECT_EQ(bare[1].keys, 0);
  EXPECT_TRUE(ShapeOfFiles({}).empty());
}

// Deeper levels never count more than one check, even when overlapping
// ranges (damaged metadata) say otherwise.
TEST(LsmShapeTest, ADeeperLevelCountsAtMostOneCheck) {
  const LsmShape shape =
      ShapeOfFiles({File(2, 100, 0, 999), File(1, 10, 0, 999), File(1, 10, 0, 999)});
  EXPECT_EQ(shape[1].checks, 1.0);
}

}  // namespace
}  // namespace sstfilter
