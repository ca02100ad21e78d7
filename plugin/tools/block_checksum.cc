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

bool BuiltinChecksum(uint8_t checksum_type, std::string_view data, uint32_t* checksum) {
  switch (checksum_type) {
    case 0:
      *checksum = 0;
      return true;
    case 1:
      *checksum = MaskCrc(Crc32c(0, data));
      return true;
    case 2:
      *checksum = XXH32(data.data(), data.size(), 0);
      return true;
    case 3:
      *checksum = static_cast<uint32_t>(XXH64(data.data(), data.size(), 0));
      return true;
    case 4:
      // XXH3 of all but the last byte (a block's type byte), which is mixed
      // in by a multiply (RocksDB's ModifyChecksumForLastByte) instead of
      // hashed. RocksDB defines the checksum of no bytes as 0.
      if (data.empty()) {
        *checksum = 0;
      } else {
        const auto last = static_cast<uint8_t>(data.back());
        *checksum = static_cast<uint32_t>(XXH3_64bits(data.data(), data.size() - 1)) ^
                    (last * 0x6b9083d9u);
      }
      return true;
    default:
      return false;
  }
}

uint32_t ChecksumContextModifier(uint32_t base_context_checksum, uint64_t offset) {
  if (base_context_checksum == 0) return 0;
  const auto low = static_cast<uint32_t>(offset);
  const auto high = static_cast<uint32_t>(offset >> 32);
  return base_context_checksum ^ (low + high);
}

bool VerifyBlockChecksum(uint8_t checksum_type, uint32_t base_context_checksum,
                         uint64_t block_offset, std::string_view block_with_trailer,
                         std::string* error) {
  if (block_with_trailer.size() < 5) {
    *error = "block shorter than its trailer";
    return false;
  }
  // Contents plus the compression type byte: what the checksum covers.
  const std::string_view covered = block_with_trailer.substr(0, block_with_trailer.size() - 4);
  const char* stored_at = block_with_trailer.data() + block_with_trailer.size() - 4;
  uint32_t computed;
  if (!BuiltinChecksum(checksum_type, covered, &computed)) {
    *error = "unknown checksum type " + std::to_string(checksum_type);
    return false;
  }
  // Unsigned arithmetic: RocksDB adds the modifier modulo 2^32.
  const uint32_t modifier = ChecksumContextModifier(base_context_checksum, block_offset);
  const uint32_t stored = static_cast<uint32_t>(DecodeLe(stored_at, 4)) - modifier;
  if (computed != stored) {
    char buf[128];
    std::snprintf(buf, sizeof(buf), "block checksum mismatch (stored%s %08x, computed %08x)",
                  modifier != 0 ? " less its context" : "", stored, computed);
    *error = buf;
    return false;
  }
  return true;
}

}  // namespace sstfilter::tools
