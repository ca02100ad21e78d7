// libFuzzer target: untrusted bytes through the sstfilter tool's SST parsing
// (plugin/tools/sst_format.h, block_checksum.h, filter_block_info.h), the
// code `sstfilter inspect` runs on every file before anything else.
//
// The first input byte picks what the rest is:
//   0: a whole SST file: footer -> metaindex -> filter blocks and partition
//      indexes -> partitions, following every handle that lies in the file;
//   1: a metaindex block;  2: a partition index (next byte: delta-encoded);
//   3: a filter block, described as sstfilter's and as RocksDB's;
//   4: a block with its trailer (next bytes: checksum type, context base).
// Properties (abort on violation): nothing crashes, over-reads or hits
// undefined behaviour (ASan, UBSan); a parsed footer's handles lie in the
// file, and it has a context base exactly from format_version 6 on; a usable
// filter block's predicted FP rate is in [0, 1].
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "plugin/tools/block_checksum.h"
#include "plugin/tools/filter_block_info.h"
#include "plugin/tools/sst_format.h"

namespace sstfilter::tools {
namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "sst_format_fuzzer: property violated: %s\n", what);
    std::abort();
  }
}

void Describe(std::string_view block) {
  const FilterBlockInfo ours = DescribeSstFilterBlock(block);
  Check(!ours.usable || (ours.predicted_fp_rate >= 0 && ours.predicted_fp_rate <= 1),
        "sstfilter block predicted FP rate outside [0, 1]");
  DescribeBuiltinFilterBlock(block);
}

std::string_view Contents(std::string_view file, const BlockHandle& h) {
  return file.substr(h.offset, h.size);
}

void WholeFile(std::string_view file) {
  Footer footer;
  std::string error;
  const std::string_view tail = file.substr(file.size() - std::min(file.size(), kFooterBytes));
  if (!ParseFooter(tail, file.size(), &footer, &error)) return;
  if (footer.table_type != TableType::kBlockBased) return;
  Check(HandleInFile(footer.metaindex, file.size()) && HandleInFile(footer.index, file.size()),
        "footer handle outside the file");
  Check((footer.format_version >= kContextChecksumFormatVersion) ==
            (footer.base_context_checksum != 0),
        "context checksums in a footer without them, or none in one with them");
  VerifyBlockChecksum(footer.checksum_type, footer.base_context_checksum, footer.metaindex.offset,
                      file.substr(footer.metaindex.offset, footer.metaindex.size + kBlockTrailerBytes),
                      &error);
  std::vector<MetaIndexEntry> entries;
  if (!ParseMetaIndex(Contents(file, footer.metaindex), &entries, &error)) return;
  BlockHandle index;
  if (IndexHandle(footer, entries, &index) && HandleInFile(index, file.size())) {
    VerifyBlockChecksum(footer.checksum_type, footer.base_context_checksum, index.offset,
                        file.substr(index.offset, index.size + kBlockTrailerBytes), &error);
  }
  for (const MetaIndexEntry& e : entries) {
    if (!HandleInFile(e.handle, file.size())) continue;
    const std::string_view block = Contents(file, e.handle);
    if (e.name.rfind(kPartitionedFilterPrefix, 0) != 0) {
      Describe(block);
      continue;
    }
    for (const bool delta : {false, true}) {
      std::vector<BlockHandle> partitions;
      if (!ParsePartitionIndex(block, delta, &partitions, &error)) continue;
      for (const BlockHandle& p : partitions) {
        if (HandleInFile(p, file.size())) Describe(Contents(file, p));
      }
    }
  }
}

}  // namespace
}  // namespace sstfilter::tools

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sstfilter::tools;
  if (size == 0) return 0;
  const std::string copy(reinterpret_cast<const char*>(data) + 1, size - 1);  // exact bounds for ASan
  const std::string_view rest = copy;
  std::string error;
  switch (data[0] % 5) {
    case 0:
      WholeFile(rest);
      break;
    case 1: {
      std::vector<MetaIndexEntry> entries;
      ParseMetaIndex(rest, &entries, &error);
      break;
    }
    case 2: {
      std::vector<BlockHandle> partitions;
      if (!rest.empty()) ParsePartitionIndex(rest.substr(1), rest[0] & 1, &partitions, &error);
      break;
    }
    case 3:
      Describe(rest);
      break;
    case 4:
      // Checksum type, then a base_context_checksum u32le; the input's size
      // stands for the block's offset.
      if (rest.size() >= 5) {
        uint32_t base = 0;
        for (int i = 4; i >= 1; --i) base = (base << 8) | static_cast<uint8_t>(rest[i]);
        VerifyBlockChecksum(static_cast<uint8_t>(rest[0]), base, rest.size(), rest.substr(5),
                            &error);
      }
      break;
  }
  return 0;
}
