// The RocksDB-facing BlockedBloom readers answer exactly as the portable
// scalar core does, single and batched, for every reader the adapter picks:
// the one-group readers (one line, at most eight probes, seed 0) and the
// general ones, AVX-512 or AVX2 by CPU (run again with SSTFILTER_NO_AVX512
// and SSTFILTER_NO_AVX2, tests/CMakeLists.txt), and the scalar one; keys
// of up to 16 bytes and longer (the readers hash those in another function);
// and which reader the adapter picks for a block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include "plugin/core/blocked_bloom.h"
#include "plugin/core/format.h"
#include "plugin/core/hash.h"
#include "plugin/rocksdb/bits_reader.h"
#include "tests/policy_block.h"
#include "tests/test_util.h"

namespace sstfilter {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

// Key i of a family at one of XXH3's length classes in turn (0-3, 4-8,
// 9-16, 17-128, 129-240, 241+ bytes): the readers hash keys over 16 bytes
// in another function.
std::string MixedKey(int i, int family) {
  static constexpr size_t kLengths[] = {0, 3, 4, 8, 9, 16, 17, 100, 128, 129, 240, 241, 300};
  const size_t len = kLengths[static_cast<size_t>(i) % (sizeof(kLengths) / sizeof(kLengths[0]))];
  // The index first, so that short keys stay distinct within a family.
  std::string key(16, '\0');
  for (int b = 0; b < 8; ++b) {
    key[b] = static_cast<char>(static_cast<uint64_t>(i) >> (8 * b));
    key[8 + b] = static_cast<char>(family + b);
  }
  key.resize(len, static_cast<char>('a' + i % 26));
  return key;
}

// The filter block a policy builds from MixedKey(0..keys-1, 1).
std::string BuildFilter(const std::string& policy_id, int keys) {
  return test::PolicyBlock(policy_id, keys, [](int i) { return MixedKey(i, 1); });
}

// With keys_added, the first `keys` queries were added and must all match.
void ExpectAdapterAgreesWithScalarCore(const std::string& block, int keys, bool keys_added,
                                       const std::string& what) {
  ParsedBlock parsed;
  ASSERT_TRUE(ParseBlock(block.data(), block.size(), &parsed)) << what;
  BlockedBloomReader scalar;
  ASSERT_TRUE(BlockedBloomReader::Init(parsed, &scalar, blocked_bloom::Kernel::kScalar)) << what;
  std::unique_ptr<rdb::FilterBitsReader> reader(NewSstFilterBitsReader(block));
  ASSERT_NE(reader, nullptr);
  std::vector<std::string> queries;
  for (int i = 0; i < keys; ++i) queries.push_back(MixedKey(i, 1));
  for (int i = 0; i < 20 * keys; ++i) queries.push_back(MixedKey(i, 2));
  std::vector<rdb::Slice> slices(queries.begin(), queries.end());
  std::vector<rdb::Slice*> pointers;
  for (auto& s : slices) pointers.push_back(&s);
  size_t positives = 0;
  for (size_t start = 0; start < queries.size(); start += 32) {
    const int n = static_cast<int>(std::min<size_t>(32, queries.size() - start));
    bool batch[32];
    reader->MayMatch(n, pointers.data() + start, batch);
    for (int j = 0; j < n; ++j) {
      const std::string& key = queries[start + j];
      const bool expected = scalar.MayMatch(HashKey(key.data(), key.size()));
      ASSERT_EQ(reader->MayMatch(key), expected) << what << " single, query " << start + j;
      ASSERT_EQ(batch[j], expected) << what << " batched, query " << start + j;
      if (keys_added && start + j < static_cast<size_t>(keys)) {
        ASSERT_TRUE(expected) << what << " false negative " << start + j;
      }
      positives += expected;
    }
  }
  // Both answers were given.
  EXPECT_GT(positives, 0u) << what;
  EXPECT_LT(positives, queries.size()) << what;
}

ParsedBlock Parse(const std::string& block) {
  ParsedBlock parsed;
  EXPECT_TRUE(ParseBlock(block.data(), block.size(), &parsed));
  return parsed;
}

TEST(BitsReaderTest, BlockedBloomReadersAnswerAsTheScalarCore) {
  constexpr int kKeys = 3000;
  // One line of 1 to 8 probes (the one-group readers), then 9 and 11
  // probes and two lines (the general ones); the probe counts are checked,
  // since they follow the bits per key after rounding to whole lines.
  std::set<int> one_line_probes;
  bool two_lines = false;
  for (const char* id : {"sstfilter.BlockedBloom:2", "sstfilter.BlockedBloom:6",
                         "sstfilter.BlockedBloom:10", "sstfilter.BlockedBloom:12",
                         "sstfilter.BlockedBloom:14", "sstfilter.BlockedBloom:20",
                         "{id=sstfilter.BlockedBloom;bits_per_key=20;lines_per_key=2}"}) {
    const std::string block = BuildFilter(id, kKeys);
    ASSERT_FALSE(block.empty()) << id;
    const Trailer t = Parse(block).trailer;
    const int probes = static_cast<int>(t.params & 0xFF), lines = static_cast<int>(t.params >> 8);
    if (lines == 1) one_line_probes.insert(probes);
    two_lines |= lines == 2;
    ExpectAdapterAgreesWithScalarCore(block, kKeys, true, id);
  }
  EXPECT_TRUE(one_line_probes.count(1) && one_line_probes.count(8)) << "the one-group bounds";
  EXPECT_GT(*one_line_probes.rbegin(), 8) << "the general kernel";
  EXPECT_TRUE(two_lines);
}

// The reader chosen: the one-group path exactly for one line of at most
// eight probes with seed 0, on the kernel the environment allows.
TEST(BitsReaderTest, BlockedBloomPathFollowsTheBlockAndTheEnvironment) {
  const blocked_bloom::Kernel best = blocked_bloom::BestKernel();
  if (std::getenv("SSTFILTER_NO_AVX2") != nullptr) {
    EXPECT_EQ(best, blocked_bloom::Kernel::kScalar);
  } else if (std::getenv("SSTFILTER_NO_AVX512") != nullptr) {
    EXPECT_NE(best, blocked_bloom::Kernel::kAvx512);
  }
  struct Case {
    const char* id;
    bool one_group;
  };
  for (const Case& c : {Case{"sstfilter.BlockedBloom:10", true},
                        Case{"sstfilter.BlockedBloom:12", true},
                        Case{"sstfilter.BlockedBloom:20", false},
                        Case{"{id=sstfilter.BlockedBloom;bits_per_key=20;lines_per_key=2}", false}}) {
    std::string block = BuildFilter(c.id, 3000);
    ASSERT_FALSE(block.empty()) << c.id;
    ParsedBlock parsed = Parse(block);
    BlockedBloomReader core;
    ASSERT_TRUE(BlockedBloomReader::Init(parsed, &core)) << c.id;
    EXPECT_EQ(ChooseBlockedBloomPath(core).kernel, best) << c.id;
    EXPECT_EQ(ChooseBlockedBloomPath(core).one_group, c.one_group) << c.id;
    // Any other seed takes the general reader.
    Trailer seeded = parsed.trailer;
    seeded.seed = 7;
    EncodeTrailer(seeded, &block[0], parsed.payload_bytes);
    ASSERT_TRUE(BlockedBloomReader::Init(Parse(block), &core)) << c.id;
    EXPECT_FALSE(ChooseBlockedBloomPath(core).one_group) << c.id;
  }
}

// A seed other than 0 (valid in the format; sstfilter writes 0) takes the
// general readers: the same block under seed 7 must still agree.
TEST(BitsReaderTest, SeededBlockedBloomBlocksAgreeToo) {
  constexpr int kKeys = 3000;
  std::string block = BuildFilter("sstfilter.BlockedBloom:10", kKeys);
  ASSERT_FALSE(block.empty());
  const ParsedBlock parsed = Parse(block);
  ASSERT_EQ(parsed.trailer.seed, 0);
  Trailer seeded = parsed.trailer;
  seeded.seed = 7;
  EncodeTrailer(seeded, &block[0], parsed.payload_bytes);
  // Reseeded, the added keys are no longer guaranteed to match.
  ExpectAdapterAgreesWithScalarCore(block, kKeys, false, "seed 7");
}

}  // namespace
}  // namespace sstfilter
