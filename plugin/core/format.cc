#include "plugin/core/format.h"

#include <cstring>

#include "plugin/core/hash.h"
#include "plugin/core/little_endian.h"

namespace sstfilter {
namespace {

uint32_t TrailerCheck(const char* trailer, size_t payload_bytes) {
  char buf[12 + 8];
  std::memcpy(buf, trailer, 12);
  EncodeLe(payload_bytes, 8, buf + 12);
  return static_cast<uint32_t>(XXH3_64bits_withSeed(buf, sizeof(buf), kCheckSeed));
}

}  // namespace

void EncodeTrailer(const Trailer& t, size_t payload_bytes, char* out) {
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

bool ParseBlock(const char* data, size_t len_bytes, ParsedBlock* out) {
  if (data == nullptr || len_bytes < kTrailerBytes) return false;
  const size_t payload_bytes = len_bytes - kTrailerBytes;
  const char* t = data + payload_bytes;
  if (DecodeLe(t + 12, 4) != TrailerCheck(t, payload_bytes)) return false;
  const uint8_t version_byte = static_cast<uint8_t>(t[11]);
  if (version_byte != kVersionByteV1 && version_byte != kVersionByteV2) return false;
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
