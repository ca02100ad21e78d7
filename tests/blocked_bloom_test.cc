// Blocked Bloom specifics: the AVX2 and AVX-512 kernels (general and
// one-group) agree with the scalar reference bit for bit, on random and on
// densely filled lines, for every probe count and both line slots; and k
// follows the blocked formula, not b ln 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "plugin/core/blocked_bloom.h"
#include "plugin/core/blocked_bloom_avx512_inline.h"
#include "plugin/core/filter_builder.h"
#include "plugin/core/hash.h"
#include "tests/test_util.h"

namespace sstfilter {
namespace {

using blocked_bloom::Kernel;
using blocked_bloom::kLineBytes;

bool CpuHasAvx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("bmi2");
}

// Every kernel this CPU runs, scalar first; the tests force each in turn,
// whatever SSTFILTER_NO_AVX2 / SSTFILTER_NO_AVX512 say.
std::vector<Kernel> RunnableKernels() {
  std::vector<Kernel> kernels{Kernel::kScalar};
  if (__builtin_cpu_supports("avx2")) kernels.push_back(Kernel::kAvx2);
  if (CpuHasAvx512()) kernels.push_back(Kernel::kAvx512);
  return kernels;
}

const char* Name(Kernel k) {
  return k == Kernel::kAvx512 ? "avx512" : k == Kernel::kAvx2 ? "avx2" : "scalar";
}

#define SKIP_WITHOUT_AVX2()                                              \
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "CPU lacks AVX2"
#define SKIP_WITHOUT_AVX512()                                            \
  if (!CpuHasAvx512()) GTEST_SKIP() << "CPU lacks AVX-512F/VL or BMI2"

using LineQuery = bool (*)(const uint8_t*, uint32_t, uint32_t, size_t, int);

// Probe counts 1..max_k, in the first line slot only or in both.
void ExpectQueryAgreesWithScalar(LineQuery kernel, int max_k = kMaxBlockedProbesPerLine,
                                 bool both_slots = true) {
  std::mt19937_64 rng(7);
  // Fill densities from sparse to nearly full: dense lines make most probes
  // hit, so every lane of every 8-probe group is exercised.
  for (double density : {0.1, 0.5, 0.9, 0.99, 1.0}) {
    std::bernoulli_distribution bit(density);
    for (int trial = 0; trial < 200; ++trial) {
      // One spare byte so an unaligned line start is tested too.
      std::vector<uint8_t> buf(kLineBytes + 1);
      uint8_t* line = buf.data() + (trial & 1);
      for (size_t i = 0; i < 8 * kLineBytes; ++i) {
        if (bit(rng)) line[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
      }
      for (int k = 1; k <= max_k; ++k) {
        for (size_t first : {size_t{0}, size_t{kMaxBlockedProbesPerLine}}) {
          if (first != 0 && !both_slots) continue;
          const uint64_t h = rng();
          const uint32_t a = static_cast<uint32_t>(h), b = static_cast<uint32_t>(h >> 32);
          ASSERT_EQ(blocked_bloom::LineMayMatch(line, a, b, first, k), kernel(line, a, b, first, k))
              << "density " << density << " k " << k << " first " << first;
        }
      }
    }
  }
}

TEST(BlockedBloomKernelTest, Avx2QueryAgreesWithScalarOnRandomAndDenseLines) {
  SKIP_WITHOUT_AVX2();
  ExpectQueryAgreesWithScalar(blocked_bloom::LineMayMatchAvx2);
}

TEST(BlockedBloomKernelTest, Avx512QueryAgreesWithScalarOnRandomAndDenseLines) {
  SKIP_WITHOUT_AVX512();
  ExpectQueryAgreesWithScalar(blocked_bloom::LineMayMatchAvx512);
}

#if SSTF_HAVE_X86
// The one-group kernels (one line, up to eight probes) are inlined into
// their callers only; these wrappers are such callers, each run only where
// the CPU has its instructions.
__attribute__((target("avx2"))) bool OneGroupQueryAvx2(const uint8_t* line, uint32_t a,
                                                       uint32_t b, size_t first, int k) {
  EXPECT_EQ(first, 0u);
  EXPECT_TRUE(blocked_bloom::IsOneGroup(k, 1));
  return blocked_bloom::OneGroupLineMayMatchAvx2Inline(line, (uint64_t{b} << 32) | a,
                                                       blocked_bloom::ActiveLaneWindow(k));
}
SSTF_AVX512_TARGET bool OneGroupQueryAvx512(const uint8_t* line, uint32_t a, uint32_t b,
                                            size_t first, int k) {
  EXPECT_EQ(first, 0u);
  EXPECT_TRUE(blocked_bloom::IsOneGroup(k, 1));
  return blocked_bloom::OneGroupLineMayMatchAvx512(line, (uint64_t{b} << 32) | a,
                                                   blocked_bloom::ActiveLanes(k));
}

TEST(BlockedBloomKernelTest, Avx2OneGroupQueryAgreesWithScalar) {
  SKIP_WITHOUT_AVX2();
  ExpectQueryAgreesWithScalar(OneGroupQueryAvx2, 8, false);
}

TEST(BlockedBloomKernelTest, Avx512OneGroupQueryAgreesWithScalar) {
  SKIP_WITHOUT_AVX512();
  ExpectQueryAgreesWithScalar(OneGroupQueryAvx512, 8, false);
}
#endif

// Every single set bit alone in a line: each probe position is found by
// every kernel, so no lane reads the wrong word or bit.
TEST(BlockedBloomKernelTest, EveryKernelFindsEachBitPosition) {
  std::mt19937_64 rng(5);
  for (Kernel kernel : RunnableKernels()) {
    const LineQuery query = kernel == Kernel::kAvx512 ? blocked_bloom::LineMayMatchAvx512
                            : kernel == Kernel::kAvx2 ? blocked_bloom::LineMayMatchAvx2
                                                      : blocked_bloom::LineMayMatch;
    int found = 0;
    for (int trial = 0; trial < 20000; ++trial) {
      const uint64_t h = rng();
      const uint32_t a = static_cast<uint32_t>(h), b = static_cast<uint32_t>(h >> 32);
      std::vector<uint8_t> line(kLineBytes);
      blocked_bloom::LineAdd(line.data(), a, b, 0, 1);  // one probe: one bit
      ASSERT_TRUE(query(line.data(), a, b, 0, 1)) << Name(kernel);
      // Another key's single probe matches only when it hits the same bit.
      const uint64_t g = rng();
      const uint32_t c = static_cast<uint32_t>(g), d = static_cast<uint32_t>(g >> 32);
      const bool same = blocked_bloom::ProbeBit(a, b, 0) == blocked_bloom::ProbeBit(c, d, 0);
      ASSERT_EQ(query(line.data(), c, d, 0, 1), same) << Name(kernel);
      found += same;
    }
    // 20000 tries at 1/512: about 39 coincidences, so both answers were seen.
    EXPECT_GT(found, 0) << Name(kernel);
  }
}

TEST(BlockedBloomKernelTest, Avx2InsertAgreesWithScalar) {
  SKIP_WITHOUT_AVX2();
  std::mt19937_64 rng(11);
  for (int k = 1; k <= kMaxBlockedProbesPerLine; ++k) {
    for (size_t first : {size_t{0}, size_t{kMaxBlockedProbesPerLine}}) {
      std::vector<uint8_t> scalar(kLineBytes), avx2(kLineBytes);
      for (int key = 0; key < 40; ++key) {
        const uint64_t h = rng();
        const uint32_t a = static_cast<uint32_t>(h), b = static_cast<uint32_t>(h >> 32);
        blocked_bloom::LineAdd(scalar.data(), a, b, first, k);
        blocked_bloom::LineAddAvx2(avx2.data(), a, b, first, k);
        ASSERT_EQ(scalar, avx2) << "k " << k << " key " << key;
        ASSERT_TRUE(blocked_bloom::LineMayMatchAvx2(avx2.data(), a, b, first, k));
      }
    }
  }
}

// Readers forced to each kernel give identical answers on whole filters.
TEST(BlockedBloomKernelTest, AllKernelsAgreeOnWholeFilters) {
  const std::vector<Kernel> kernels = RunnableKernels();
  if (kernels.size() < 2) GTEST_SKIP() << "CPU lacks AVX2: only the scalar kernel runs";
  for (int lines : {1, 2}) {
    FilterBuilder b(FilterConfig{FilterKind::kBlockedBloom, 12.0, lines});
    for (int i = 0; i < 20000; ++i) {
      const std::string k = test::Key(i);
      b.AddKeyHash(HashKey(k.data(), k.size()));
    }
    size_t len = 0;
    auto block = b.Finish(&len);
    ParsedBlock parsed;
    ASSERT_TRUE(ParseBlock(block.get(), len, &parsed));
    std::vector<BlockedBloomReader> readers(kernels.size());
    for (size_t r = 0; r < kernels.size(); ++r) {
      ASSERT_TRUE(BlockedBloomReader::Init(parsed, &readers[r], kernels[r]));
    }
    size_t positives = 0;
    for (int i = 0; i < 400000; ++i) {
      const std::string k = test::Key(i, 3);
      const uint64_t h = HashKey(k.data(), k.size());
      const bool scalar = readers[0].MayMatch(h);
      for (size_t r = 1; r < kernels.size(); ++r) {
        ASSERT_EQ(scalar, readers[r].MayMatch(h)) << Name(kernels[r]) << " key " << i;
      }
      positives += scalar;
    }
    EXPECT_GT(positives, 0u);
  }
}

// A batch gives each key the single query's answer: every kernel, one and
// two lines per key, the block at an aligned and an unaligned address (as
// RocksDB holds a block read from disk), batches across the 32-key chunks.
TEST(BlockedBloomKernelTest, BatchQueriesAgreeWithSingleQueries) {
  for (int lines : {1, 2}) {
    FilterBuilder b(FilterConfig{FilterKind::kBlockedBloom, 8.0, lines});
    for (int i = 0; i < 5000; ++i) {
      const std::string k = test::Key(i);
      b.AddKeyHash(HashKey(k.data(), k.size()));
    }
    size_t len = 0;
    auto block = b.Finish(&len);
    for (size_t offset : {size_t{0}, size_t{5}}) {
      std::vector<char> copy(len + offset);
      std::copy(block.get(), block.get() + len, copy.begin() + static_cast<ptrdiff_t>(offset));
      ParsedBlock parsed;
      ASSERT_TRUE(ParseBlock(copy.data() + offset, len, &parsed));
      for (Kernel kernel : RunnableKernels()) {
        BlockedBloomReader reader;
        ASSERT_TRUE(BlockedBloomReader::Init(parsed, &reader, kernel));
        // Present keys (0..4999) and absent ones, mixed in every batch.
        std::vector<uint64_t> hashes;
        for (int i = 0; i < 20000; ++i) {
          const std::string k = i % 2 == 0 ? test::Key(i / 2) : test::Key(i, 3);
          hashes.push_back(HashKey(k.data(), k.size()));
        }
        size_t matches = 0;
        for (size_t n : {size_t{1}, size_t{7}, size_t{32}, size_t{33}, size_t{100}}) {
          std::unique_ptr<bool[]> out(new bool[n]);
          for (size_t start = 0; start + n <= hashes.size(); start += n) {
            std::vector<BlockedBloomReader::PreparedKey> batch;
            for (size_t i = start; i < start + n; ++i) {
              batch.push_back(reader.PrepareBatchKey(hashes[i]));
            }
            reader.MayMatchPrepared(batch.data(), n, out.get());
            for (size_t i = 0; i < n; ++i) {
              ASSERT_EQ(out[i], reader.MayMatch(hashes[start + i]))
                  << "lines " << lines << " offset " << offset << " " << Name(kernel) << " n " << n
                  << " key " << start + i;
              matches += out[i];
            }
          }
        }
        EXPECT_GT(matches, 0u);
      }
    }
  }
}

TEST(BlockedBloomMathTest, ProbesFollowTheBlockedFormula) {
  // The block-load variance lowers the best k: standard Bloom would use 7,
  // 11 and 14 here. Two lines: each line is a one-line filter at half the
  // memory per key.
  EXPECT_EQ(OptimalBlockedBloomProbes(10.0, 1), 6);
  EXPECT_EQ(OptimalBlockedBloomProbes(16.0, 1), 9);
  EXPECT_EQ(OptimalBlockedBloomProbes(20.0, 1), 11);
  EXPECT_EQ(OptimalBlockedBloomProbes(20.0, 2), OptimalBlockedBloomProbes(10.0, 1));
  // 512-bit blocks at 10 bits/key, 6 probes: 0.966% exactly, vs 0.957% from
  // the textbook approximation that ignores the spread of set bits per line.
  EXPECT_NEAR(BlockedBloomFpRate(10.0, 6, 1), 0.009665, 0.000005);
  // Two lines at 20 bits/key: under half the one-line FP rate.
  EXPECT_LT(BlockedBloomFpRate(20.0, 6, 2), 0.5 * BlockedBloomFpRate(20.0, 11, 1));
  // The finite form converges to the large-n one.
  EXPECT_NEAR(BlockedBloomFpRate(1e6, 1e6 * 10 / 512, 6, 1), BlockedBloomFpRate(10.0, 6, 1),
              2e-6);
  // One line holding everything: a 512-bit standard Bloom filter, a little
  // above the textbook formula (Jensen: E[f^k] >= E[f]^k).
  const double one_line = BlockedBloomFpRate(30, 1, 5, 1);
  EXPECT_GT(one_line, StandardBloomFpRate(30, 512, 5));
  EXPECT_LT(one_line, 1.1 * StandardBloomFpRate(30, 512, 5));
}

// The crossover table behind OptimalBlockedBloomProbes, checked against the
// exact formula on both sides of each crossover up to 30 bits/key.
TEST(BlockedBloomMathTest, ProbeTableMatchesExactFormula) {
  for (double bpk = 1.5; bpk <= 30.0; bpk += 0.5) {
    const int k = OptimalBlockedBloomProbes(bpk, 1);
    const double fp = BlockedBloomFpRate(bpk, k, 1);
    EXPECT_LE(fp, BlockedBloomFpRate(bpk, k + 1, 1)) << bpk;
    if (k > 1) {
      EXPECT_LE(fp, BlockedBloomFpRate(bpk, k - 1, 1)) << bpk;
    }
  }
}

}  // namespace
}  // namespace sstfilter
