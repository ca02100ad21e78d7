#include "plugin/tools/sst_format.h"

#include <cstdio>
#include <limits>

#include "plugin/core/little_endian.h"
#include "plugin/tools/block_checksum.h"

namespace sstfilter::tools {
namespace {

// Reads varints and byte runs from untrusted input, never past its end.
class Cursor {
 public:
  explicit Cursor(std::string_view in) : in_(in) {}
  bool empty() const { return in_.empty(); }

  // At most 10 bytes; a varint that does not end inside the input fails.
  bool Varint64(uint64_t* v) {
    uint64_t result = 0;
    for (int shift = 0; shift <= 63 && !in_.empty(); shift += 7) {
      const auto byte = static_cast<uint8_t>(in_.front());
      in_.remove_prefix(1);
      result |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        *v = result;
        return true;
      }
    }
    return false;
  }
  bool Varint32(uint32_t* v) {
    uint64_t wide;
    if (!Varint64(&wide) || wide > std::numeric_limits<uint32_t>::max()) return false;
    *v = static_cast<uint32_t>(wide);
    return true;
  }
  // RocksDB's PutVarsignedint64: zigzag, then varint64.
  bool VarSigned64(int64_t* v) {
    uint64_t u;
    if (!Varint64(&u)) return false;
    *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
    return true;
  }
  bool Bytes(uint64_t n, std::string_view* out) {
    if (n > in_.size()) return false;
    *out = in_.substr(0, n);
    in_.remove_prefix(n);
    return true;
  }
  bool Handle(BlockHandle* h) { return Varint64(&h->offset) && Varint64(&h->size); }

 private:
  std::string_view in_;
};

bool Fail(std::string* error, const std::string& message) {
  *error = message;
  return false;
}

// The entries of a block: everything before its restart array.
bool EntriesOf(std::string_view block, const char* what, std::string_view* entries,
               std::string* error) {
  if (block.size() < 4) return Fail(error, std::string(what) + " block too short");
  const uint64_t num_restarts = DecodeLe(block.data() + block.size() - 4, 4);
  if (num_restarts > (block.size() - 4) / 4) {
    return Fail(error, std::string(what) + " block has a damaged restart array");
  }
  *entries = block.substr(0, block.size() - 4 - 4 * num_restarts);
  return true;
}

// Part 2 of a format_version >= 6 footer (see the box in sst_format.h):
// `footer_bytes` are its 53 bytes, at `footer_offset` in the file.
bool ParseContextFooter(std::string_view footer_bytes, uint64_t footer_offset, Footer* footer,
                        std::string* error) {
  constexpr char kExtendedMagic[4] = {0x3e, 0x00, 0x7a, 0x00};
  const char* p = footer_bytes.data();
  if (std::string_view(p + 1, 4) != std::string_view(kExtendedMagic, 4)) {
    return Fail(error, "damaged SST footer (bad extended magic for format_version " +
                           std::to_string(footer->format_version) + ")");
  }
  const auto stored_checksum = static_cast<uint32_t>(DecodeLe(p + 5, 4));
  footer->base_context_checksum = static_cast<uint32_t>(DecodeLe(p + 9, 4));
  if (footer->base_context_checksum == 0) {
    return Fail(error, "damaged SST footer (base_context_checksum is 0)");
  }
  std::string zeroed(footer_bytes);
  zeroed.replace(5, 4, 4, '\0');
  uint32_t computed = 0;
  BuiltinChecksum(footer->checksum_type, zeroed, &computed);  // type checked by the caller
  computed += ChecksumContextModifier(footer->base_context_checksum, footer_offset);
  if (computed != stored_checksum) {
    char buf[96];
    std::snprintf(buf, sizeof(buf), "SST footer checksum mismatch (stored %08x, computed %08x)",
                  stored_checksum, computed);
    return Fail(error, buf);
  }
  if (DecodeLe(p + 33, 8) != 0) {
    return Fail(error, "the SST footer uses a feature newer than this tool (reserved bytes set)");
  }
  const uint64_t metaindex_bytes = DecodeLe(p + 13, 4);
  if (footer_offset < kBlockTrailerBytes + metaindex_bytes) {
    return Fail(error, "the SST footer points outside the file (damaged or truncated)");
  }
  footer->metaindex.size = metaindex_bytes;
  footer->metaindex.offset = footer_offset - kBlockTrailerBytes - metaindex_bytes;
  return true;
}

}  // namespace

bool HandleInFile(const BlockHandle& handle, uint64_t file_size) {
  return handle.offset <= file_size && handle.size <= file_size - handle.offset &&
         kBlockTrailerBytes <= file_size - handle.offset - handle.size;
}

