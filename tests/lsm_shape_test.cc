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

// Shares below are the stored keys (of every level) inside a file's range
// over all stored keys; inside one file, keys sit evenly between its ends.
TEST(LsmShapeTest, KeysAndChecksPerLevel) {
  // L2: keys 0..999 in four files of 250; L1 covers a quarter of them;
  // L0: two files over everything and one over the first tenth.
  const std::vector<ShapeFile> files = {
      File(2, 250, 0, 249),   File(2, 250, 250, 499), File(2, 250, 500, 749),
      File(2, 250, 750, 999), File(1, 100, 500, 749), File(0, 30, 0, 999),
      File(0, 30, 1, 998),    File(0, 10, 0, 99),
  };
  const double all = 1170;
  const LsmShape shape = ShapeOfFiles(files);
  ASSERT_EQ(shape.size(), 3u);
  EXPECT_EQ(shape[0].keys, 70);
  EXPECT_EQ(shape[1].keys, 100);
  EXPECT_EQ(shape[2].keys, 1000);
  // L2 covers everything but the gaps between its files (one key apart).
  EXPECT_GT(shape[2].checks, 0.999);
  EXPECT_LE(shape[2].checks, 1.0);
  // L1's range holds its own keys, a quarter of L2's and of two L0 files'.
  EXPECT_NEAR(shape[1].checks, (100 + 250 + 60 * 0.25) / all, 0.002);
  // L0: 1 + (all but ~2 keys at the ends) + (a tenth of L2 and of two L0
  // files, and all 10 of the third).
  EXPECT_NEAR(shape[0].checks, 1 + (all - 2) / all + (100 + 6 + 10) / all, 0.002);
}

TEST(LsmShapeTest, FilesWithoutRangeCoverEverything) {
  std::vector<ShapeFile> files = {File(1, 500, 0, 999), File(0, 10, 0, 10)};
  files.push_back(ShapeFile{0, 20, false, "", ""});
  const LsmShape shape = ShapeOfFiles(files);
  EXPECT_NEAR(shape[0].checks, 1.0 + (500 * 0.01 + 10) / 510, 0.001);
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

// Keys that grow (timestamps): the newest tenth lives only in L0, beyond
// every deeper file's range. L0 still gets the share its keys have.
TEST(LsmShapeTest, KeysOnlyL0HoldsCount) {
  const LsmShape shape = ShapeOfFiles(
      {File(2, 600, 0, 599), File(1, 300, 600, 899), File(0, 100, 900, 999)});
  EXPECT_NEAR(shape[0].checks, 0.1, 0.002);
  EXPECT_NEAR(shape[1].checks, 0.3, 0.002);
  EXPECT_NEAR(shape[2].checks, 0.6, 0.002);
}

// Per file: a lookup consults a file in proportion to the keys inside its
// range; the level totals are ShapeOfFiles' checks.
TEST(LsmShapeTest, CheckSharesPerFile) {
  const std::vector<ShapeFile> files = {
      File(2, 500, 0, 499), File(2, 500, 500, 999), File(1, 100, 0, 249),
      File(1, 100, 250, 499), File(0, 30, 0, 999), ShapeFile{-1, 40, false, "", ""},
  };
  const double all = 1230;  // the file of unknown level has no range
  const std::vector<double> shares = CheckShares(files);
  ASSERT_EQ(shares.size(), files.size());
  EXPECT_NEAR(shares[0], (500 + 200 + 15) / all, 0.002);  // L1 is all in its range
  EXPECT_NEAR(shares[1], (500 + 15) / all, 0.002);
  EXPECT_NEAR(shares[2], (250 + 100 + 7.5) / all, 0.002);
  EXPECT_NEAR(shares[3], (250 + 100 + 7.5) / all, 0.002);
  EXPECT_NEAR(shares[4], 1.0, 1e-9);
  EXPECT_EQ(shares[5], 0.0);  // level unknown
  const LsmShape shape = ShapeOfFiles(files);
  EXPECT_NEAR(shape[1].checks, shares[2] + shares[3], 1e-12);
  // Overlapping ranges in a deeper level (damaged metadata) are scaled
  // down to one check in all.
  const std::vector<double> overlap =
      CheckShares({File(2, 100, 0, 999), File(1, 10, 0, 999), File(1, 10, 0, 999)});
  EXPECT_NEAR(overlap[1] + overlap[2], 1.0, 1e-12);
  EXPECT_NEAR(overlap[0], 1.0, 1e-9);
  // A range with its ends swapped counts as covering every key, and places
  // no keys.
  const std::vector<double> swapped = CheckShares({File(1, 100, 0, 999), File(0, 10, 900, 100)});
  EXPECT_EQ(swapped[1], 1.0);
  EXPECT_NEAR(swapped[0], 1.0, 1e-9);
}

// While a job runs, the listener counts its inputs at its output level,
// where their ranges overlap the files already there. The keys still
// place by range: an L0 file over every key keeps all the lookups, and a
// file's share follows the keys in its range (the two files over 300..399
// hold 120 of them, besides L0's). The level, whose two overlapping files
// will be one, counts one check; its shares are scaled down to that.
TEST(LsmShapeTest, InputsOfAJobAtItsOutputLevel) {
  std::vector<ShapeFile> files;
  for (int i = 0; i < 10; ++i) files.push_back(File(2, 100, 100 * i, 100 * i + 99));
  files.push_back(File(2, 20, 300, 399));  // an L1 file being merged into L2
  files.push_back(File(0, 10, 0, 999));
  const std::vector<double> shares = CheckShares(files);
  EXPECT_NEAR(shares[11], 1.0, 1e-9);
  EXPECT_NEAR(shares[3] / shares[0], (120 + 1.0) / (100 + 1.0), 0.01);
  EXPECT_NEAR(shares[10], shares[3], 1e-9);
  const LsmShape shape = ShapeOfFiles(files);
  EXPECT_NEAR(shape[2].checks, 1.0, 1e-9);
  EXPECT_NEAR(shape[0].checks, 1.0, 1e-9);
}

}  // namespace
}  // namespace sstfilter
