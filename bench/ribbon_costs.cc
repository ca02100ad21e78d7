#include "bench/ribbon_costs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "bench/ribbon_bound.h"
#include "plugin/core/filter_config.h"
#include "plugin/core/format.h"
#include "plugin/core/ribbon.h"
#include "plugin/core/ribbon_builder.h"

namespace sstfilter::bench {
namespace {

// Expected FP rate of the filter as built, an absent key's query routed as
// the reader routes it: a start at a bumped offset of its bucket moves on
// to the next layer (a new hash, any of that layer's starts alike); a start
// elsewhere checks the r_lo or r_lo + 1 columns of its block.
double RoutedFpRate(const RibbonReader& reader) {
  double reach = 1, fp = 0;
  for (int j = 0; j < reader.num_layers() && reach > 0; ++j) {
    const RibbonReader::Layer& layer = reader.layer(j);
    double here = 0;
    uint64_t bumped = 0;
    for (uint64_t o = 0; o < layer.start_range; ++o) {
      if (reader.Bumped(layer, o)) {
        ++bumped;
        continue;
      }
      const uint64_t block = (layer.first_slot + o) / ribbon::kBlockSlots;
      here += std::ldexp(1.0, -static_cast<int>(
                                  ribbon::Columns(block, reader.lower_blocks(), reader.r_lo())));
    }
    const double range = static_cast<double>(layer.start_range);
    fp += reach * here / range;
    reach *= static_cast<double>(bumped) / range;
  }
  return fp;
}

}  // namespace

void AddRibbonCosts(const char* block, size_t len, uint64_t* hashes, size_t n,
                    RibbonCosts* costs) {
  ParsedBlock parsed;
  RibbonReader reader;
  if (n == 0 || !ParseBlock(block, len, &parsed) || parsed.trailer.kind != FilterKind::kRibbon ||
      !RibbonReader::Init(parsed, &reader)) {
    ++costs->skipped;
    return;
  }
  const size_t payload_bytes = parsed.payload_bytes;
  const size_t trailer_bytes = len - payload_bytes;
  // The same build as the plugin's: the core builder on the same hashes and
  // payload length writes the same bytes, and says how many slots it used.
  std::vector<uint8_t> payload(payload_bytes, 0);
  Trailer trailer;
  ribbon::BuildStats stats;
  const double bits_per_key = 8.0 * static_cast<double>(payload_bytes) / static_cast<double>(n);
  const FilterConfig config{FilterKind::kRibbon, bits_per_key, 1, parsed.trailer.version};
  ribbon::BuildRibbon(ribbon::Tuning(), config, hashes, n, payload.data(), payload_bytes, &trailer,
                      &stats);
  if (stats.fell_back || std::memcmp(payload.data(), block, payload_bytes) != 0) {
    ++costs->skipped;
    return;
  }
  const uint64_t header_bytes = uint64_t{payload[payload_bytes - 1]} + 1;
  const int log_bucket = ribbon::Tuning().log_bucket;
  uint64_t code_bytes = 0, starts = 0;
  for (int j = 0; j < stats.num_layers; ++j) {
    starts += stats.starts_in_layer[j];
    if (j + 1 < stats.num_layers) {
      code_bytes += (RibbonBuckets(stats.starts_in_layer[j], log_bucket) + 3) / 4;
    }
  }
  const RibbonEnd end = RibbonEndOf(starts, stats.total_slots - starts, true);
  const uint64_t solution_bytes = ribbon::SolutionBytes(end.total_blocks, reader.lower_blocks(),
                                                        reader.r_lo(), end.last_stride);
  const uint64_t columns_bytes = payload_bytes - header_bytes - code_bytes;
  costs->bound += BoundRibbonFpRate(len, n);
  costs->no_header += BoundRibbonFpRate(len - trailer_bytes - header_bytes, n);
  costs->no_codes += BoundRibbonFpRate(columns_bytes, n);
  costs->no_empty += BoundRibbonFpRate(columns_bytes, stats.total_slots);
  costs->built += RoutedFpRate(reader);
  ++costs->filters;
  costs->trailer_bytes += trailer_bytes;
  costs->header_bytes += header_bytes;
  costs->code_bytes += code_bytes;
  costs->padding_bytes += columns_bytes - std::min(columns_bytes, solution_bytes);
  costs->empty_slots += stats.empty_slots;
}

}  // namespace sstfilter::bench
