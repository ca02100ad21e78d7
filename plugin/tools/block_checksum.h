// Verifies the checksum in the 5-byte trailer RocksDB writes after every
// block of a block-based table: compression type u8, then a u32le checksum
// of the block contents followed by that type byte. The checksum type is the
// footer's (sst_format.h); RocksDB 7.8 writes XXH3 by default, older
// releases CRC32c.
//
// From format_version 6 (RocksDB 8.6) every stored checksum, the footer's
// too, has a "context" added: a modifier made from the file's random,
// nonzero base_context_checksum and the block's offset, so a block copied
// from another file or read at the wrong offset fails its check although its
// bytes are intact. Before 6 the base is 0 and so is the modifier.
//
// Source: RocksDB 7.8.3 and 11.8.1 table/format.{h,cc}
// (ComputeBuiltinChecksum, ChecksumModifierForContext),
// table/block_based/reader_common.cc (VerifyBlockChecksum), util/crc32c.h
// (masking).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sstfilter::tools {

// The checksum of type `checksum_type` RocksDB computes over `data` (a
// block's contents and its type byte, or a footer with its checksum field
// zeroed), before any context: 0 for type 0 (none) and for XXH3 of no bytes.
// False for an unknown type.
bool BuiltinChecksum(uint8_t checksum_type, std::string_view data, uint32_t* checksum);

// base ^ (low 32 bits of offset + high 32 bits), modulo 2^32; 0 if base is
// 0. Distinct for offsets less than 4 GiB apart: no two blocks of a file
// under 4 GiB share one.
uint32_t ChecksumContextModifier(uint32_t base_context_checksum, uint64_t offset);

// `block_with_trailer` is the block contents plus its 5-byte trailer, read at
// `block_offset` of a file whose footer gives `checksum_type` and
// `base_context_checksum` (0 before format_version 6). True if the stored
// checksum minus the context modifier equals the computed one, exactly
// RocksDB's test; with type 0 (none) the computed checksum is 0, so a
// format_version 6 file still checks each block's context. False with a
// reason otherwise, including an unknown type.
bool VerifyBlockChecksum(uint8_t checksum_type, uint32_t base_context_checksum,
                         uint64_t block_offset, std::string_view block_with_trailer,
                         std::string* error);

// CRC-32C (Castagnoli) of `data`, continuing from `crc` (0 to start).
uint32_t Crc32c(uint32_t crc, std::string_view data);

}  // namespace sstfilter::tools
