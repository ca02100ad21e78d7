// libFuzzer target: untrusted bytes as a filter block, read through the
// RocksDB adapter (NewSstFilterBitsReader, single and batched MayMatch),
// through the pure core (VisitFilter), and through the policy's
// GetFilterBitsReader, which takes a block with version 2's or 3's byte at
// len - 5 as sstfilter's and hands any other to RocksDB's built-in reader.
//
// A random block almost never carries a valid 32-bit trailer check, so a
// plain byte fuzzer would only ever test the "untrusted" path. The first
// input byte therefore picks a mode:
//   0: the rest is the block, as is;
//   1: the rest is the block, with its check recomputed over the fuzzed
//      trailer fields: arbitrary kinds, versions, parameters and payloads
//      reach each kind's validation and query kernel;
//   2: a real filter is built (kind and key count from the input) and then
//      damaged by the input: byte edits, truncation, optionally a forged
//      check.
// Properties checked (abort on violation, so libFuzzer records the input):
//   - nothing crashes, over-reads or hits undefined behaviour (ASan, UBSan);
//   - single, batched and core answers agree for every query key, and the
//     policy's reader agrees with them on blocks it takes as sstfilter's;
//   - a block whose trailer does not parse answers "may match" to all;
//   - an undamaged built filter answers "may match" for every key in it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/slice.h>

#include "plugin/core/filter_builder.h"
#include "plugin/core/filter_reader.h"
#include "plugin/core/format.h"
#include "plugin/core/hash.h"
#include "plugin/core/kind_ops.h"
#include "plugin/core/little_endian.h"
#include "plugin/rocksdb/bits_reader.h"
#include "plugin/rocksdb/compat.h"
#include "plugin/rocksdb/policy.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/test_util.h"

namespace sstfilter {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

// More than one MultiGet batch (32), so the reader's chunking is exercised.
constexpr int kAbsentQueries = 40;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "reader_fuzzer: property violated: %s\n", what);
    std::abort();
  }
}

// Rewrites the check of the trailer at the end of block[0..len) so the
// fuzzed fields are trusted as they are.
void ForgeCheck(char* block, size_t len) {
  if (len >= kTrailerBytesV3 && static_cast<uint8_t>(block[len - kVersionByteFromEnd]) == kVersionByteV3) {
    const char* t = block + len - kTrailerBytesV3;
    Trailer trailer;
    trailer.kind = static_cast<FilterKind>(static_cast<uint8_t>(t[0]) & 0x0F);
    trailer.seed = static_cast<uint8_t>(t[0]) >> 4;
    trailer.params = static_cast<uint32_t>(DecodeLe(t + 1, 2));
    trailer.version = 3;
    EncodeTrailer(trailer, block, len - kTrailerBytesV3);
    return;
  }
  if (len < kTrailerBytesV2) return;
  const char* t = block + len - kTrailerBytesV2;
  Trailer trailer;
  trailer.params = static_cast<uint32_t>(DecodeLe(t, 4));
  trailer.num_keys = static_cast<uint32_t>(DecodeLe(t + 4, 4));
  trailer.seed = static_cast<uint16_t>(DecodeLe(t + 8, 2));
  trailer.kind = static_cast<FilterKind>(static_cast<uint8_t>(t[10]));
  trailer.version = static_cast<uint8_t>(t[11]);
  EncodeTrailer(trailer, block, len - kTrailerBytesV2);
}

