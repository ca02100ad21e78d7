#include "plugin/tools/sst_filter_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/version.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>

#include "plugin/core/block_allocation.h"
#include "plugin/core/format.h"
#include "plugin/rocksdb/policy.h"
#include "plugin/tools/block_checksum.h"
#include "plugin/tools/builtin_predictor.h"
#include "plugin/tools/sst_format.h"

namespace sstfilter::tools {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

// A filter block larger than this is refused rather than read into memory
// (a 100M-key filter at 10 bits per key is 125 MB).
constexpr uint64_t kMaxBlockBytes = uint64_t{2} << 30;

// An open file, read with pread; every read is checked against its size.
class FileBytes {
 public:
  ~FileBytes() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool Open(const std::string& path, std::string* error) {
    // O_NONBLOCK: a FIFO named *.sst must not block the open; regular
    // files ignore it.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd_ < 0 || ::fstat(fd_, &st) != 0) {
      missing_ = errno == ENOENT;
      *error = std::strerror(errno);
      return false;
    }
    if (!S_ISREG(st.st_mode)) {
      *error = "not a regular file";
      return false;
    }
    size_ = static_cast<uint64_t>(st.st_size);
    return true;
  }
  uint64_t size() const { return size_; }
  bool missing() const { return missing_; }  // Open failed: no such file
  bool Read(uint64_t offset, uint64_t len, std::string* out, std::string* error) const {
    if (offset > size_ || len > size_ - offset) {
      *error = "read past the end of the file";
      return false;
    }
    if (len > kMaxBlockBytes) {
      *error = "block of " + std::to_string(len) + " bytes is too large to read";
      return false;
    }
    out->resize(len);
    size_t done = 0;
    while (done < len) {
      const ssize_t n = ::pread(fd_, &(*out)[done], len - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        *error = n < 0 ? std::strerror(errno) : "file shrank while reading";
        return false;
      }
      done += static_cast<size_t>(n);
    }
    return true;
  }

 private:
  int fd_ = -1;
  bool missing_ = false;
  uint64_t size_ = 0;
};

// Reads a block's contents; checks that it lies in the file, that it is
// stored uncompressed (filter and metaindex blocks always are) and, if
// asked, its checksum (with the footer's type and context).
bool ReadBlock(const FileBytes& file, const BlockHandle& handle, const Footer& footer,
               bool verify_checksum, std::string* contents, std::string* error) {
  if (!HandleInFile(handle, file.size())) {
    *error = "block at offset " + std::to_string(handle.offset) + " (" +
             std::to_string(handle.size) + " bytes) is outside the file (truncated?)";
    return false;
  }
  if (!file.Read(handle.offset, handle.size + kBlockTrailerBytes, contents, error)) return false;
  if (verify_checksum && !VerifyBlockChecksum(footer.checksum_type, footer.base_context_checksum,
                                              handle.offset, *contents, error)) {
    return false;
  }
  if ((*contents)[handle.size] != 0) {
    *error = "block is compressed (type " +
             std::to_string(static_cast<uint8_t>((*contents)[handle.size])) + ")";
    return false;
  }
  contents->resize(handle.size);
  return true;
}

// Format-1 sstfilter blocks have their own family name; under the shared
// built-in name, sstfilter's blocks carry version 2's or 3's byte at len - 5.
FilterBlockInfo Describe(const std::string& family, const std::string& contents) {
  if (family == kVersion1FamilyName) return DescribeSstFilterBlock(contents);
  if (HasSstFilterVersionByte(contents.data(), contents.size())) return DescribeSstFilterBlock(contents);
  return DescribeBuiltinFilterBlock(contents);
}

// Marks the report's filter as damaged: RocksDB fails reads of it (bad
// checksum) or never finds it; either way it saves no read.
void Damaged(SstFilterReport* r, const std::string& what) {
  r->problems.push_back(what);
  r->block.usable = false;
  if (r->block.kind.empty()) r->block.kind = "unreadable";
  r->block.problem = what;
  r->predicted_fp_rate = 1.0;
}

