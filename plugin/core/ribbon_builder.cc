// Builder side of the bumped Ribbon filter (kind 5; essay in ribbon.h).
//
// Per attempt (seed): layers are banded one after another into one band
// (chained: each layer's starts follow the previous layer's), each from the
// keys the previous one bumped; only then is the column split known (it
// depends on the total slot count), so the band is kept until the solution
// is back-substituted straight into the payload.
//
// Temporary memory per key, beyond the caller's 8-byte hashes (sorted in
// place): the bands, an 8-byte coefficient row + 4-byte result per slot at
// ~1.0 slot per key, plus the hashes of bumped keys (~5% of keys, 8 bytes)
// and bucket counters (0.05 bytes): ~12.5 bytes per key, against ~21 for
// RocksDB's Standard128Ribbon (16 + 4 bytes per slot, ~1.03 slots per key).
#include "plugin/core/ribbon_builder.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "plugin/core/bisect.h"
#include "plugin/core/kind_ops.h"
#include "plugin/core/ribbon_band.h"

namespace sstfilter {
namespace ribbon {
namespace {

using band::Band;
using band::LayerBand;
using band::LayerBuilder;
using band::LayerInput;

uint64_t StartsFor(double slots) {
  return static_cast<uint64_t>(std::ceil(std::max(slots, 1.0)));
}

size_t VarintBytes(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Slots from `from` up to and including the last filled one (the spill of
// the layers before it reaches < 64 slots past their last start).
uint64_t SpillExtent(const Band& band, uint64_t from) {
  const uint64_t end = std::min<uint64_t>(band.coeff.size(), from + kBlockSlots);
  for (uint64_t x = end; x > from; --x) {
    if (band.coeff[x - 1] != 0) return x - from;
  }
  return 0;
}

// Bands every layer for one seed into *band; *tail gets the filter's tail
// (slots after the last start). False when the last layer stays unsolvable
// after its growth steps.
//
// BuRR layers get ceil(slots_per_key * n) starts. The last (plain) layer
// gets starts for last_slots_per_key * n + last_extra_slots keys beyond the
// previous layer's spill, and last_growth_slots more per failure; the
// filter ends last_tail slots after its last start, not at a whole block:
// the last layer's rows are cut there (their bits past it would meet
// solution values fixed at zero), and range + tail covers the spill, so no
// key pivots past the end. A BuRR layer that bumps nothing is the last one; the tail
// then covers its spill.
bool BandLayers(const Tuning& tuning, uint64_t* hashes, size_t num_keys, uint32_t seed, Band* band,
                std::vector<LayerBand>* layers, uint64_t* tail) {
  layers->clear();
  band->coeff.clear();
  band->result.clear();
  // Room for the usual total (~1.001 n + 64 slots) so that growing the
  // band layer by layer never copies it (a copy would double its memory).
  const size_t capacity = num_keys + num_keys / 128 + 2 * kBlockSlots;
  band->coeff.reserve(capacity);
  band->result.reserve(capacity);
  LayerBuilder builder(tuning);
  std::vector<uint64_t> current, bumped;
  LayerInput in{hashes, num_keys, true, seed};
  uint64_t first_slot = 0;
  for (int j = 0; j < kMaxLayers; ++j) {
    layers->emplace_back();
    LayerBand& layer = layers->back();
    layer.first_slot = first_slot;
    if (in.num_keys >= tuning.min_burr_keys && j + 1 < kMaxLayers) {
      layer.start_range = StartsFor(tuning.slots_per_key * static_cast<double>(in.num_keys));
      bumped.clear();
      builder.BandBumped(in, band, &layer, &bumped);
      // Nothing bumped: this is the last layer and needs no codes.
      if (bumped.empty()) {
        layer.codes.clear();
        const uint64_t end = first_slot + layer.start_range;
        *tail = SpillExtent(*band, end);
        return true;
      }
      current.swap(bumped);
      in = LayerInput{current.data(), current.size(), false, 0};
      first_slot += layer.start_range;
      continue;
    }
    builder.ReleaseScratch();
    band->Reserve(first_slot + kBlockSlots);
    const uint64_t spill = static_cast<uint64_t>(
        std::count_if(band->coeff.begin() + static_cast<ptrdiff_t>(first_slot),
                      band->coeff.begin() + static_cast<ptrdiff_t>(first_slot + kBlockSlots),
                      [](uint64_t c) { return c != 0; }));
    const double need = static_cast<double>(spill) +
                        tuning.last_slots_per_key * static_cast<double>(in.num_keys) +
                        tuning.last_extra_slots;
    // S = first_slot + range + tail covers `need` and the spill.
    *tail = tuning.last_tail;
    const uint64_t cover =
        std::max(static_cast<uint64_t>(std::ceil(need)), SpillExtent(*band, first_slot));
    uint64_t range = cover > *tail ? cover - *tail : 1;
    for (int grow = 0; grow <= tuning.max_last_growth; ++grow, range += tuning.last_growth_slots) {
      layer.start_range = range;
      if (builder.BandAll(in, band, &layer, *tail)) return true;
    }
    return false;
  }
  return false;  // unreachable: layer kMaxLayers - 1 is always plain
}

// Sizes and column split of a filter with these layers in payload_bytes.
struct Layout {
  bool fits = false;
  uint64_t total_blocks = 0;
  uint64_t end_slots = 0;    // S
  uint32_t last_stride = 8;  // bytes per column of the last block
  uint64_t tail = 0;
  uint64_t meta_bytes = 0;
  uint64_t lower_blocks = 0;
  uint32_t r_lo = 0;

  uint64_t SolutionBytes() const {
    return ribbon::SolutionBytes(total_blocks, lower_blocks, r_lo, last_stride);
  }
};

// Header bytes beyond lower_blocks, tail and the ranges: version 3 keeps
// the bump thresholds there (version 2 in the trailer's params), unless a
// single layer has no codes to read them with.
bool HeaderHasThresholds(uint8_t version, int num_layers) {
  return version >= 3 && num_layers >= 2;
}

size_t ThresholdBytes(const Tuning& tuning, uint8_t version, int num_layers) {
  if (!HeaderHasThresholds(version, num_layers)) return 0;
  return VarintBytes(tuning.t1) + VarintBytes(tuning.t2);
}

Layout ComputeLayout(const uint64_t* ranges, const bool* has_codes, int num_layers,
                     int log_bucket, uint64_t tail, size_t threshold_bytes,
                     size_t payload_bytes) {
  Layout layout;
  // The length byte, tail, thresholds.
  size_t header_bytes = 1 + VarintBytes(tail) + threshold_bytes;
  uint64_t total_starts = 0;
  for (int j = 0; j < num_layers; ++j) {
    total_starts += ranges[j];
    header_bytes += VarintBytes(ranges[j]);
    if (has_codes[j]) layout.meta_bytes += (RibbonBuckets(ranges[j], log_bucket) + 3) / 4;
  }
  const RibbonEnd end = RibbonEndOf(total_starts, tail, true);
  layout.total_blocks = end.total_blocks;
  layout.end_slots = end.slots;
  layout.last_stride = end.last_stride;
  layout.tail = tail;
  header_bytes += VarintBytes(layout.total_blocks);  // lower_blocks <= total_blocks
  if (layout.meta_bytes + header_bytes > payload_bytes) return layout;
  // One column in every block costs column_bytes; the blocks with r_lo + 1
  // columns are the last ones, the partial last block first.
  const uint64_t avail = payload_bytes - layout.meta_bytes - header_bytes;
  const uint64_t column_bytes = 8 * (layout.total_blocks - 1) + layout.last_stride;
  layout.r_lo = static_cast<uint32_t>(std::min<uint64_t>(kMaxColumns - 1, avail / column_bytes));
  const uint64_t extra = avail - layout.r_lo * column_bytes;
  const uint64_t upper =
      extra < layout.last_stride
          ? 0
          : 1 + std::min(layout.total_blocks - 1, (extra - layout.last_stride) / 8);
  layout.lower_blocks = layout.total_blocks - upper;
  layout.fits = true;
  return layout;
}

// FP rate with every start equally likely to be a query's (the chained
// layers' starts cover every slot but the tail's).
double LayoutFpRate(const Layout& layout) {
  const uint64_t starts = layout.end_slots - layout.tail;
  const uint64_t lower_starts = std::min(starts, layout.lower_blocks * kBlockSlots);
  const double lower = static_cast<double>(lower_starts) / static_cast<double>(starts);
  return lower * std::ldexp(1.0, -static_cast<int>(layout.r_lo)) +
         (1.0 - lower) * std::ldexp(1.0, -static_cast<int>(layout.r_lo) - 1);
}

template <bool kPopcnt>
inline int Parity(uint64_t x) {
  if (kPopcnt) return __builtin_popcountll(x) & 1;
  return __builtin_parityll(x);
}

// Solves the band (all layers) into the payload, block by block from the end
// (RocksDB's InterleavedBackSubst, util/ribbon_alg.h): state[k] holds column
// k of the 64 slots after the current one, so each slot costs r_lo + 1
// parities. Columns of r_lo blocks beyond r_lo are computed but not stored:
// no stored value depends on them, since columns never decrease.
template <bool kPopcnt>
inline void BackSubstituteImpl(const Band& band, const Layout& layout, uint8_t* payload) {
  const uint32_t cols_hi = layout.r_lo + 1;
  uint64_t state[kMaxColumns] = {};
  for (uint64_t b = layout.total_blocks; b-- > 0;) {
    for (int i = kBlockSlots - 1; i >= 0; --i) {
      const uint64_t slot = b * kBlockSlots + static_cast<uint64_t>(i);
      const uint64_t c = band.coeff[slot] >> 1;
      const uint32_t f = band.result[slot];
      for (uint32_t k = 0; k < cols_hi; ++k) {
        const uint64_t bit = static_cast<uint64_t>(Parity<kPopcnt>(state[k] & c) ^ (f >> k)) & 1;
        state[k] = (state[k] << 1) | bit;
      }
    }
    const uint32_t cols = Columns(b, layout.lower_blocks, layout.r_lo);
    uint8_t* words = payload + 8 * WordOffset(b, layout.lower_blocks, layout.r_lo);
    if (b + 1 < layout.total_blocks) {
      for (uint32_t k = 0; k < cols; ++k) StoreWord(state[k], words + 8 * k);
      continue;
    }
    // The last block: its slots only (the bits past S are zero, from
    // empty rows), last_stride little-endian bytes per column.
    for (uint32_t k = 0; k < cols; ++k) {
      for (uint32_t i = 0; i < layout.last_stride; ++i) {
        words[layout.last_stride * k + i] = static_cast<uint8_t>(state[k] >> (8 * i));
      }
    }
  }
}

#if defined(__x86_64__) && !defined(__POPCNT__)
// Debian builds for baseline x86-64, where parity is ~6 instructions; with
// POPCNT (every x86-64 CPU since 2008-2011) it is 2. Chosen at run time.
__attribute__((target("popcnt"))) void BackSubstitutePopcnt(const Band& band, const Layout& layout,
                                                            uint8_t* payload) {
  BackSubstituteImpl<true>(band, layout, payload);
}
#endif

void BackSubstitute(const Band& band, const Layout& layout, uint8_t* payload) {
#if defined(__x86_64__) && !defined(__POPCNT__)
  static const bool has_popcnt = __builtin_cpu_supports("popcnt");
  if (has_popcnt) return BackSubstitutePopcnt(band, layout, payload);
  BackSubstituteImpl<false>(band, layout, payload);
#else
  BackSubstituteImpl<false>(band, layout, payload);
#endif
}

void WriteVarint(uint64_t v, uint8_t** p) {
  while (v >= 0x80) {
    *(*p)++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *(*p)++ = static_cast<uint8_t>(v);
}

void WriteFilter(Band* band, const std::vector<LayerBand>& layers, const Layout& layout,
                 const Tuning& tuning, uint8_t version, uint8_t* payload, size_t payload_bytes) {
  band->Reserve(layout.total_blocks * kBlockSlots);
  BackSubstitute(*band, layout, payload);
  uint8_t* meta = payload + layout.SolutionBytes();
  for (const LayerBand& layer : layers) {
    for (size_t u = 0; u < layer.codes.size(); ++u) {
      meta[u >> 2] |= static_cast<uint8_t>(layer.codes[u] << ((u & 3) * 2));
    }
    meta += (layer.codes.size() + 3) / 4;
  }
  uint8_t header[6 * (kMaxLayers + 2)];
  uint8_t* p = header;
  WriteVarint(layout.lower_blocks, &p);
  WriteVarint(layout.tail, &p);
  if (HeaderHasThresholds(version, static_cast<int>(layers.size()))) {
    WriteVarint(tuning.t1, &p);
    WriteVarint(tuning.t2, &p);
  }
  for (const LayerBand& layer : layers) WriteVarint(layer.start_range, &p);
  const size_t header_bytes = static_cast<size_t>(p - header);
  std::copy(header, p, payload + payload_bytes - 1 - header_bytes);
  payload[payload_bytes - 1] = static_cast<uint8_t>(header_bytes);
}

// Layout model. Layer j's keys fill about its R_j starts' worth of slots
// (chained layers: its spill out replaces the previous layer's spill in),
// so a BuRR layer bumps ~n_j - R_j keys, and every key but those in empty
// slots is stored: S = n + E slots, E the empty slots (layer 0's first
// bucket, density dips, the stream seam, the last layer's slack and tail).
// E is fitted to 60 filters at each of 300 .. 300K keys (this builder,
// last_tail 16): about normal, mean kEmptyBase (+ kEmptySeam with two
// streams) + kEmptyPerKey n, sd kEmptySdBase + kEmptySdPerRootKey sqrt(n)
// (measured e.g. 13.7 / 8.8 at 2000 keys, 31.7 / 21.7 at 10K, 171 / 55 at
// 100K, 465 / 77 at 300K, 1392 at 1M; BuildStats::total_slots - n); a
// single plain layer (< 256 keys) kEmptyPlain + kEmptyPlainPerKey n (6.4 at
// 100 keys, 10.7 at 200). The FP rate is averaged over that S: it moves the
// column split by a word at a time.
constexpr double kExpectedFill = 0.999;
constexpr double kEmptyBase = 10.0;
constexpr double kEmptySeam = 7.0;
constexpr double kEmptyPerKey = 0.0014;
constexpr double kEmptySdBase = 5.0;
constexpr double kEmptySdPerRootKey = 0.15;
constexpr double kEmptyPlain = 3.0;
constexpr double kEmptyPlainPerKey = 0.035;

// The layout with end_slots slots (at least what the expected layers need),
// layer ranges as expected for num_keys.
Layout ExpectedLayout(const Tuning& tuning, uint8_t version, size_t num_keys, uint64_t end_slots,
                      size_t payload_bytes) {
  uint64_t ranges[kMaxLayers];
  bool has_codes[kMaxLayers];
  double n = static_cast<double>(num_keys);
  uint64_t first_slot = 0;
  int num_layers = 0;
  uint64_t tail = 0;
  for (int j = 0; j < kMaxLayers; ++j) {
    ++num_layers;
    if (n >= static_cast<double>(tuning.min_burr_keys) && j + 1 < kMaxLayers) {
      ranges[j] = StartsFor(tuning.slots_per_key * n);
      has_codes[j] = true;
      n = std::max(0.0, n - kExpectedFill * static_cast<double>(ranges[j]));
      first_slot += ranges[j];
      if (n < 1.0) {
        has_codes[j] = false;
        tail = kBlockSlots / 2;  // the layer's spill
        break;
      }
      continue;
    }
    has_codes[j] = false;
    tail = tuning.last_tail;
    ranges[j] = end_slots > first_slot + tail ? end_slots - first_slot - tail : 1;
    break;
  }
  return ComputeLayout(ranges, has_codes, num_layers, tuning.log_bucket, tail,
                       ThresholdBytes(tuning, version, num_layers), payload_bytes);
}

// Expected FP rate over the distribution of S, each S's rate capped at
// `bloom_fp` (Build falls back to a standard Bloom filter where that is
// better: a Ribbon of one or two blocks loses bits per key to its codes,
// header and slack). 1.0 when the mean layout does not fit the payload.
double ExpectedFpRate(const Tuning& tuning, uint8_t version, size_t num_keys, size_t payload_bytes,
                      double bloom_fp) {
  const double n = static_cast<double>(num_keys);
  const bool two_streams =
      n >= static_cast<double>(tuning.min_burr_keys) &&
      RibbonBuckets(StartsFor(tuning.slots_per_key * n), tuning.log_bucket) >=
          2 * tuning.min_buckets_per_stream;
  // A single plain layer (fewer than min_burr_keys) only needs the slack of
  // a small dense system.
  const bool plain = n < static_cast<double>(tuning.min_burr_keys);
  const double mean =
      n + (plain ? kEmptyPlain + kEmptyPlainPerKey * n
                 : kEmptyBase + (two_streams ? kEmptySeam : 0.0) + kEmptyPerKey * n);
  const double sd = kEmptySdBase + (plain ? 0.0 : kEmptySdPerRootKey * std::sqrt(n));
  auto slots_at = [&](double z) {
    return static_cast<uint64_t>(std::max(1.0, std::ceil(mean + z * sd)));
  };
  if (!ExpectedLayout(tuning, version, num_keys, slots_at(0), payload_bytes).fits) return 1.0;
  // Normal quadrature on z = -2 .. 2 in steps of 0.5.
  double fp = 0, weight = 0;
  for (int i = -4; i <= 4; ++i) {
    const double z = 0.5 * i;
    const double p = std::exp(-0.5 * z * z);
    const Layout layout = ExpectedLayout(tuning, version, num_keys, slots_at(z), payload_bytes);
    fp += p * (layout.fits ? std::min(LayoutFpRate(layout), bloom_fp) : bloom_fp);
    weight += p;
  }
  return fp / weight;
}

void BuildBloomFallback(const FilterConfig& config, uint64_t* hashes, size_t num_keys,
                        uint8_t* payload, size_t payload_bytes, Trailer* trailer) {
  std::fill(payload, payload + payload_bytes, 0);
  BuildHashes all(hashes, num_keys);
  kStandardBloomOps.build(config, all, payload, payload_bytes, trailer);
  trailer->kind = FilterKind::kStandardBloom;
}

}  // namespace

void BuildRibbon(const Tuning& tuning, const FilterConfig& config, uint64_t* hashes,
                 size_t num_keys, uint8_t* payload, size_t payload_bytes, Trailer* trailer,
                 BuildStats* stats) {
  BuildStats local;
  BuildStats& st = stats != nullptr ? *stats : local;
  st = BuildStats();
  const double bloom_fp = kStandardBloomOps.predicted_fp_rate(config, num_keys, payload_bytes);
  const uint8_t version = WrittenVersion(config);
  if (config.bits_per_key < kMaxColumns &&
      ExpectedFpRate(tuning, version, num_keys, payload_bytes, bloom_fp) < bloom_fp) {
    Band band;
    std::vector<LayerBand> layers;
    for (int attempt = 0; attempt < tuning.max_seeds; ++attempt) {
      const uint32_t seed = static_cast<uint32_t>(attempt);
      st.seeds_tried = attempt + 1;
      uint64_t tail = 0;
      if (!BandLayers(tuning, hashes, num_keys, seed, &band, &layers, &tail)) continue;
      uint64_t ranges[kMaxLayers];
      bool has_codes[kMaxLayers];
      const int num_layers = static_cast<int>(layers.size());
      for (int j = 0; j < num_layers; ++j) {
        ranges[j] = layers[j].start_range;
        has_codes[j] = !layers[j].codes.empty();
      }
      const Layout layout = ComputeLayout(ranges, has_codes, num_layers, tuning.log_bucket, tail,
                                     ThresholdBytes(tuning, version, num_layers), payload_bytes);
      // Another seed would give about the same T.
      if (!layout.fits || LayoutFpRate(layout) >= bloom_fp) break;
      WriteFilter(&band, layers, layout, tuning, version, payload, payload_bytes);
      RibbonParams params;
      params.r_lo = layout.r_lo;
      params.num_layers = num_layers;
      params.log_bucket = tuning.log_bucket;
      // Version 3: the thresholds are in the header, the end is compact.
      params.t1 = version >= 3 ? 0 : tuning.t1;
      params.t2 = version >= 3 ? 0 : tuning.t2;
      params.compact_end = version < 3;
      trailer->kind = FilterKind::kRibbon;
      trailer->params = params.Encode();
      trailer->seed = static_cast<uint16_t>(seed);
      st.num_layers = num_layers;
      st.total_slots = layout.end_slots;
      st.empty_slots = static_cast<uint64_t>(
          std::count(band.coeff.begin(), band.coeff.begin() + st.total_slots, 0));
      for (int j = 0; j < num_layers; ++j) st.starts_in_layer[j] = ranges[j];
      return;
    }
  }
  st.fell_back = true;
  BuildBloomFallback(config, hashes, num_keys, payload, payload_bytes, trailer);
}

double PredictedFpRate(const Tuning& tuning, const FilterConfig& config, size_t num_keys,
                       size_t payload_bytes) {
  const double bloom_fp = kStandardBloomOps.predicted_fp_rate(config, num_keys, payload_bytes);
  if (config.bits_per_key >= kMaxColumns) return bloom_fp;
  const uint8_t version = WrittenVersion(config);
  return std::min(bloom_fp, ExpectedFpRate(tuning, version, num_keys, payload_bytes, bloom_fp));
}

}  // namespace ribbon

namespace {

size_t PayloadBytes(const FilterConfig& config, size_t num_keys) {
  const double bits = std::ceil(config.bits_per_key * static_cast<double>(num_keys));
  return static_cast<size_t>(std::ceil(bits / 8.0));
}

// The ops table's build: Ribbon sorts its hashes by bucket, so it gathers
// them into one array.
bool BuildFromHashes(const FilterConfig& config, BuildHashes& hashes, uint8_t* payload,
                     size_t payload_bytes, Trailer* trailer) {
  const size_t num_keys = hashes.size();
  ribbon::BuildRibbon(ribbon::Tuning(), config, hashes.Contiguous(), num_keys, payload,
                      payload_bytes, trailer, nullptr);
  return true;
}

double PredictedFp(const FilterConfig& config, size_t num_keys, size_t payload_bytes) {
  return ribbon::PredictedFpRate(ribbon::Tuning(), config, num_keys, payload_bytes);
}

// Inverse of the layout model at large n: a budget of b bits per key gives
// b / (1 + overhead) bits per slot, split between r_lo and r_lo + 1 columns.
// Searched numerically on a 1M-key layout, which is what sizes SST filters.
double BitsPerKeyForFp(const FilterConfig& config, double fp_rate) {
  constexpr size_t kKeys = 1000000;
  return Bisect(0.5, 200.0, 60, [&](double bits_per_key) {
           FilterConfig c = config;
           c.bits_per_key = bits_per_key;
           return PredictedFp(c, kKeys, PayloadBytes(c, kKeys)) <= fp_rate;
         }).second;
}

}  // namespace

// Build holds the band beside the hashes: a 12-byte row per slot (~1.0
// slot per key) and per-bucket state.
constexpr double kBandBytesPerKey = 13.5;

const KindOps kRibbonOps = {PayloadBytes, BuildFromHashes, PredictedFp, BitsPerKeyForFp,
                            /*payload_granularity_bytes=*/1,
                            /*scratch_bytes_per_key=*/kBandBytesPerKey};

}  // namespace sstfilter