// Queries every key through every path and checks they agree; with
// `must_match`, every key must answer "may match".
void QueryAll(const char* block, size_t len, const std::vector<std::string>& keys,
              bool must_match) {
  static const SstFilterPolicy* const policy = new SstFilterPolicy(FilterKind::kStandardBloom);
  // RocksDB never passes empty contents, but an empty Slice must not crash
  // either.
  std::unique_ptr<rdb::FilterBitsReader> reader(NewSstFilterBitsReader(rdb::Slice(block, len)));
  Check(reader != nullptr, "NewSstFilterBitsReader returned null");
  std::unique_ptr<rdb::FilterBitsReader> family(
      policy->GetFilterBitsReader(rdb::Slice(block, len)));
  Check(family != nullptr, "GetFilterBitsReader returned null");
  const bool ours = HasSstFilterVersionByte(block, len);

  ParsedBlock parsed;
  const bool trusted = ParseBlock(block, len, &parsed);
  std::vector<rdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rdb::Slice*> ptrs;
  for (auto& s : slices) ptrs.push_back(&s);
  std::unique_ptr<bool[]> batched(new bool[keys.size() + 1]);
  reader->MayMatch(static_cast<int>(keys.size()), ptrs.data(), batched.get());

  VisitFilter(block, len, [&](const auto& core) {
    for (size_t i = 0; i < keys.size(); ++i) {
      const uint64_t h = HashKey(keys[i].data(), keys[i].size());
      core.Prefetch(h);
      const bool single = reader->MayMatch(slices[i]);
      Check(single == core.MayMatch(h), "adapter and core disagree");
      const bool by_family = family->MayMatch(slices[i]);  // RocksDB's reader if not ours
      Check(!ours || by_family == single, "policy's reader disagrees on an sstfilter block");
      Check(single == batched[i], "single and batched MayMatch disagree");
      Check(trusted || single, "untrusted block answered no");
      Check(!must_match || single, "false negative in an undamaged filter");
    }
    return 0;
  });
}

void FuzzRawBlock(const uint8_t* data, size_t size, bool forge) {
  // An exact-size heap copy, so ASan flags any read past the block.
  std::unique_ptr<char[]> block(new char[size == 0 ? 1 : size]);
  if (size > 0) std::memcpy(block.get(), data, size);
  if (forge) ForgeCheck(block.get(), size);
  std::vector<std::string> keys;
  for (int i = 0; i < kAbsentQueries; ++i) keys.push_back(test::Key(i, 0xF022));
  QueryAll(block.get(), size, keys, /*must_match=*/false);
}

// Input: config selector, key count (u16, up to 1023 keys), flags
// (bit 0: truncate, bit 1: forge the check afterwards), truncation length
// (u16), then edits as (offset u16, xor byte) triples.
void FuzzDamagedFilter(const uint8_t* data, size_t size) {
  fuzz::Input in(data, size);
  const std::vector<FilterConfig>& configs = fuzz::BuildableConfigs();
  const FilterConfig& config = configs[in.Byte() % configs.size()];
  const size_t num_keys = in.U16() % 1024;
  const uint8_t flags = in.Byte();
  const size_t truncate_to = in.U16();

  std::vector<std::string> keys;
  FilterBuilder builder(config);
  for (size_t i = 0; i < num_keys; ++i) {
    keys.push_back(test::Key(i, 0xF1));
    builder.AddKeyHash(HashKey(keys.back().data(), keys.back().size()));
  }
  size_t len = 0;
  std::unique_ptr<char[]> built = builder.Finish(&len);
  std::string block(built.get(), len);
  while (in.Remaining() >= 3) {
    const size_t offset = in.U16();
    const uint8_t x = in.Byte();
    if (!block.empty()) block[offset % block.size()] ^= static_cast<char>(x);
  }
  if ((flags & 1) && truncate_to < block.size()) block.resize(truncate_to);
  if (flags & 2) ForgeCheck(&block[0], block.size());
  const bool intact = block == std::string(built.get(), len);
  for (int i = 0; i < kAbsentQueries; ++i) keys.push_back(test::Key(i, 0xF2));

  std::unique_ptr<char[]> exact(new char[block.size() + 1]);
  std::memcpy(exact.get(), block.data(), block.size());
  // The absent keys sit at the end; only the present ones must match.
  std::vector<std::string> present(keys.begin(), keys.begin() + num_keys);
  QueryAll(exact.get(), block.size(), present, /*must_match=*/intact);
  QueryAll(exact.get(), block.size(), keys, /*must_match=*/false);
}

}  // namespace
}  // namespace sstfilter

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  switch (data[0] % 3) {
    case 0: sstfilter::FuzzRawBlock(data + 1, size - 1, /*forge=*/false); break;
    case 1: sstfilter::FuzzRawBlock(data + 1, size - 1, /*forge=*/true); break;
    case 2: sstfilter::FuzzDamagedFilter(data + 1, size - 1); break;
  }
  return 0;
}
