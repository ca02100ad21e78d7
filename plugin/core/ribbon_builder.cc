// Builder side of the bumped Ribbon filter (kind 5; essay in ribbon.h).
//
// Per attempt (seed): layers are banded one after another, each from the
// keys the previous one bumped; only then is the column split known (it
// depends on the total slot count), so every layer keeps its band until the
// solution is back-substituted straight into the payload.
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

using band::LayerBand;
using band::LayerBuilder;
using band::LayerInput;

uint64_t RoundUpToBlocks(double slots) {
  const uint64_t s = static_cast<uint64_t>(std::ceil(std::max(slots, 1.0)));
  return (s + kBlockSlots - 1) / kBlockSlots;
}

size_t VarintBytes(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Bands every layer for one seed. False when the last layer stays
// unsolvable after its growth steps.
bool BandLayers(const Tuning& t, uint64_t* hashes, size_t num_keys, uint32_t seed,
                std::vector<LayerBand>* layers) {
  layers->clear();
  LayerBuilder builder(t);
  std::vector<uint64_t> current, bumped;
  LayerInput in{hashes, num_keys, true, seed};
  for (int j = 0; j < kMaxLayers; ++j) {
    layers->emplace_back();
    LayerBand& band = layers->back();
    if (in.num_keys >= t.min_burr_keys && j + 1 < kMaxLayers) {
      band.num_blocks = RoundUpToBlocks(t.slots_per_key * static_cast<double>(in.num_keys));
      bumped.clear();
      builder.BandBumped(in, &band, &bumped);
      // Nothing bumped: this is the last layer and needs no codes.
      if (bumped.empty()) {
        band.codes.clear();
        return true;
      }
      current.swap(bumped);
      in = LayerInput{current.data(), current.size(), false, 0};
      continue;
    }
    builder.ReleaseScratch();
    band.num_blocks = RoundUpToBlocks(t.last_slots_per_key * static_cast<double>(in.num_keys) +
                                      t.last_extra_slots);
    for (int grow = 0; grow <= t.max_last_growth; ++grow, ++band.num_blocks) {
      if (builder.BandAll(in, &band)) return true;
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

Layout ComputeLayout(const uint64_t* blocks, const bool* has_codes, int num_layers,
                     int log_bucket, size_t payload_bytes) {
  Layout l;
  size_t header_bytes = 1;  // the length byte
  for (int j = 0; j < num_layers; ++j) {
    l.total_blocks += blocks[j];
    header_bytes += VarintBytes(blocks[j]);
    if (has_codes[j]) {
      l.meta_bytes +=
          (RibbonBuckets(blocks[j] * kBlockSlots - (kBlockSlots - 1), log_bucket) + 3) / 4;
    }
  }
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

// Solves one layer's band into the payload, block by block from the end
// (RocksDB's InterleavedBackSubst, util/ribbon_alg.h): state[k] holds column
// k of the 64 slots after the current one, so each slot costs r_lo + 1
// parities. Columns of r_lo blocks beyond r_lo are computed but not stored:
// no stored value depends on them, since columns never decrease.
template <bool kPopcnt>
inline void BackSubstituteImpl(const LayerBand& band, uint64_t first_block, const Layout& l,
                               uint8_t* payload) {
  const uint32_t cols_hi = l.r_lo + 1;
  uint64_t state[kMaxColumns] = {};
  for (uint64_t b = band.num_blocks; b-- > 0;) {
    for (int i = kBlockSlots - 1; i >= 0; --i) {
      const uint64_t slot = b * kBlockSlots + static_cast<uint64_t>(i);
      const uint64_t c = band.coeff[slot] >> 1;
      const uint32_t f = band.result[slot];
      for (uint32_t k = 0; k < cols_hi; ++k) {
        const uint64_t bit = static_cast<uint64_t>(Parity<kPopcnt>(state[k] & c) ^ (f >> k)) & 1;
        state[k] = (state[k] << 1) | bit;
      }
    }
    const uint64_t x = first_block + b;
    const uint32_t cols = l.r_lo + (x >= l.lower_blocks ? 1 : 0);
    uint8_t* words = payload + 8 * WordOffset(x, l.lower_blocks, l.r_lo);
    for (uint32_t k = 0; k < cols; ++k) StoreWord(state[k], words + 8 * k);
  }
}

#if defined(__x86_64__) && !defined(__POPCNT__)
// Debian builds for baseline x86-64, where parity is ~6 instructions; with
// POPCNT (every x86-64 CPU since 2008-2011) it is 2. Chosen at run time.
__attribute__((target("popcnt"))) void BackSubstitutePopcnt(const LayerBand& band,
                                                            uint64_t first_block,
                                                            const Layout& l, uint8_t* payload) {
  BackSubstituteImpl<true>(band, first_block, l, payload);
}
#endif

void BackSubstitute(const LayerBand& band, uint64_t first_block, const Layout& l,
                    uint8_t* payload) {
#if defined(__x86_64__) && !defined(__POPCNT__)
  static const bool has_popcnt = __builtin_cpu_supports("popcnt");
  if (has_popcnt) return BackSubstitutePopcnt(band, first_block, l, payload);
  BackSubstituteImpl<false>(band, first_block, l, payload);
#else
  BackSubstituteImpl<false>(band, first_block, l, payload);
#endif
}

void WriteVarint(uint64_t v, uint8_t** p) {
  while (v >= 0x80) {
    *(*p)++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *(*p)++ = static_cast<uint8_t>(v);
}

void WriteFilter(const std::vector<LayerBand>& layers, const Layout& l,
                 uint8_t* payload, size_t payload_bytes) {
  uint64_t first_block = 0;
  for (const LayerBand& band : layers) {
    BackSubstitute(band, first_block, l, payload);
    first_block += band.num_blocks;
  }
  uint8_t* meta = payload + 8 * WordOffset(l.total_blocks, l.lower_blocks, l.r_lo);
  for (const LayerBand& band : layers) {
    for (size_t u = 0; u < band.codes.size(); ++u) {
      meta[u >> 2] |= static_cast<uint8_t>(band.codes[u] << ((u & 3) * 2));
    }
    meta += (band.codes.size() + 3) / 4;
  }
  uint8_t header[6 * (kMaxLayers + 1)];
  uint8_t* p = header;
  WriteVarint(l.lower_blocks, &p);
  for (const LayerBand& band : layers) WriteVarint(band.num_blocks, &p);
  const size_t header_bytes = static_cast<size_t>(p - header);
  std::copy(header, p, payload + payload_bytes - 1 - header_bytes);
  payload[payload_bytes - 1] = static_cast<uint8_t>(header_bytes);
}

// Expected layer sizes for num_keys: layer loads as configured, a BuRR layer
// filling `kExpectedFill` of its slots (measured, see ribbon.h) and bumping
// the rest.
constexpr double kExpectedFill = 0.999;

Layout ExpectedLayout(const Tuning& t, size_t num_keys, size_t payload_bytes) {
  uint64_t blocks[kMaxLayers];
  bool has_codes[kMaxLayers];
  double n = static_cast<double>(num_keys);
  int num_layers = 0;
  for (int j = 0; j < kMaxLayers; ++j) {
    ++num_layers;
    if (n >= static_cast<double>(t.min_burr_keys) && j + 1 < kMaxLayers) {
      blocks[j] = RoundUpToBlocks(t.slots_per_key * n);
      has_codes[j] = true;
      n = std::max(0.0, n - kExpectedFill * static_cast<double>(blocks[j] * kBlockSlots));
      if (n < 1.0) {
        has_codes[j] = false;
        break;
      }
      continue;
    }
    blocks[j] = RoundUpToBlocks(t.last_slots_per_key * n + t.last_extra_slots);
    has_codes[j] = false;
    break;
  }
  return ComputeLayout(blocks, has_codes, num_layers, t.log_bucket, payload_bytes);
}

// A Ribbon this small (a few blocks) can lose to a Bloom filter of the same
// size: block granularity and the last layer's slack cost whole bits per key.
bool RibbonIsWorthIt(const Tuning& t, const FilterConfig& config, size_t num_keys,
                     size_t payload_bytes, Layout* expected) {
  *expected = ExpectedLayout(t, num_keys, payload_bytes);
  if (!expected->fits || config.bits_per_key >= kMaxColumns) return false;
  return LayoutFpRate(*expected) <
         kStandardBloomOps.predicted_fp_rate(config, num_keys, payload_bytes);
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
  Layout expected;
  if (RibbonIsWorthIt(t, config, num_keys, payload_bytes, &expected)) {
    std::vector<LayerBand> layers;
    for (int attempt = 0; attempt < t.max_seeds; ++attempt) {
      const uint32_t seed = static_cast<uint32_t>(attempt);
      st.seeds_tried = attempt + 1;
      if (!BandLayers(t, hashes, num_keys, seed, &layers)) continue;
      uint64_t blocks[kMaxLayers];
      bool has_codes[kMaxLayers];
      const int num_layers = static_cast<int>(layers.size());
      for (int j = 0; j < num_layers; ++j) {
        blocks[j] = layers[j].num_blocks;
        has_codes[j] = !layers[j].codes.empty();
      }
      const Layout l = ComputeLayout(blocks, has_codes, num_layers, t.log_bucket, payload_bytes);
      if (!l.fits) continue;
      WriteFilter(layers, l, payload, payload_bytes);
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
      for (int j = 0; j < num_layers; ++j) {
        st.slots_in_layer[j] = blocks[j] * kBlockSlots;
        st.empty_in_layer[j] = static_cast<uint64_t>(
            std::count(layers[j].coeff.begin(), layers[j].coeff.end(), 0));
        st.total_slots += blocks[j] * kBlockSlots;
      }
      return;
    }
  }
  st.fell_back = true;
  BuildBloomFallback(config, hashes, num_keys, payload, payload_bytes, trailer);
}

double PredictedFpRate(const Tuning& t, const FilterConfig& config, size_t num_keys,
                       size_t payload_bytes) {
  Layout expected;
  if (RibbonIsWorthIt(t, config, num_keys, payload_bytes, &expected)) {
    return LayoutFpRate(expected);
  }
  return kStandardBloomOps.predicted_fp_rate(config, num_keys, payload_bytes);
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

// No streaming build: Ribbon sorts its hashes in place, so it needs them
// contiguous (FilterBuilder gathers them from the chunks).
const KindOps kRibbonOps = {PayloadBytes, Build, PredictedFp, BitsPerKeyForFp, nullptr};

}  // namespace sstfilter
