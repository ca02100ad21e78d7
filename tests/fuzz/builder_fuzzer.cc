// libFuzzer target: builds filters of every kind the core can build
// (fuzz::BuildableConfigs(), so new kinds are covered automatically) from
// arbitrary key sets, and checks every key reads back as "may match".
//
// Input: config selector, bits-per-key code (0 keeps the config's budget,
// 1..255 spread over [kMinBitsPerKey, kMaxBitsPerKey]), mode, then:
//   mode 0: keys, each a length byte and that many bytes, built through the
//           RocksDB adapter (SstFilterBitsBuilder with construction checks
//           on) and read back through the adapter (single and batched) and
//           the core;
//   mode 1: raw 64-bit key hashes, 8 bytes each, into the core builder:
//           duplicates (adjacent or not), zeros and patterned hashes that
//           hashing real keys would practically never produce;
//   mode 2: generated hashes: a count (u16 / 4, up to 16383), a number of
//           distinct values and a seed, for sizes beyond the input length
//           (kept small to keep executions fast; core_test sweeps to 10^6).
// In every mode the keys are split in two at a fuzzed point and built as two
// consecutive filters with one builder (builders are reused after Finish).
// Properties checked (abort on violation): no false negative; the block has
// exactly the size BytesForKeys promised and a trailer that parses;
// construction checks pass on an intact build.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/slice.h>

#include "plugin/core/bloom_math.h"
#include "plugin/core/filter_builder.h"
#include "plugin/core/filter_reader.h"
#include "plugin/core/format.h"
#include "plugin/core/hash.h"
#include "plugin/rocksdb/bits_builder.h"
#include "plugin/rocksdb/policy.h"
#include "tests/fuzz/fuzz_util.h"

namespace sstfilter {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

void Check(bool ok, const char* what, const FilterConfig& config) {
  if (!ok) {
    std::fprintf(stderr, "builder_fuzzer: property violated: %s (kind %s, %.4f bits/key)\n",
                 what, KindName(config.kind), config.bits_per_key);
    std::abort();
  }
}

void CheckBlock(const FilterConfig& config, const char* block, size_t len,
                size_t expected_len) {
  Check(len == expected_len, "block size differs from BytesForKeys", config);
  ParsedBlock parsed;
  Check(ParseBlock(block, len, &parsed), "builder wrote an untrusted trailer", config);
}

// Core path: hashes in, every hash must match.
void BuildFromHashes(const FilterConfig& config, FilterBuilder* builder,
                     const uint64_t* hashes, size_t n) {
  for (size_t i = 0; i < n; ++i) builder->AddKeyHash(hashes[i]);
  const size_t expected = builder->BytesForKeys(builder->NumKeyHashes());
  size_t len = 0;
  std::unique_ptr<char[]> block = builder->Finish(&len);
  CheckBlock(config, block.get(), len, expected);
  Check(builder->NumKeyHashes() == 0, "builder not empty after Finish", config);
  VisitFilter(block.get(), len, [&](const auto& r) {
    for (size_t i = 0; i < n; ++i) Check(r.MayMatch(hashes[i]), "false negative", config);
    return 0;
  });
}

// Adapter path: keys in through SstFilterBitsBuilder, read back through the
// policy's reader, single and batched, and through the core.
void BuildFromKeys(const FilterConfig& config, SstFilterBitsBuilder* builder,
                   const std::vector<rdb::Slice>& keys) {
  static const SstFilterPolicy* const policy = new SstFilterPolicy(FilterKind::kStandardBloom);
  for (const auto& k : keys) builder->AddKey(k);
  const size_t expected = builder->CalculateSpace(builder->EstimateEntriesAdded());
  std::unique_ptr<const char[]> buf;
  rdb::Status s;
  const rdb::Slice filter = builder->Finish(&buf, &s);
  Check(s.ok(), "construction check failed at Finish", config);
  Check(builder->MaybePostVerify(filter).ok(), "MaybePostVerify failed on an intact build",
        config);
  CheckBlock(config, filter.data(), filter.size(), expected);

  std::unique_ptr<rdb::FilterBitsReader> reader(policy->GetFilterBitsReader(filter));
  std::vector<rdb::Slice> slices(keys);
  std::vector<rdb::Slice*> ptrs;
  for (auto& k : slices) ptrs.push_back(&k);
  std::unique_ptr<bool[]> batched(new bool[keys.size() + 1]);
  reader->MayMatch(static_cast<int>(keys.size()), ptrs.data(), batched.get());
  bool core_agrees = true;
  VisitFilter(filter.data(), filter.size(), [&](const auto& core) {
    for (size_t i = 0; i < keys.size(); ++i) {
      core_agrees &= core.MayMatch(HashKey(keys[i].data(), keys[i].size()));
    }
  });
  Check(core_agrees, "false negative (core)", config);
  for (size_t i = 0; i < keys.size(); ++i) {
    Check(reader->MayMatch(keys[i]), "false negative (single)", config);
    Check(batched[i], "false negative (batched)", config);
  }
}


}  // namespace
}  // namespace sstfilter

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sstfilter;
  fuzz::Input in(data, size);
  const std::vector<FilterConfig>& configs = fuzz::BuildableConfigs();
  FilterConfig config = configs[in.Byte() % configs.size()];
  const uint8_t bpk_code = in.Byte();
  if (bpk_code != 0) {
    config.bits_per_key =
        kMinBitsPerKey + (kMaxBitsPerKey - kMinBitsPerKey) * (bpk_code - 1) / 254.0;
  }
  const uint8_t mode = in.Byte() % 3;
  const uint16_t split_code = in.U16();

  if (mode == 0) {
    std::vector<ROCKSDB_NAMESPACE::Slice> keys;
    while (in.Remaining() > 0) {
      const size_t len = std::min<size_t>(in.Byte(), in.Remaining());
      keys.emplace_back(reinterpret_cast<const char*>(in.Rest()), len);
      in.Skip(len);
    }
    const size_t split = keys.empty() ? 0 : split_code % (keys.size() + 1);
    SstFilterBitsBuilder builder(config, /*detect_construct_corruption=*/true);
    BuildFromKeys(config, &builder, {keys.begin(), keys.begin() + split});
    BuildFromKeys(config, &builder, {keys.begin() + split, keys.end()});
    return 0;
  }

  std::vector<uint64_t> hashes;
  if (mode == 1) {
    while (in.Remaining() >= 8) hashes.push_back(in.U64());
  } else {
    const size_t count = in.U16() / 4;
    const uint64_t distinct = in.U16() + 1;
    const uint64_t seed = in.U64();
    hashes.resize(count);
    for (size_t i = 0; i < count; ++i) hashes[i] = Mix64(kGoldenGamma + seed + i % distinct);
  }
  const size_t split = split_code % (hashes.size() + 1);
  FilterBuilder builder(config);
  BuildFromHashes(config, &builder, hashes.data(), split);
  BuildFromHashes(config, &builder, hashes.data() + split, hashes.size() - split);
  return 0;
}
