// Golden filter files: one block per filter kind and format version, written
// once by the builder and committed under tests/golden/. Reading them back
// pins the READER: a change that breaks filters already on disk fails here
// even if the builder changed in step (golden_test.cc pins the builder).
//
// Each file is a raw filter block built from keys "golden<i>", i < its key
// count. The test checks every such key reads "may match" and that the
// false positives among 100,000 probe keys "probe<i>" are exactly the ones
// recorded in the matching .fp file (so a reader that answered "may match"
// to everything would fail too).
//
// Write the files of new cases (existing files are never overwritten):
//   build/tests/core_test --gtest_also_run_disabled_tests
//       --gtest_filter='GoldenFilesTest.DISABLED_Write*'   (one line)
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "plugin/core/filter_builder.h"
#include "plugin/core/filter_reader.h"
#include "plugin/core/hash.h"

namespace sstfilter {
namespace {

struct GoldenCase {
  const char* file;  // under tests/golden/, without extension
  FilterConfig config;
  int num_keys;
};

// Version 1 files are what sstfilter wrote before version 2: readers must
// keep reading them. Version 2 and 3 files are what the builder writes with
// format_version 2 and 3 (the default). Append new cases; never change or
// drop old ones.
const GoldenCase kCases[] = {
    {"v1_empty", {FilterKind::kStandardBloom, 10.0}, 0},
    {"v1_standard_bloom_10", {FilterKind::kStandardBloom, 10.0}, 3000},
    {"v1_standard_bloom_6p5", {FilterKind::kStandardBloom, 6.5}, 1000},
    {"v1_blocked_bloom_10", {FilterKind::kBlockedBloom, 10.0, 1}, 3000},
    {"v1_blocked_bloom_20_lines2", {FilterKind::kBlockedBloom, 20.0, 2}, 3000},
    {"v1_ribbon_7p3", {FilterKind::kRibbon, 7.3}, 3000},
    {"v1_ribbon_16", {FilterKind::kRibbon, 16.0}, 20000},
    // Kind 5 with params bit 31 (compact end: tail in the header, partial
    // last block); the two above are the whole-block layout before it.
    {"v1_ribbon_compact_end_7p3", {FilterKind::kRibbon, 7.3}, 3000},
    {"v1_ribbon_compact_end_10", {FilterKind::kRibbon, 10.0}, 1000},
    {"v2_empty", {FilterKind::kStandardBloom, 10.0, 1, 2}, 0},
    {"v2_standard_bloom_10", {FilterKind::kStandardBloom, 10.0, 1, 2}, 3000},
    {"v2_blocked_bloom_10", {FilterKind::kBlockedBloom, 10.0, 1, 2}, 3000},
    {"v2_blocked_bloom_20_lines2", {FilterKind::kBlockedBloom, 20.0, 2, 2}, 3000},
    {"v2_ribbon_7p3", {FilterKind::kRibbon, 7.3, 1, 2}, 3000},
    {"v2_ribbon_10", {FilterKind::kRibbon, 10.0, 1, 2}, 1000},
    {"v3_empty", {FilterKind::kStandardBloom, 10.0, 1, 3}, 0},
    {"v3_standard_bloom_10", {FilterKind::kStandardBloom, 10.0, 1, 3}, 3000},
    {"v3_blocked_bloom_10", {FilterKind::kBlockedBloom, 10.0, 1, 3}, 3000},
    {"v3_blocked_bloom_20_lines2", {FilterKind::kBlockedBloom, 20.0, 2, 3}, 3000},
    {"v3_ribbon_7p3", {FilterKind::kRibbon, 7.3, 1, 3}, 3000},
    {"v3_ribbon_10", {FilterKind::kRibbon, 10.0, 1, 3}, 1000},
    // One plain layer: no thresholds in the header.
    {"v3_ribbon_one_layer_10", {FilterKind::kRibbon, 10.0, 1, 3}, 200},
};
constexpr int kProbes = 100000;

std::string Path(const GoldenCase& c, const char* ext) {
  return std::string(SSTFILTER_SOURCE_DIR) + "/tests/golden/" + c.file + ext;
}

uint64_t KeyHash(const char* prefix, int i) {
  const std::string k = prefix + std::to_string(i);
  return HashKey(k.data(), k.size());
}

template <class Reader>
std::vector<int> FalsePositives(const Reader& r) {
  std::vector<int> fps;
  for (int i = 0; i < kProbes; ++i) {
    if (r.MayMatch(KeyHash("probe", i))) fps.push_back(i);
  }
  return fps;
}

// The committed block of `c`; empty (with a test failure) if it is missing.
std::string ReadBlock(const GoldenCase& c) {
  std::ifstream in(Path(c, ".bin"), std::ios::binary);
  EXPECT_TRUE(in) << "missing " << Path(c, ".bin");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The block the current builder writes for `c`.
std::string BuildBlock(const GoldenCase& c) {
  FilterBuilder b(c.config);
  for (int i = 0; i < c.num_keys; ++i) b.AddKeyHash(KeyHash("golden", i));
  size_t len = 0;
  auto block = b.Finish(&len);
  return std::string(block.get(), len);
}

TEST(GoldenFilesTest, EveryCommittedFilterReadsBackExactly) {
  for (const GoldenCase& c : kCases) {
    SCOPED_TRACE(c.file);
    const std::string block = ReadBlock(c);
    std::ifstream fp_in(Path(c, ".fp"));
    ASSERT_TRUE(fp_in) << "missing " << Path(c, ".fp");
    std::vector<int> expected;
    for (int x; fp_in >> x;) expected.push_back(x);

    VisitFilter(block.data(), block.size(), [&](const auto& r) {
      using R = std::decay_t<decltype(r)>;
      EXPECT_FALSE((std::is_same_v<R, AlwaysTrueReader>)) << "golden block not trusted";
      for (int i = 0; i < c.num_keys; ++i) {
        ASSERT_TRUE(r.MayMatch(KeyHash("golden", i))) << "false negative, key " << i;
      }
      EXPECT_EQ(FalsePositives(r), expected);
    });
  }
}

// The builder writes the version-2 and version-3 files byte for byte.
TEST(GoldenFilesTest, BuilderWritesTheVersion2And3FilesExactly) {
  for (const GoldenCase& c : kCases) {
    if (std::string(c.file).rfind("v1_", 0) == 0) continue;
    SCOPED_TRACE(c.file);
    EXPECT_EQ(BuildBlock(c), ReadBlock(c));
  }
}

TEST(GoldenFilesTest, DISABLED_WriteGoldenFiles) {
  for (const GoldenCase& c : kCases) {
    if (std::ifstream(Path(c, ".bin"))) continue;  // on disk: what readers must read
    const std::string block = BuildBlock(c);
    std::ofstream(Path(c, ".bin"), std::ios::binary).write(block.data(), block.size());
    std::ofstream fp_out(Path(c, ".fp"));
    VisitFilter(block.data(), block.size(), [&](const auto& r) {
      for (int x : FalsePositives(r)) fp_out << x << "\n";
    });
  }
}

}  // namespace
}  // namespace sstfilter