void ReadPartitioned(const FileBytes& file, const Footer& footer, const MetaIndexEntry& entry,
                     bool delta_encoded, bool verify, SstFilterReport* r) {
  std::string index, error;
  std::vector<BlockHandle> partitions;
  if (!ReadBlock(file, entry.handle, footer, verify, &index, &error) ||
      !ParsePartitionIndex(index, delta_encoded, &partitions, &error)) {
    Damaged(r, "filter partition index: " + error);
    return;
  }
  r->partitions = static_cast<int>(partitions.size());
  uint64_t total_bytes = 0;
  r->allocated_bytes = AllocatedBlockBytes(entry.handle.size);
  for (const BlockHandle& h : partitions) {
    total_bytes += h.size;
    r->allocated_bytes += AllocatedBlockBytes(h.size);
  }
  double fp_sum = 0, keys_sum = 0;
  bool usable = true;
  for (size_t i = 0; i < partitions.size(); ++i) {
    std::string contents;
    if (!ReadBlock(file, partitions[i], footer, verify, &contents, &error)) {
      Damaged(r, "filter partition " + std::to_string(i) + ": " + error);
      return;
    }
    const FilterBlockInfo info = Describe(r->family, contents);
    if (i == 0) {
      r->block = info;
    } else if (info.kind != r->block.kind) {
      r->block.kind = "mixed";
    }
    if (!info.usable) {
      usable = false;
      r->block.problem = "partition " + std::to_string(i) + ": " + info.problem;
    }
    // Built-in and version 3 partitions do not record their keys: share
    // the file's entries out by size.
    const double keys = info.has_num_keys
                            ? static_cast<double>(info.num_keys)
                            : static_cast<double>(r->entries) * static_cast<double>(partitions[i].size) /
                                  static_cast<double>(std::max<uint64_t>(total_bytes, 1));
    fp_sum += keys * PredictBlockFpRate(info, static_cast<uint64_t>(std::llround(keys)),
                                        contents.size());
    keys_sum += keys;
  }
  r->block.usable = usable;
  r->described = true;
  r->predicted_fp_rate = keys_sum > 0 ? fp_sum / keys_sum : 0.0;
}

}  // namespace

bool IsBuiltinFamily(const std::string& family) {
  static const std::set<std::string> kAliases = {
      "rocksdb.BuiltinBloomFilter",
      "rocksdb.internal.LegacyBloomFilter",
      "rocksdb.internal.FastLocalBloomFilter",
      "rocksdb.internal.Standard128RibbonFilter",
      "rocksdb.internal.DeprecatedBlockBasedBloomFilter",
      "bloomfilter",
      "ribbonfilter",
  };
  return kAliases.count(family) > 0;
}

