#include "plugin/tools/block_checksum.h"

#include <array>
#include <cstdio>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "plugin/core/little_endian.h"

namespace sstfilter::tools {
namespace {

// Byte-at-a-time table for the reflected Castagnoli polynomial. About
// 0.5 GB/s: plenty for filter blocks, which are a few MB at most per file.
constexpr std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = MakeCrcTable();

// RocksDB stores CRCs "masked", so that a CRC of data holding CRCs is not
// degenerate (util/crc32c.h).
uint32_t MaskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

}  // namespace

uint32_t Crc32c(uint32_t crc, std::string_view data) {
  crc = ~crc;
  for (const char ch : data) crc = kCrcTable[(crc ^ static_cast<uint8_t>(ch)) & 0xff] ^ (crc >> 8);
  return ~crc;
}

bool VerifyBlockChecksum(uint8_t checksum_type, std::string_view block_with_trailer,
                         std::string* error) {
  if (block_with_trailer.size() < 5) {
    *error = "block shorter than its trailer";
    return false;
  }
  // Contents plus the compression type byte: what the checksum covers.
  const std::string_view covered = block_with_trailer.substr(0, block_with_trailer.size() - 4);
  const char* stored_at = block_with_trailer.data() + block_with_trailer.size() - 4;
  const auto stored = static_cast<uint32_t>(DecodeLe(stored_at, 4));
  uint32_t computed;
  switch (checksum_type) {
    case 0:
      return true;
    case 1:
      computed = MaskCrc(Crc32c(0, covered));
      break;
    case 2:
      computed = XXH32(covered.data(), covered.size(), 0);
      break;
    case 3:
      computed = static_cast<uint32_t>(XXH64(covered.data(), covered.size(), 0));
      break;
    case 4: {
      // XXH3 of the contents, then the type byte mixed in by a multiply
      // (RocksDB's ModifyChecksumForLastByte) instead of hashing it.
      const uint8_t type_byte = static_cast<uint8_t>(covered.back());
      computed = static_cast<uint32_t>(XXH3_64bits(covered.data(), covered.size() - 1)) ^
                 (type_byte * 0x6b9083d9u);
      break;
    }
    default:
      *error = "unknown checksum type " + std::to_string(checksum_type);
      return false;
  }
  if (computed != stored) {
    char buf[96];
    std::snprintf(buf, sizeof(buf), "block checksum mismatch (stored %08x, computed %08x)",
                  stored, computed);
    *error = buf;
    return false;
  }
  return true;
}

}  // namespace sstfilter::tools
