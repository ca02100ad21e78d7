#include "plugin/core/format.h"

#include <cstring>

#include "plugin/core/hash.h"

namespace sstfilter {
namespace {

void PutLe(uint64_t v, size_t n, char* out) {
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<char>(v >> (8 * i));
}

uint64_t GetLe(const char* in, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    v |= static_cast<uint64_t>(static_cast<uint8_t>(in[i])) << (8 * i);
  }
  return v;
}

uint32_t TrailerCheck(const char* trailer, size_t payload_bytes) {
  char buf[12 + 8];
  std::memcpy(buf, trailer, 12);
  PutLe(payload_bytes, 8, buf + 12);
  return static_cast<uint32_t>(XXH3_64bits_withSeed(buf, sizeof(buf), kCheckSeed));
}

}  // namespace

void EncodeTrailer(const Trailer& t, size_t payload_bytes, char* out) {
  PutLe(t.params, 4, out);
  PutLe(t.num_keys, 4, out + 4);
  PutLe(t.seed, 2, out + 8);
  out[10] = static_cast<char>(t.kind);
  out[11] = static_cast<char>(t.version);
  PutLe(TrailerCheck(out, payload_bytes), 4, out + 12);
}

bool ParseBlock(const char* data, size_t len_bytes, ParsedBlock* out) {
  if (data == nullptr || len_bytes < kTrailerBytes) return false;
  const size_t payload_bytes = len_bytes - kTrailerBytes;
  const char* t = data + payload_bytes;
  if (GetLe(t + 12, 4) != TrailerCheck(t, payload_bytes)) return false;
  if (static_cast<uint8_t>(t[11]) != kFormatVersion) return false;
  out->trailer.params = static_cast<uint32_t>(GetLe(t, 4));
  out->trailer.num_keys = static_cast<uint32_t>(GetLe(t + 4, 4));
  out->trailer.seed = static_cast<uint16_t>(GetLe(t + 8, 2));
  out->trailer.kind = static_cast<FilterKind>(static_cast<uint8_t>(t[10]));
  out->trailer.version = static_cast<uint8_t>(t[11]);
  out->payload = reinterpret_cast<const uint8_t*>(data);
  out->payload_bytes = payload_bytes;
  return true;
}

}  // namespace sstfilter
