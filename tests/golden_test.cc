// Pins the exact bytes of small filters, so any change to hashing, probing,
// sizing or the trailer is a deliberate format change (new version) and
// never slips in unnoticed. Regenerate only together with FORMAT.md.
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

TEST(GoldenTest, EmptyFilter) {
  // Trailer only: params, num_keys, seed, kind 1 (AlwaysFalse), version 1, check.
  EXPECT_EQ(BuildHex(FilterConfig{FilterKind::kStandardBloom, 10}, 0),
            "00000000" "00000000" "0000" "01" "01" "c85102b3");
}

TEST(GoldenTest, StandardBloom10Keys10BitsPerKey) {
  // 10 keys * 10 bits = 100 bits -> 13 bytes; 104 / 10 bits per key -> 7 probes.
  EXPECT_EQ(BuildHex(FilterConfig{FilterKind::kStandardBloom, 10}, 10),
            "0fb2dc6f20c40fb1c6969a12ba"
            "07000000" "0a000000" "0000" "03" "01" "e45c9150");
}

TEST(GoldenTest, StandardBloom7Keys6Point5BitsPerKey) {
  // 6.5 * 7 = 45.5 bits -> 46 -> 6 bytes; 48 / 7 = 6.86 bits per key -> 5 probes.
  EXPECT_EQ(BuildHex(FilterConfig{FilterKind::kStandardBloom, 6.5}, 7),
            "233eea50bd57"
            "05000000" "07000000" "0000" "03" "01" "0ca83c1e");
}

}  // namespace
}  // namespace sstfilter
