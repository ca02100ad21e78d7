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

// Bands every layer for one seed into *band. False when the last layer
// stays unsolvable after its growth steps.
//
// BuRR layers get ceil(slots_per_key * n) starts. The last (plain) layer
// gets every start up to the end of the smallest whole number of blocks
// that leaves it last_slots_per_key * n + last_extra_slots free slots, and
// a block more per failure: the filter's block count T is all that sets the
// FP rate, so the last layer takes whatever T leaves.
bool BandLayers(const Tuning& t, uint64_t* hashes, size_t num_keys, uint32_t seed, Band* band,
                std::vector<LayerBand>* layers) {
  layers->clear();
  band->coeff.clear();
  band->result.clear();
  // Room for the usual total (~1.001 n + 64 slots) so that growing the
  // band layer by layer never copies it (a copy would double its memory).
  const size_t capacity = num_keys + num_keys / 128 + 2 * kBlockSlots;
  band->coeff.reserve(capacity);
  band->result.reserve(capacity);
  LayerBuilder builder(t);
  std::vector<uint64_t> current, bumped;
  LayerInput in{hashes, num_keys, true, seed};
  uint64_t first_slot = 0;
  for (int j = 0; j < kMaxLayers; ++j) {
    layers->emplace_back();
    LayerBand& layer = layers->back();
    layer.first_slot = first_slot;
    if (in.num_keys >= t.min_burr_keys && j + 1 < kMaxLayers) {
      layer.start_range = StartsFor(t.slots_per_key * static_cast<double>(in.num_keys));
      bumped.clear();
      builder.BandBumped(in, band, &layer, &bumped);
      // Nothing bumped: this is the last layer and needs no codes.
      if (bumped.empty()) {
        layer.codes.clear();
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
    const double need = static_cast<double>(first_slot + spill) +
                        t.last_slots_per_key * static_cast<double>(in.num_keys) +
                        t.last_extra_slots;
    // Smallest T whose slots cover `need`, and at least one start.
    uint64_t blocks = std::max(static_cast<uint64_t>(std::ceil(need / kBlockSlots)),
                               RibbonTotalBlocks(first_slot + 1));
    for (int grow = 0; grow <= t.max_last_growth; ++grow, ++blocks) {
      layer.start_range = blocks * kBlockSlots - (kBlockSlots - 1) - first_slot;
      if (builder.BandAll(in, band, &layer)) return true;
    }
    return false;
  }
  return false;  // unreachable: layer kMaxLayers - 1 is always plain
}

// Sizes and column split of a filter with these layers in payload_bytes.
struct Layout {
  bool fits = false;
  uint64_t total_blocks = 0;
  uint64_t meta_bytes = 0;
  uint64_t lower_blocks = 0;
  uint32_t r_lo = 0;
};

Layout ComputeLayout(const uint64_t* ranges, const bool* has_codes, int num_layers,
                     int log_bucket, size_t payload_bytes) {
  Layout l;
  size_t header_bytes = 1;  // the length byte
  uint64_t total_starts = 0;
  for (int j = 0; j < num_layers; ++j) {
    total_starts += ranges[j];
    header_bytes += VarintBytes(ranges[j]);
    if (has_codes[j]) l.meta_bytes += (RibbonBuckets(ranges[j], log_bucket) + 3) / 4;
  }
  l.total_blocks = RibbonTotalBlocks(total_starts);
  header_bytes += VarintBytes(l.total_blocks);  // lower_blocks <= total_blocks
  if (l.meta_bytes + header_bytes > payload_bytes) return l;
  const uint64_t words = (payload_bytes - l.meta_bytes - header_bytes) / 8;
  l.r_lo = static_cast<uint32_t>(std::min<uint64_t>(kMaxColumns - 1, words / l.total_blocks));
  const uint64_t upper = std::min(l.total_blocks, words - l.r_lo * l.total_blocks);
  l.lower_blocks = l.total_blocks - upper;
  l.fits = true;
  return l;
}

double LayoutFpRate(const Layout& l) {
  const double lower = static_cast<double>(l.lower_blocks) / static_cast<double>(l.total_blocks);
  return lower * std::ldexp(1.0, -static_cast<int>(l.r_lo)) +
         (1.0 - lower) * std::ldexp(1.0, -static_cast<int>(l.r_lo) - 1);
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
inline void BackSubstituteImpl(const Band& band, const Layout& l, uint8_t* payload) {
  const uint32_t cols_hi = l.r_lo + 1;
  uint64_t state[kMaxColumns] = {};
  for (uint64_t b = l.total_blocks; b-- > 0;) {
    for (int i = kBlockSlots - 1; i >= 0; --i) {
      const uint64_t slot = b * kBlockSlots + static_cast<uint64_t>(i);
      const uint64_t c = band.coeff[slot] >> 1;
      const uint32_t f = band.result[slot];
      for (uint32_t k = 0; k < cols_hi; ++k) {
        const uint64_t bit = static_cast<uint64_t>(Parity<kPopcnt>(state[k] & c) ^ (f >> k)) & 1;
        state[k] = (state[k] << 1) | bit;
      }
    }
    const uint64_t x = b;
    const uint32_t cols = l.r_lo + (x >= l.lower_blocks ? 1 : 0);
    uint8_t* words = payload + 8 * WordOffset(x, l.lower_blocks, l.r_lo);
    for (uint32_t k = 0; k < cols; ++k) StoreWord(state[k], words + 8 * k);
  }
}

#if defined(__x86_64__) && !defined(__POPCNT__)
// Debian builds for baseline x86-64, where parity is ~6 instructions; with
// POPCNT (every x86-64 CPU since 2008-2011) it is 2. Chosen at run time.
__attribute__((target("popcnt"))) void BackSubstitutePopcnt(const Band& band,
                                                            const Layout& l, uint8_t* payload) {
  BackSubstituteImpl<true>(band, l, payload);
}
#endif

void BackSubstitute(const Band& band, const Layout& l, uint8_t* payload) {
#if defined(__x86_64__) && !defined(__POPCNT__)
  static const bool has_popcnt = __builtin_cpu_supports("popcnt");
  if (has_popcnt) return BackSubstitutePopcnt(band, l, payload);
  BackSubstituteImpl<false>(band, l, payload);
#else
  BackSubstituteImpl<false>(band, l, payload);
#endif
}

void WriteVarint(uint64_t v, uint8_t** p) {
  while (v >= 0x80) {
    *(*p)++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *(*p)++ = static_cast<uint8_t>(v);
}

void WriteFilter(Band* band, const std::vector<LayerBand>& layers, const Layout& l,
                 uint8_t* payload, size_t payload_bytes) {
  band->Reserve(l.total_blocks * kBlockSlots);
  BackSubstitute(*band, l, payload);
  uint8_t* meta = payload + 8 * WordOffset(l.total_blocks, l.lower_blocks, l.r_lo);
  for (const LayerBand& layer : layers) {
    for (size_t u = 0; u < layer.codes.size(); ++u) {
      meta[u >> 2] |= static_cast<uint8_t>(layer.codes[u] << ((u & 3) * 2));
    }
    meta += (layer.codes.size() + 3) / 4;
  }
  uint8_t header[6 * (kMaxLayers + 1)];
  uint8_t* p = header;
  WriteVarint(l.lower_blocks, &p);
  for (const LayerBand& layer : layers) WriteVarint(layer.start_range, &p);
  const size_t header_bytes = static_cast<size_t>(p - header);
  std::copy(header, p, payload + payload_bytes - 1 - header_bytes);
  payload[payload_bytes - 1] = static_cast<uint8_t>(header_bytes);
}

// Layout model. Layer j's keys fill about its R_j starts' worth of slots
// (chained layers: its spill out replaces the previous layer's spill in),
// so a BuRR layer bumps ~n_j - R_j keys, and every key but those in empty
// slots is stored: T = ceil((n + E) / 64), E the empty slots needed
// (layer 0's first bucket, density dips, the stream seam, the last layer's
// slack). Beyond one plain layer, E is fitted to the T of 40 filters each at 700 .. 300K keys:
// about normal, mean kEmptyBase (+ kEmptySeam with two streams) +
// kEmptyPerKey n, sd 3 + 0.1 sqrt(n). The model averages the FP rate over
// the T that E gives: T alone sets the column split, and one block more is
// 1/T of the payload (1.6% at 4000 keys).
constexpr double kExpectedFill = 0.999;
constexpr double kEmptyBase = 14.0;
constexpr double kEmptySeam = 16.0;
constexpr double kEmptyPerKey = 0.00073;
constexpr double kEmptyPlain = 3.0;

// The layout with `total_blocks` blocks (0: the fewest that hold the
// expected layers), layer ranges as expected for num_keys.
Layout ExpectedLayout(const Tuning& t, size_t num_keys, uint64_t total_blocks,
                      size_t payload_bytes) {
  uint64_t ranges[kMaxLayers];
  bool has_codes[kMaxLayers];
  double n = static_cast<double>(num_keys);
  uint64_t first_slot = 0;
  int num_layers = 0;
  for (int j = 0; j < kMaxLayers; ++j) {
    ++num_layers;
    if (n >= static_cast<double>(t.min_burr_keys) && j + 1 < kMaxLayers) {
      ranges[j] = StartsFor(t.slots_per_key * n);
      has_codes[j] = true;
      n = std::max(0.0, n - kExpectedFill * static_cast<double>(ranges[j]));
      first_slot += ranges[j];
      if (n < 1.0) {
        has_codes[j] = false;
        break;
      }
      continue;
    }
    has_codes[j] = false;
    const uint64_t min_blocks = RibbonTotalBlocks(first_slot + 1);
    ranges[j] = std::max(total_blocks, min_blocks) * kBlockSlots - (kBlockSlots - 1) - first_slot;
    break;
  }
  return ComputeLayout(ranges, has_codes, num_layers, t.log_bucket, payload_bytes);
}

// Expected FP rate over the distribution of T, each T's rate capped at
// `bloom_fp` (Build falls back to a standard Bloom filter where that is
// better: a Ribbon of a few blocks loses whole bits per key to a block
// more). 1.0 when the likeliest layout does not fit the payload.
double ExpectedFpRate(const Tuning& t, size_t num_keys, size_t payload_bytes, double bloom_fp) {
  const double n = static_cast<double>(num_keys);
  const bool two_streams =
      n >= static_cast<double>(t.min_burr_keys) &&
      RibbonBuckets(StartsFor(t.slots_per_key * n), t.log_bucket) >= 2 * t.min_buckets_per_stream;
  // A single plain layer (fewer than min_burr_keys) only needs the slack of
  // a small dense system: a few slots (60 keys fit one block).
  const bool plain = n < static_cast<double>(t.min_burr_keys);
  const double mean =
      n + (plain ? kEmptyPlain : kEmptyBase + (two_streams ? kEmptySeam : 0.0) + kEmptyPerKey * n);
  const double sd = plain ? 3.0 : 3.0 + 0.1 * std::sqrt(n);
  const uint64_t likeliest = static_cast<uint64_t>(std::ceil(mean / kBlockSlots));
  if (!ExpectedLayout(t, num_keys, likeliest, payload_bytes).fits) return 1.0;
  auto cdf = [&](double x) { return 0.5 * std::erfc((mean - x) / (sd * std::sqrt(2.0))); };
  double fp = 0, weight = 0;
  const uint64_t lo = likeliest > 4 ? likeliest - 4 : 1;
  for (uint64_t blocks = lo; blocks <= likeliest + 4; ++blocks) {
    // P(64 (blocks - 1) < n + E <= 64 blocks); the lowest T takes the tail.
    const double p = cdf(64.0 * blocks) - (blocks == lo ? 0.0 : cdf(64.0 * (blocks - 1)));
    if (p <= 0) continue;
    const Layout l = ExpectedLayout(t, num_keys, blocks, payload_bytes);
    fp += p * (l.fits ? std::min(LayoutFpRate(l), bloom_fp) : bloom_fp);
    weight += p;
  }
  return weight > 0 ? fp / weight : 1.0;
}

void BuildBloomFallback(const FilterConfig& config, uint64_t* hashes, size_t num_keys,
                        uint8_t* payload, size_t payload_bytes, Trailer* trailer) {
  std::fill(payload, payload + payload_bytes, 0);
  kStandardBloomOps.build(config, hashes, num_keys, payload, payload_bytes, trailer);
  trailer->kind = FilterKind::kStandardBloom;
}

}  // namespace

void Build(const Tuning& t, const FilterConfig& config, uint64_t* hashes,
           size_t num_keys, uint8_t* payload, size_t payload_bytes, Trailer* trailer,
           BuildStats* stats) {
  BuildStats local;
  BuildStats& st = stats != nullptr ? *stats : local;
  st = BuildStats();
  const double bloom_fp = kStandardBloomOps.predicted_fp_rate(config, num_keys, payload_bytes);
  if (config.bits_per_key < kMaxColumns &&
      ExpectedFpRate(t, num_keys, payload_bytes, bloom_fp) < bloom_fp) {
    Band band;
    std::vector<LayerBand> layers;
    for (int attempt = 0; attempt < t.max_seeds; ++attempt) {
      const uint32_t seed = static_cast<uint32_t>(attempt);
      st.seeds_tried = attempt + 1;
      if (!BandLayers(t, hashes, num_keys, seed, &band, &layers)) continue;
      uint64_t ranges[kMaxLayers];
      bool has_codes[kMaxLayers];
      const int num_layers = static_cast<int>(layers.size());
      for (int j = 0; j < num_layers; ++j) {
        ranges[j] = layers[j].start_range;
        has_codes[j] = !layers[j].codes.empty();
      }
      const Layout l = ComputeLayout(ranges, has_codes, num_layers, t.log_bucket, payload_bytes);
      // Another seed would give about the same T.
      if (!l.fits || LayoutFpRate(l) >= bloom_fp) break;
      WriteFilter(&band, layers, l, payload, payload_bytes);
      RibbonParams params;
      params.r_lo = l.r_lo;
      params.num_layers = num_layers;
      params.log_bucket = t.log_bucket;
      params.t1 = t.t1;
      params.t2 = t.t2;
      trailer->kind = FilterKind::kRibbon;
      trailer->params = params.Encode();
      trailer->seed = static_cast<uint16_t>(seed);
      st.num_layers = num_layers;
      st.total_slots = l.total_blocks * kBlockSlots;
      st.empty_slots = static_cast<uint64_t>(
          std::count(band.coeff.begin(), band.coeff.begin() + st.total_slots, 0));
      for (int j = 0; j < num_layers; ++j) st.starts_in_layer[j] = ranges[j];
      return;
    }
  }
  st.fell_back = true;
  BuildBloomFallback(config, hashes, num_keys, payload, payload_bytes, trailer);
}

double PredictedFpRate(const Tuning& t, const FilterConfig& config, size_t num_keys,
                       size_t payload_bytes) {
  const double bloom_fp = kStandardBloomOps.predicted_fp_rate(config, num_keys, payload_bytes);
  if (config.bits_per_key >= kMaxColumns) return bloom_fp;
  return std::min(bloom_fp, ExpectedFpRate(t, num_keys, payload_bytes, bloom_fp));
}

}  // namespace ribbon

namespace {

size_t PayloadBytes(const FilterConfig& config, size_t num_keys) {
  const double bits = std::ceil(config.bits_per_key * static_cast<double>(num_keys));
  return static_cast<size_t>(std::ceil(bits / 8.0));
}

bool Build(const FilterConfig& config, uint64_t* hashes, size_t num_keys, uint8_t* payload,
           size_t payload_bytes, Trailer* trailer) {
  ribbon::Build(ribbon::Tuning(), config, hashes, num_keys, payload, payload_bytes, trailer,
                nullptr);
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
  double lo = 0.5, hi = 200.0;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    FilterConfig c = config;
    c.bits_per_key = mid;
    if (PredictedFp(c, kKeys, PayloadBytes(c, kKeys)) <= fp_rate) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return hi;
}

}  // namespace

// No streaming build: Ribbon sorts its hashes (reorders them), so it needs them
// contiguous (FilterBuilder gathers them from the chunks).
const KindOps kRibbonOps = {PayloadBytes, Build, PredictedFp, BitsPerKeyForFp, nullptr};

}  // namespace sstfilter