bool ParseFooter(std::string_view tail, uint64_t file_size, Footer* footer,
                 std::string* error) {
  if (file_size < kLegacyFooterBytes || tail.size() < kLegacyFooterBytes) {
    return Fail(error, "too short to be an SST file (" + std::to_string(file_size) + " bytes)");
  }
  if (tail.size() > file_size) return Fail(error, "footer bytes longer than the file");
  const uint64_t magic = DecodeLe(tail.data() + tail.size() - 8, 8);
  *footer = Footer();
  if (magic == kPlainTableMagic || magic == kLegacyPlainTableMagic) {
    footer->table_type = TableType::kPlain;
    return true;
  }
  if (magic == kCuckooTableMagic) {
    footer->table_type = TableType::kCuckoo;
    return true;
  }
  std::string_view handles;
  if (magic == kLegacyBlockBasedTableMagic) {
    footer->format_version = 0;
    footer->checksum_type = 1;  // legacy files are CRC32c
    handles = tail.substr(tail.size() - kLegacyFooterBytes, 40);
  } else if (magic == kBlockBasedTableMagic) {
    if (tail.size() < kFooterBytes) return Fail(error, "too short for its SST footer");
    footer->format_version = static_cast<uint32_t>(DecodeLe(tail.data() + tail.size() - 12, 4));
    if (footer->format_version == 0) {
      return Fail(error, "damaged SST footer (format_version 0 with the current magic number)");
    }
    if (footer->format_version > kMaxFooterFormatVersion) {
      return Fail(error, "SST format_version " + std::to_string(footer->format_version) +
                             " is newer than this tool reads (at most " +
                             std::to_string(kMaxFooterFormatVersion) +
                             "): written by a newer RocksDB, or damaged");
    }
    const std::string_view footer_bytes = tail.substr(tail.size() - kFooterBytes);
    footer->checksum_type = static_cast<uint8_t>(footer_bytes[0]);
    if (footer->checksum_type > 4) {
      return Fail(error, "unknown checksum type " + std::to_string(footer->checksum_type) +
                             " in the SST footer");
    }
    if (footer->format_version >= kContextChecksumFormatVersion) {
      // The metaindex it derives ends before the footer: inside the file.
      return ParseContextFooter(footer_bytes, file_size - kFooterBytes, footer, error);
    }
    handles = footer_bytes.substr(1, 40);
  } else {
    char hex[32];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(magic));
    return Fail(error, std::string("no SST footer (magic number 0x") + hex +
                           "): not an SST file, or truncated");
  }
  Cursor c(handles);
  if (!c.Handle(&footer->metaindex) || !c.Handle(&footer->index)) {
    return Fail(error, "damaged block handles in the SST footer");
  }
  if (!HandleInFile(footer->metaindex, file_size) || !HandleInFile(footer->index, file_size)) {
    return Fail(error, "the SST footer points outside the file (damaged or truncated)");
  }
  return true;
}

bool ParseMetaIndex(std::string_view block, std::vector<MetaIndexEntry>* entries,
                    std::string* error) {
  std::string_view body;
  if (!EntriesOf(block, "metaindex", &body, error)) return false;
  Cursor c(body);
  std::string key;
  while (!c.empty()) {
    uint32_t shared, non_shared, value_size;
    std::string_view delta, value;
    if (!c.Varint32(&shared) || !c.Varint32(&non_shared) || !c.Varint32(&value_size) ||
        shared > key.size() || !c.Bytes(non_shared, &delta) || !c.Bytes(value_size, &value)) {
      return Fail(error, "damaged metaindex entry after '" + key + "'");
    }
    key.resize(shared);
    key.append(delta);
    MetaIndexEntry entry{key, {}};
    Cursor v(value);
    if (!v.Handle(&entry.handle)) return Fail(error, "damaged handle of meta block '" + key + "'");
    entries->push_back(std::move(entry));
  }
  return true;
}

bool IndexHandle(const Footer& footer, const std::vector<MetaIndexEntry>& metaindex,
                 BlockHandle* index) {
  if (footer.format_version < kContextChecksumFormatVersion) {
    *index = footer.index;
    return true;
  }
  for (const MetaIndexEntry& e : metaindex) {
    if (e.name == kIndexMetaName) {
      *index = e.handle;
      return true;
    }
  }
  return false;
}

bool ParsePartitionIndex(std::string_view block, bool value_delta_encoded,
                         std::vector<BlockHandle>* partitions, std::string* error) {
  std::string_view body;
  if (!EntriesOf(block, "filter partition index", &body, error)) return false;
  Cursor c(body);
  uint64_t key_bytes = 0;
  while (!c.empty()) {
    uint32_t shared, non_shared, value_size = 0;
    std::string_view ignored;
    if (!c.Varint32(&shared) || !c.Varint32(&non_shared) ||
        (!value_delta_encoded && !c.Varint32(&value_size)) || shared > key_bytes ||
        !c.Bytes(non_shared, &ignored)) {
      return Fail(error, "damaged filter partition index entry");
    }
    key_bytes = uint64_t{shared} + non_shared;
    BlockHandle h;
    bool ok;
    if (!value_delta_encoded) {
      std::string_view value;
      ok = c.Bytes(value_size, &value);
      Cursor v(value);
      ok = ok && v.Handle(&h);
    } else if (shared == 0) {
      ok = c.Handle(&h);
    } else {
      // The size relative to the previous partition, which ends just before.
      int64_t size_delta;
      ok = !partitions->empty() && c.VarSigned64(&size_delta);
      if (ok) {
        const BlockHandle& prev = partitions->back();
        const uint64_t max = std::numeric_limits<uint64_t>::max();
        ok = prev.offset <= max - prev.size - kBlockTrailerBytes &&
             (size_delta >= 0 ? prev.size <= max - static_cast<uint64_t>(size_delta)
                              : prev.size >= static_cast<uint64_t>(-(size_delta + 1)) + 1);
        h.offset = prev.offset + prev.size + kBlockTrailerBytes;
        h.size = prev.size + static_cast<uint64_t>(size_delta);
      }
    }
    if (!ok) return Fail(error, "damaged filter partition handle");
    partitions->push_back(h);
  }
  return true;
}

}  // namespace sstfilter::tools
