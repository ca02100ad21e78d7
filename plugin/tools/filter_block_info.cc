#include "plugin/tools/filter_block_info.h"

#include <algorithm>
#include <type_traits>

#include "plugin/core/filter_builder.h"
#include "plugin/core/filter_reader.h"
#include "plugin/core/format.h"
#include "plugin/core/kind_ops.h"
#include "plugin/core/little_endian.h"

namespace sstfilter::tools {
namespace {

FilterBlockInfo Unusable(FilterBlockInfo info, const std::string& problem) {
  info.usable = false;
  info.problem = problem;
  return info;
}

}  // namespace

FilterBlockInfo DescribeSstFilterBlock(std::string_view block) {
  FilterBlockInfo info;
  info.encoding = FilterEncoding::kSstFilter;
  ParsedBlock parsed;
  if (!ParseBlock(block.data(), block.size(), &parsed)) {
    info.kind = "unreadable";
    return Unusable(info,
                    "sstfilter trailer check failed (damaged or truncated block, or a newer "
                    "format version): reads as \"may match\" for every key");
  }
  const Trailer& t = parsed.trailer;
  info.kind = KindName(t.kind);
  info.sstfilter_version = t.version;
  info.sstfilter_kind = t.kind;
  info.has_num_keys = t.version < 3;
  info.num_keys = t.num_keys;
  // The readers validate their own parameters; a block they refuse is read
  // through AlwaysTrueReader, exactly as RocksDB would read it.
  const bool trusted = VisitFilter(block.data(), block.size(), [](const auto& reader) {
    return !std::is_same_v<std::decay_t<decltype(reader)>, AlwaysTrueReader>;
  });
  if (t.kind == FilterKind::kAlwaysTrue) {
    return Unusable(info, "written as \"may match\" for every key (the builder could not build it)");
  }
  if (!trusted) {
    if (t.kind != FilterKind::kAlwaysFalse && OpsFor(t.kind) == nullptr) {
      info.kind = "kind " + std::to_string(static_cast<int>(t.kind));
      return Unusable(info, "filter kind unknown to this build: reads as \"may match\"");
    }
    return Unusable(info, "invalid " + info.kind + " parameters: reads as \"may match\"");
  }
  info.usable = true;
  if (t.kind == FilterKind::kAlwaysFalse) return info;
  // Parameter layouts: docs/FORMAT.md (probes in bits 0-7; BlockedBloom's
  // lines per key in bits 8-15).
  if (t.kind == FilterKind::kStandardBloom || t.kind == FilterKind::kBlockedBloom) {
    info.probes = static_cast<int>(t.params & 0xff);
  }
  if (t.kind == FilterKind::kBlockedBloom) info.lines_per_key = static_cast<int>((t.params >> 8) & 0xff);
  return info;
}

double PredictSstFilterFpRate(const FilterBlockInfo& info, uint64_t num_keys, size_t block_bytes) {
  if (!info.usable) return 1.0;
  if (info.sstfilter_kind == FilterKind::kAlwaysFalse) return 0.0;
  const size_t trailer = TrailerBytes(info.sstfilter_version);
  if (block_bytes <= trailer) return 1.0;
  FilterConfig config;
  config.kind = info.sstfilter_kind;
  config.format_version = info.sstfilter_version;
  config.bits_per_key = 8.0 * static_cast<double>(block_bytes - trailer) /
                        static_cast<double>(std::max<uint64_t>(num_keys, 1));
  config.lines_per_key = std::max(info.lines_per_key, 1);
  return FilterBuilder(config).PredictedFpRate(std::max<uint64_t>(num_keys, 1), block_bytes);
}

FilterBlockInfo DescribeBuiltinFilterBlock(std::string_view block) {
  FilterBlockInfo info;
  info.encoding = FilterEncoding::kRocksDbBuiltin;
  constexpr size_t kMetadataBytes = 5;
  if (block.size() <= kMetadataBytes) {
    info.kind = "AlwaysFalse";
    info.builtin_kind = BuiltinKind::kEmpty;
    info.usable = true;
    info.predicted_fp_rate = 0.0;
    return info;
  }
  const char* meta = block.data() + block.size() - kMetadataBytes;
  const size_t payload_bytes = block.size() - kMetadataBytes;
  const auto marker = static_cast<int8_t>(meta[0]);
  if (marker == 0) {
    info.kind = "AlwaysTrue";
    return Unusable(info, "zero probes: \"may match\" for every key");
  }
  if (marker == -1) {
    info.kind = "FastLocalBloom";
    info.builtin_kind = BuiltinKind::kFastLocalBloom;
    const auto sub_impl = static_cast<uint8_t>(meta[1]);
    const auto block_and_probes = static_cast<uint8_t>(meta[2]);
    info.probes = block_and_probes & 31;
    const int log2_block_bytes = ((block_and_probes >> 5) & 7) + 6;
    if (sub_impl != 0 || log2_block_bytes != 6 || info.probes < 1 || info.probes > 30 ||
        DecodeLe(meta + 3, 2) != 0) {
      return Unusable(info, "reserved Bloom encoding: reads as \"may match\"");
    }
    info.usable = true;
    return info;
  }
  if (marker == -2) {
    info.kind = "Standard128Ribbon";
    info.builtin_kind = BuiltinKind::kRibbon;
    if (DecodeLe(meta + 2, 3) < 2) return Unusable(info, "fewer than 2 Ribbon blocks: reads as \"may match\"");
    info.usable = true;
    return info;
  }
  if (marker < 0) {
    info.kind = "reserved";
    return Unusable(info, "reserved filter marker " + std::to_string(marker) +
                              ": reads as \"may match\"");
  }
  info.kind = "LegacyBloom";
  info.builtin_kind = BuiltinKind::kLegacyBloom;
  info.probes = marker;
  // The block must be num_lines cache lines of a power-of-two size.
  const uint64_t num_lines = DecodeLe(meta + 1, 4);
  bool valid = num_lines != 0 && payload_bytes % num_lines == 0;
  if (valid) {
    const uint64_t line_bytes = payload_bytes / num_lines;
    valid = (line_bytes & (line_bytes - 1)) == 0;
  }
  if (!valid) return Unusable(info, "inconsistent legacy Bloom metadata: reads as \"may match\"");
  info.usable = true;
  return info;
}

}  // namespace sstfilter::tools
