// The sstfilter block format: a kind-specific payload followed by one
// 16-byte trailer shared by every filter kind. Specified in docs/FORMAT.md.
//
//   +------------------------------+----------------------------------+
//   | payload (len - 16 bytes)     | trailer (16 bytes, little-endian)|
//   +------------------------------+----------------------------------+
//
//   trailer:  0       4           8       10     11        12        16
//             +-------+-----------+-------+------+---------+---------+
//             |params | num_keys  | seed  | kind | version | check   |
//             |  u32  |   u32     |  u16  |  u8  |   u8    |  u32    |
//             +-------+-----------+-------+------+---------+---------+
//                                                 ^ len - 5
//
//   check = low 32 bits of XXH3_64bits_withSeed(trailer[0..12) ||
//           u64le(payload length), kCheckSeed)
//
// The version byte sits at len - 5, where RocksDB's built-in filter reader
// (every release from 7.8 to 11.x) reads a signed marker: positive = legacy
// Bloom with that many probes, 0 = always true, -1 = FastLocalBloom, -2 =
// Ribbon, any other negative value reserved and read as always true.
// Version 1 wrote 0x01 there, which a built-in reader would take for a
// one-probe legacy Bloom filter. Version 2 writes 0x82 (-126: high bit set,
// far from the markers RocksDB uses or may claim next), so a built-in
// reader given an sstfilter block answers "may match" for every key.
//
// The check catches a damaged or truncated block before the reader trusts
// any parameter: a wrong seed or probe count would otherwise turn into false
// negatives. Block payload corruption is RocksDB's job (block checksums).
#pragma once

#include <cstddef>
#include <cstdint>

namespace sstfilter {

// Values of the trailer's kind byte. Numbers are part of the format: never
// reuse one. A reader that does not know a kind answers "may match".
enum class FilterKind : uint8_t {
  kAlwaysFalse = 1,    // holds zero keys: every query answers "no"
  kAlwaysTrue = 2,     // a written "may match everything" (fallback)
  kStandardBloom = 3,  // one bit array, probes over all of it
  kBlockedBloom = 4,   // 64-byte lines, probes within one or two lines
  kRibbon = 5,         // bumped Ribbon (BuRR), params bit 31: compact end
};

constexpr uint8_t kFormatVersion = 2;  // what the builder writes
// The version byte of each version (see above); readers accept both.
constexpr uint8_t kVersionByteV1 = 0x01;
constexpr uint8_t kVersionByteV2 = 0x82;
constexpr size_t kTrailerBytes = 16;
constexpr uint64_t kCheckSeed = 0x73737466696C7472ULL;  // "sstfiltr"

struct Trailer {
  uint32_t params = 0;    // kind-specific; reserved bits must be zero
  uint32_t num_keys = 0;  // distinct key hashes added, saturated at 2^32-1
  uint16_t seed = 0;      // input to SeededHash
  FilterKind kind = FilterKind::kAlwaysTrue;
  uint8_t version = kFormatVersion;  // 1 or 2 (not the byte on disk)
};

// Writes `t` into out[0..16), for a block whose payload is `payload_bytes`.
void EncodeTrailer(const Trailer& t, size_t payload_bytes, char* out);

// A block split into a trusted trailer and its payload.
struct ParsedBlock {
  Trailer trailer;
  const uint8_t* payload = nullptr;
  size_t payload_bytes = 0;
};

// Parses the trailer at the end of `data`, version 1 or 2. Returns false
// (the caller must then answer "may match") when the block is shorter than
// a trailer, the check does not match, or the version is unknown. The kind
// is not checked here: each reader validates its own kind and parameters.
bool ParseBlock(const char* data, size_t len_bytes, ParsedBlock* out);

// True if the byte at len - 5 is version 2's: a block sstfilter wrote (its
// check then decides whether it is trusted), not one of RocksDB's built-in
// filters, which never have 0x82 there. What decides which reader a block
// under the shared family name gets.
inline bool HasVersion2Byte(const char* data, size_t len_bytes) {
  return len_bytes >= kTrailerBytes && static_cast<uint8_t>(data[len_bytes - 5]) == kVersionByteV2;
}

}  // namespace sstfilter