namespace {

// The footer and RocksDB's table properties of an open file (whether its
// index values are delta-encoded in *index_delta); false (with r->error)
// when it is not a block-based table RocksDB can open.
bool ReadTableHead(const FileBytes& file, Footer* footer, bool* index_delta, SstFilterReport* r) {
  std::string error, tail;
  const uint64_t tail_bytes = std::min<uint64_t>(file.size(), kFooterBytes);
  if (!file.Read(file.size() - tail_bytes, tail_bytes, &tail, &error) ||
      !ParseFooter(tail, file.size(), footer, &error)) {
    r->error = error;
    return false;
  }
  if (footer->table_type != TableType::kBlockBased) {
    r->error = std::string(footer->table_type == TableType::kPlain ? "plain" : "cuckoo") +
               " table: not a block-based table, its filter is not inspected";
    return false;
  }
  const rdb::Options options;
  rdb::SstFileReader reader(options);
  const rdb::Status s = reader.Open(r->path);
  const auto props = s.ok() ? reader.GetTableProperties() : nullptr;
  if (props == nullptr) {
    r->error = "RocksDB cannot open it: " + (s.ok() ? std::string("no table properties") : s.ToString());
    // RocksDB reads format_version 6 from 8.6 on, 7 from 10.4 on.
    const bool v6 = footer->format_version == kContextChecksumFormatVersion;
    if (footer->format_version >= kContextChecksumFormatVersion &&
        ROCKSDB_MAJOR * 100 + ROCKSDB_MINOR < (v6 ? 806 : 1004)) {
      r->error += std::string(" (format_version ") +
                  (v6 ? "6 needs RocksDB 8.6" : "7 needs RocksDB 10.4") +
                  " or newer; this tool is built with " + std::to_string(ROCKSDB_MAJOR) + "." +
                  std::to_string(ROCKSDB_MINOR) + ")";
    }
    return false;
  }
  r->readable = true;
  r->policy_name = props->filter_policy_name;
  // num_entries counts range deletions, which a filter does not hold.
  const uint64_t point_entries =
      props->num_entries - std::min(props->num_entries, props->num_range_deletions);
  r->entries = props->num_filter_entries ? props->num_filter_entries : point_entries;
  r->point_keys = props->num_filter_entries > 0 || point_entries > 0;
  r->filter_bytes = props->filter_size;
  *index_delta = props->index_value_is_delta_encoded != 0;
  return true;
}

// The metaindex entry of the file's filter, by the prefixes RocksDB names
// filter blocks with (null: no filter); sets r->layout and r->family.
const MetaIndexEntry* FindFilterEntry(const std::vector<MetaIndexEntry>& entries,
                                      SstFilterReport* r) {
  for (const auto& [prefix, layout] : {std::make_pair(kFullFilterPrefix, FilterLayout::kFull),
                                       std::make_pair(kPartitionedFilterPrefix, FilterLayout::kPartitioned),
                                       std::make_pair(kObsoleteFilterPrefix, FilterLayout::kObsolete)}) {
    for (const MetaIndexEntry& e : entries) {
      if (e.name.rfind(prefix, 0) == 0) {
        r->layout = layout;
        r->family = e.name.substr(prefix.size());
        return &e;
      }
    }
  }
  return nullptr;
}

}  // namespace

double PredictBlockFpRate(const FilterBlockInfo& info, uint64_t table_entries, size_t bytes) {
  if (!info.usable) return 1.0;
  if (info.encoding == FilterEncoding::kSstFilter) {
    return PredictSstFilterFpRate(info, info.has_num_keys ? info.num_keys : table_entries, bytes);
  }
  return PredictBuiltinFpRate(info, table_entries, bytes);
}

SstFilterReport ReadSstFilter(const std::string& path, bool verify_checksums) {
  SstFilterReport r;
  r.path = path;
  FileBytes file;
  Footer footer;
  bool index_delta = false;
  std::string error;
  if (!file.Open(path, &error)) {
    r.error = error;
    r.missing = file.missing();
    return r;
  }
  r.file_bytes = file.size();
  if (!ReadTableHead(file, &footer, &index_delta, &r)) return r;
  std::string metaindex;
  std::vector<MetaIndexEntry> entries;
  if (!ReadBlock(file, footer.metaindex, footer, verify_checksums, &metaindex, &error) ||
      !ParseMetaIndex(metaindex, &entries, &error)) {
    Damaged(&r, "metaindex: " + error);
    return r;
  }
  const MetaIndexEntry* found = FindFilterEntry(entries, &r);
  if (found == nullptr) {
    r.predicted_fp_rate = 1.0;  // no filter: every lookup reads the file
    return r;
  }
  if (r.layout == FilterLayout::kObsolete) {
    r.block.kind = "BlockBasedBloom";
    r.block.problem = "obsolete block-based filter: RocksDB 7+ ignores it";
    r.predicted_fp_rate = 1.0;
    return r;
  }
  if (r.layout == FilterLayout::kFull) r.allocated_bytes = AllocatedBlockBytes(found->handle.size);
  if (r.family != kVersion1FamilyName && !IsBuiltinFamily(r.family)) return r;  // bytes unknown
  if (r.layout == FilterLayout::kPartitioned) {
    ReadPartitioned(file, footer, *found, index_delta, verify_checksums, &r);
    return r;
  }
  std::string contents;
  if (!ReadBlock(file, found->handle, footer, verify_checksums, &contents, &error)) {
    Damaged(&r, "filter block: " + error);
    return r;
  }
  r.block = Describe(r.family, contents);
  r.described = true;
  r.predicted_fp_rate = PredictBlockFpRate(r.block, r.entries, contents.size());
  return r;
}

}  // namespace sstfilter::tools
