// Verifies the checksum in the 5-byte trailer RocksDB writes after every
// block of a block-based table: compression type u8, then a u32le checksum
// of the block contents followed by that type byte. The checksum type is the
// footer's (sst_format.h); RocksDB 7.8 writes XXH3 by default, older
// releases CRC32c. Source: RocksDB 7.8.3 table/format.cc
// (ComputeBuiltinChecksumWithLastByte), util/crc32c.h (masking).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sstfilter::tools {

// `block_with_trailer` is the block contents plus its 5-byte trailer. True
// if the stored checksum matches, or `checksum_type` is 0 (none); false with
// a reason otherwise, including an unknown type.
bool VerifyBlockChecksum(uint8_t checksum_type, std::string_view block_with_trailer,
                         std::string* error);

// CRC-32C (Castagnoli) of `data`, continuing from `crc` (0 to start).
uint32_t Crc32c(uint32_t crc, std::string_view data);

}  // namespace sstfilter::tools
