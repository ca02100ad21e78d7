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
//
//   check = low 32 bits of XXH3_64bits_withSeed(trailer[0..12) ||
//           u64le(payload length), kCheckSeed)
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

constexpr uint8_t kFormatVersion = 1;
constexpr size_t kTrailerBytes = 16;
constexpr uint64_t kCheckSeed = 0x73737466696C7472ULL;  // "sstfiltr"

struct Trailer {
  uint32_t params = 0;    // kind-specific; reserved bits must be zero
  uint32_t num_keys = 0;  // distinct key hashes added, saturated at 2^32-1
  uint16_t seed = 0;      // input to SeededHash
  FilterKind kind = FilterKind::kAlwaysTrue;
  uint8_t version = kFormatVersion;
};

// Writes `t` into out[0..16), for a block whose payload is `payload_bytes`.
void EncodeTrailer(const Trailer& t, size_t payload_bytes, char* out);

// A block split into a trusted trailer and its payload.
struct ParsedBlock {
  Trailer trailer;
  const uint8_t* payload = nullptr;
  size_t payload_bytes = 0;
};

// Parses the trailer at the end of `data`. Returns false (the caller must
// then answer "may match") when the block is shorter than a trailer, the
// check does not match, or the version is unknown. The kind is not checked
// here: each reader validates its own kind and parameters.
bool ParseBlock(const char* data, size_t len_bytes, ParsedBlock* out);

}  // namespace sstfilter
