#include "plugin/core/format.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "plugin/core/hash.h"
#include "plugin/core/little_endian.h"

namespace sstfilter {
namespace {

// Versions 1 and 2: the trailer's first 12 bytes and the payload length.
uint32_t TrailerCheck(const char* trailer, size_t payload_bytes) {
  char buf[12 + 8];
  std::memcpy(buf, trailer, 12);
  EncodeLe(payload_bytes, 8, buf + 12);
  return static_cast<uint32_t>(XXH3_64bits_withSeed(buf, sizeof(buf), kCheckSeed));
}

// Version 3: zlib's CRC-32 of every byte before the check, then of their
// count. zlib takes lengths as uInt, so longer blocks go in pieces. With
// `last_byte`, that value stands for the last checked byte (the version
// byte): the check the block would have with another version byte.
uint32_t BlockCheck(const char* block, size_t checked_bytes, const uint8_t* last_byte = nullptr) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const auto* p = reinterpret_cast<const Bytef*>(block);
  const size_t streamed =
      last_byte != nullptr && checked_bytes > 0 ? checked_bytes - 1 : checked_bytes;
  for (size_t left = streamed; left > 0;) {
    const uInt piece = static_cast<uInt>(std::min<size_t>(left, 1u << 30));
    crc = crc32(crc, p, piece);
    p += piece;
    left -= piece;
  }
  if (streamed != checked_bytes) crc = crc32(crc, last_byte, 1);
  char len[8];
  EncodeLe(checked_bytes, 8, len);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(len), sizeof(len));
  return static_cast<uint32_t>(crc);
}

void EncodeTrailerV3(const Trailer& t, char* block, size_t payload_bytes) {
  char* out = block + payload_bytes;
  out[0] = static_cast<char>((static_cast<uint8_t>(t.kind) & 0x0F) | (t.seed & 0x0F) << 4);
  EncodeLe(t.params & 0xFFFF, 2, out + 1);
  out[3] = static_cast<char>(kVersionByteV3);
  EncodeLe(BlockCheck(block, payload_bytes + 4), 4, out + 4);
}

bool ParseBlockV3(const char* data, size_t len_bytes, ParsedBlock* out) {
  if (len_bytes < kTrailerBytesV3) return false;
  const size_t payload_bytes = len_bytes - kTrailerBytesV3;
  const char* t = data + payload_bytes;
  if (DecodeLe(t + 4, 4) != BlockCheck(data, payload_bytes + 4)) return false;
  // A version 2 block whose version byte gained a bit (0x82 -> 0x83) and
  // passes this check by chance passes its own: untrusted either way.
  if (ChecksWithVersionByte(data, len_bytes, kVersionByteV2)) return false;
  const uint8_t kind_seed = static_cast<uint8_t>(t[0]);
  out->trailer.params = static_cast<uint32_t>(DecodeLe(t + 1, 2));
  out->trailer.num_keys = 0;
  out->trailer.seed = kind_seed >> 4;
  out->trailer.kind = static_cast<FilterKind>(kind_seed & 0x0F);
  out->trailer.version = 3;
  out->payload = reinterpret_cast<const uint8_t*>(data);
  out->payload_bytes = payload_bytes;
  return true;
}

}  // namespace

void EncodeTrailer(const Trailer& t, char* block, size_t payload_bytes) {
  if (t.version == 3) return EncodeTrailerV3(t, block, payload_bytes);
  char* out = block + payload_bytes;
  EncodeLe(t.params, 4, out);
  EncodeLe(t.num_keys, 4, out + 4);
  EncodeLe(t.seed, 2, out + 8);
  out[10] = static_cast<char>(t.kind);
  // Versions 1 and 2 by their bytes; any other value as itself (which no
  // reader accepts: tests write such blocks).
  out[11] = static_cast<char>(t.version == 1   ? kVersionByteV1
                              : t.version == 2 ? kVersionByteV2
                                               : t.version);
  EncodeLe(TrailerCheck(out, payload_bytes), 4, out + 12);
}

bool ChecksWithVersionByte(const char* data, size_t len_bytes, uint8_t version_byte) {
  if (data == nullptr) return false;
  if (version_byte == kVersionByteV3) {
    return len_bytes >= kTrailerBytesV3 &&
           DecodeLe(data + len_bytes - 4, 4) == BlockCheck(data, len_bytes - 4, &version_byte);
  }
  if (version_byte == kVersionByteV2 && len_bytes >= kTrailerBytesV2) {
    char trailer[12];
    std::memcpy(trailer, data + len_bytes - kTrailerBytesV2, sizeof(trailer));
    trailer[11] = static_cast<char>(version_byte);
    return DecodeLe(data + len_bytes - 4, 4) == TrailerCheck(trailer, len_bytes - kTrailerBytesV2);
  }
  return false;
}

bool IsFlippedSstFilterBlock(const char* data, size_t len_bytes) {
  if (data == nullptr || len_bytes < kVersionByteFromEnd) return false;
  const uint8_t b = static_cast<uint8_t>(data[len_bytes - kVersionByteFromEnd]);
  for (uint8_t version_byte : {kVersionByteV3, kVersionByteV2}) {
    const uint8_t diff = b ^ version_byte;
    if (diff != 0 && (diff & (diff - 1)) == 0 &&
        ChecksWithVersionByte(data, len_bytes, version_byte)) {
      return true;
    }
  }
  return false;
}

bool ParseBlock(const char* data, size_t len_bytes, ParsedBlock* out) {
  if (data == nullptr || len_bytes < kVersionByteFromEnd) return false;
  if (static_cast<uint8_t>(data[len_bytes - kVersionByteFromEnd]) == kVersionByteV3) {
    return ParseBlockV3(data, len_bytes, out);
  }
  if (len_bytes < kTrailerBytesV2) return false;
  const size_t payload_bytes = len_bytes - kTrailerBytesV2;
  const char* t = data + payload_bytes;
  if (DecodeLe(t + 12, 4) != TrailerCheck(t, payload_bytes)) return false;
  const uint8_t version_byte = static_cast<uint8_t>(t[11]);
  if (version_byte != kVersionByteV1 && version_byte != kVersionByteV2) return false;
  // A version 3 block whose version byte lost a bit (0x83 -> 0x82) reaches
  // here, and its version 3 check says so: by construction, not by the
  // chance that the version 2 check fails.
  if (version_byte == kVersionByteV2 && ChecksWithVersionByte(data, len_bytes, kVersionByteV3)) {
    return false;
  }
  out->trailer.params = static_cast<uint32_t>(DecodeLe(t, 4));
  out->trailer.num_keys = static_cast<uint32_t>(DecodeLe(t + 4, 4));
  out->trailer.seed = static_cast<uint16_t>(DecodeLe(t + 8, 2));
  out->trailer.kind = static_cast<FilterKind>(static_cast<uint8_t>(t[10]));
  out->trailer.version = version_byte == kVersionByteV1 ? 1 : 2;
  out->payload = reinterpret_cast<const uint8_t*>(data);
  out->payload_bytes = payload_bytes;
  return true;
}

}  // namespace sstfilter
