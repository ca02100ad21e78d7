// The sstfilter block format: a kind-specific payload followed by a trailer
// shared by every filter kind. Specified in docs/FORMAT.md.
//
// Version 3 (what the builder writes), an 8-byte trailer:
//
//   +--------------------------+-----------+--------+---------+----------+
//   | payload (len - 8 bytes)  | kind/seed | params | version | check    |
//   |                          |    u8     |  u16   | u8 0x83 | u32      |
//   +--------------------------+-----------+--------+---------+----------+
//                                                   ^ len - 5
//   kind/seed = kind | seed << 4
//   check = CRC-32 (zlib's) of block[0 .. len - 4) || u64le(len - 4)
//
// The check covers every byte before it, so any single flipped bit, in the
// payload or the trailer, changes it: a CRC detects every single-bit error
// by construction. The length it covers makes a truncated or extended block
// fail it too (but for a 2^-32 chance where the marker byte also matches).
//
// Versions 1 and 2, a 16-byte trailer (still read):
//
//   trailer:  0       4           8       10     11        12        16
//             +-------+-----------+-------+------+---------+---------+
//             |params | num_keys  | seed  | kind | version | check   |
//             |  u32  |   u32     |  u16  |  u8  |   u8    |  u32    |
//             +-------+-----------+-------+------+---------+---------+
//                                                 ^ len - 5
//   check = low 32 bits of XXH3_64bits_withSeed(trailer[0..12) ||
//           u64le(payload length), kCheckSeed): trailer and length only.
//
// The version byte sits at len - 5, where RocksDB's built-in filter reader
// (every release from 7.8 to 11.x) reads a signed marker: positive = legacy
// Bloom with that many probes, 0 = always true, -1 = FastLocalBloom, -2 =
// Ribbon, any other negative value reserved and read as always true.
// Version 1 wrote 0x01 there, which a built-in reader would take for a
// one-probe legacy Bloom filter. Versions 2 and 3 write 0x82 and 0x83
// (-126, -125: high bit set, far from the markers RocksDB uses or may claim
// next), so a built-in reader given an sstfilter block answers "may match"
// for every key.
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
  kRibbon = 5,         // bumped Ribbon (BuRR)
};

constexpr uint8_t kFormatVersion = 3;  // what the builder writes by default
// The version byte of each version (see above); readers accept all three.
constexpr uint8_t kVersionByteV1 = 0x01;
constexpr uint8_t kVersionByteV2 = 0x82;
constexpr uint8_t kVersionByteV3 = 0x83;
// Every version's version byte is at len - 5, RocksDB's marker byte.
constexpr size_t kVersionByteFromEnd = 5;
constexpr size_t kTrailerBytesV2 = 16;  // versions 1 and 2
constexpr size_t kTrailerBytesV3 = 8;
constexpr size_t kTrailerBytes = kTrailerBytesV3;  // what the builder writes by default
constexpr uint64_t kCheckSeed = 0x73737466696C7472ULL;  // "sstfiltr", versions 1 and 2

// Trailer bytes of a block of `version` (1, 2 or 3; EncodeTrailer writes
// any other value in the 16-byte layout).
constexpr size_t TrailerBytes(uint8_t version) {
  return version == 3 ? kTrailerBytesV3 : kTrailerBytesV2;
}

struct Trailer {
  // Kind-specific; reserved bits must be zero. Version 3 stores 16 bits.
  uint32_t params = 0;
  // Distinct key hashes added, saturated at 2^32-1. Versions 1 and 2 only:
  // version 3 does not store it (reads as 0).
  uint32_t num_keys = 0;
  uint16_t seed = 0;  // input to SeededHash; version 3 stores 0..15
  FilterKind kind = FilterKind::kAlwaysTrue;
  uint8_t version = kFormatVersion;  // 1, 2 or 3 (not the byte on disk)
};

// Writes the trailer `t` (TrailerBytes(t.version) bytes) after the
// `payload_bytes` bytes of payload at `block`, whose check version 3
// computes over that payload. Version 3 keeps params' low 16 bits and
// seed's low 4 (writers never set more; a test writes such blocks).
void EncodeTrailer(const Trailer& t, char* block, size_t payload_bytes);

// A block split into a trusted trailer and its payload.
struct ParsedBlock {
  Trailer trailer;
  const uint8_t* payload = nullptr;
  size_t payload_bytes = 0;
};

// Parses the trailer at the end of `data`, version 1, 2 or 3 (by the byte
// at len - 5). Returns false (the caller must then answer "may match") when
// the block is shorter than its trailer, the check does not match, or the
// version is unknown. The kind is not checked here: each reader validates
// its own kind and parameters.
bool ParseBlock(const char* data, size_t len_bytes, ParsedBlock* out);

// True if the block passes version 3's (or 2's) check with `version_byte`
// (kVersionByteV3 or kVersionByteV2) in place of its byte at len - 5.
bool ChecksWithVersionByte(const char* data, size_t len_bytes, uint8_t version_byte);

// True if the byte at len - 5 is one bit away from version 3's or 2's and
// the block passes that version's check with it restored: an sstfilter
// block damaged in its version byte, which a built-in reader would take for
// a legacy Bloom filter (0x03, 0x02) and answer "no" for added keys. The
// caller must answer "may match".
bool IsFlippedSstFilterBlock(const char* data, size_t len_bytes);

// True if the byte at len - 5 is version 2's or 3's: a block sstfilter
// wrote (its check then decides whether it is trusted), not one of
// RocksDB's built-in filters, which never have 0x82 or 0x83 there. What
// decides which reader a block under the shared family name gets.
inline bool HasSstFilterVersionByte(const char* data, size_t len_bytes) {
  if (len_bytes < kVersionByteFromEnd) return false;
  const uint8_t b = static_cast<uint8_t>(data[len_bytes - kVersionByteFromEnd]);
  return (b == kVersionByteV2 && len_bytes >= kTrailerBytesV2) ||
         (b == kVersionByteV3 && len_bytes >= kTrailerBytesV3);
}

}  // namespace sstfilter
