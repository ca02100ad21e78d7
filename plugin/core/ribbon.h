// Ribbon filter with bumping (kind 5): a static filter that stores an r-bit
// fingerprint per key in about r * (1 + 0.5%) bits, against ~1.44 r for a
// Bloom filter and ~1.05 r for RocksDB's Standard128Ribbon.
//
// Ribbon (Dillinger & Walzer, "Ribbon filter: practically smaller than
// Bloom and Xor", arXiv:2103.02515): every key gets a start slot s, a
// 64-bit coefficient row c (bit 0 set) and an r-bit fingerprint f. The filter
// stores an r-bit solution row S[i] per slot such that for every key
//   XOR over set bits j of c of S[s + j]  ==  f,
// found by on-the-fly Gaussian elimination over GF(2) on a band of width
// w = 64 (Dietzfelbinger & Walzer, ESA 2019). A query recomputes the XOR and
// compares: an absent key matches with probability 2^-r.
//
// Bumping (BuRR: Dillinger, Hübschle-Schneider, Sanders, Walzer, "Fast
// Succinct Retrieval and Approximate Membership using Ribbon", SEA 2022,
// arXiv:2109.01892; reference code github.com/lorenzhs/BuRR): a standard
// Ribbon needs ~5-10% spare slots at w = 64 or the system becomes
// unsolvable. BuRR instead overloads a layer (0.95 slots per key here),
// splits it into buckets of B = 128 start positions, and inserts bucket by
// bucket, high offsets first. Where insertion fails, the keys with the
// lowest offsets of that bucket are "bumped" to the next, ~20x smaller
// layer; a 2-bit code per bucket records the threshold (bump none / offset
// < t1 / offset < t2 / all; t1 = 16, t2 = 36 from BuRR's rule for
// eps = -0.05). A query reads the code and either answers from this layer or
// moves on. Layers of < 256 keys are plain Ribbons.
//
// Chained layers: all layers share one slot array, layer j + 1's start
// positions beginning right after layer j's (R_j = 0.95 n_j of them, any
// number, not whole blocks), so a layer's last keys spill into the next
// layer's first slots. With separate layers of whole blocks, each layer's
// tail and the last layer's rounding left 40-100 slots empty: at 4000 keys,
// 10 bits/key, 3.4% overhead instead of 1.4%.
//
// Compact end (always in format version 3; params bit 31 in version 2):
// the filter ends where its keys do, not at a whole block. It has S = sum
// R + tail slots; the last (plain) layer keeps a 16-slot tail after its
// last start and cuts its rows at S (their bits past S meet solution
// values fixed at zero), and the last block stores
// only its own slots, ceil(m / 8) bytes per column. Ending at a whole block
// instead would leave the last row's 63-slot reach as the tail, which only
// spill fills, and round n + ~15 empty slots up to a whole block: 2000 keys
// would take 2048 slots (2.4% empty) against ~2014 (0.7%), and 10K keys
// 10048 or 10112 slots against ~10032.
//
// Measured (filter_bench, 1M keys, a 2-vCPU AMD EPYC VM): 1.0014 slots per key,
// 0.016 bits per key of codes; overhead over log2(1/FP) of 0.2-0.8% at
// 4-20 bits/key (rocksdb.Ribbon at the same memory: 5-8%). Small filters
// pay more for codes, header, empty slots and trailer: the overhead by
// filter size is in docs/BENCHMARKS.md.
//
// Fractional bits per key: the solution is stored interleaved in blocks of
// 64 slots (RocksDB's InterleavedSolutionStorage, util/ribbon_impl.h): a
// block is `cols` little-endian 64-bit words, word k holding bit k of the 64
// slots' solution rows. The first `lower_blocks` blocks (global numbering
// over all layers) have r_lo columns, the rest r_lo + 1. Columns never
// decrease along the slot order, so a key's pivot slot (>= its start) always
// has at least the key's columns: any split is solvable. A key in an r-column
// block matches with probability 2^-r, so the FP rate interpolates between
// 2^-r_lo and 2^-(r_lo+1) and every bit of the budget is used, including at
// integer bits per key (where ~1% of slot overhead means a few r_lo blocks).
//
// Query: one 2-bit code (a small array, ~1/(64 r) of the filter) and two
// adjacent blocks: 16 r bytes, e.g. 64 bytes at r = 4, 128 at r = 8; a
// negative query usually stops at the first or second column. About 5% of
// absent keys continue to a second layer. Query and build times against
// rocksdb.Ribbon at the same memory: docs/BENCHMARKS.md
// (bench/ribbon_vs_rocksdb.sh).
//
// Construction (ribbon_builder.cc, ribbon_band.h): a counting sort of the
// hashes by bump group (bucket, offset < t1 | < t2 | rest), scattered into
// the band's still-empty slots and copied back (no extra memory), then
// banding bucket by bucket with lead control (a bucket bumps its lowest
// groups before its spill grows past 40 slots; a limit of 48 measured 16
// elimination steps per key against BuRR's ~21 at 0.95 slots per key, 40
// fewer still) and the layer's two halves interleaved (two independent
// dependency chains). Temporary memory: ~21-22 bytes per key including
// the 8-byte hashes, against ~27-29 for rocksdb.Ribbon (docs/BENCHMARKS.md).
//
// Kernel contracts: all functions take the filter hash g (already seeded) of
// one layer; `data` points at the payload, which the reader validated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "plugin/core/format.h"
#include "plugin/core/hash.h"
#include "plugin/core/little_endian.h"
#include "plugin/core/prefetch.h"

namespace sstfilter {
namespace ribbon {

constexpr int kBlockSlots = 64;   // w: coefficient bits = slots per block
constexpr int kMaxColumns = 32;   // fingerprints are 32 bits; r_lo <= 31
constexpr int kMaxLayers = 15;    // 4 bits in params
constexpr int kMinLogBucket = 6;  // bucket sizes 64 .. 512 start positions
constexpr int kMaxLogBucket = 9;

// The coefficient row: any odd multiplier is a bijection, so distinct g give
// distinct rows; bit 0 is forced (the row starts at its start slot).
inline uint64_t CoeffRow(uint64_t g) { return (g * 0x9E3779B97F4A7C15ULL) | 1; }

// 32-bit fingerprint; a block with k columns compares its low k bits. Mixed
// separately from CoeffRow so that equal rows do not imply equal prints.
inline uint32_t Fingerprint(uint64_t g) {
  return static_cast<uint32_t>(((g ^ (g >> 29)) * 0xD6E8FEB86659FD93ULL) >> 32);
}

// Hash of a bumped key in the next layer: splitmix64's finalizer (a
// bijection) after a layer-independent offset, so its positions there are
// fresh and independent of this layer's.
inline uint64_t NextLayerHash(uint64_t g) { return Mix64(g + kGoldenGamma); }

inline uint64_t LoadWord(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

inline void StoreWord(uint64_t v, uint8_t* p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  std::memcpy(p, &v, sizeof(v));
}

// Word offset of global block x: r_lo words per block, one more from
// lower_blocks on.
inline uint64_t WordOffset(uint64_t x, uint64_t lower_blocks, uint32_t r_lo) {
  return x * r_lo + (x > lower_blocks ? x - lower_blocks : 0);
}

// Columns of global block x: r_lo, or r_lo + 1 from lower_blocks on.
inline uint32_t Columns(uint64_t x, uint64_t lower_blocks, uint32_t r_lo) {
  return r_lo + (x >= lower_blocks ? 1 : 0);
}

// Bytes of the solution of total_blocks blocks: whole blocks of 8-byte
// words, then the last block's columns of last_stride bytes each.
inline uint64_t SolutionBytes(uint64_t total_blocks, uint64_t lower_blocks, uint32_t r_lo,
                              uint32_t last_stride) {
  const uint64_t last = total_blocks - 1;
  return 8 * WordOffset(last, lower_blocks, r_lo) +
         uint64_t{last_stride} * Columns(last, lower_blocks, r_lo);
}

// The 2-bit bump code of bucket u: byte u / 4, bits 2 (u % 4).
inline uint32_t BumpCode(const uint8_t* meta, uint64_t u) {
  return (meta[u >> 2] >> ((u & 3) * 2)) & 3;
}

// True when the key with hash g and start s satisfies its equation in the
// block `words` (cols words) and the next one. s % 64 == 0 reads one block.
inline bool CheckRow(uint64_t g, uint64_t s, const uint8_t* words, uint32_t cols) {
  const uint64_t c = CoeffRow(g);
  const uint32_t f = Fingerprint(g);
  const unsigned off = static_cast<unsigned>(s & 63);
  const uint64_t lo = c << off;
  if (off == 0) {
    for (uint32_t k = 0; k < cols; ++k) {
      if ((__builtin_parityll(LoadWord(words + 8 * k) & lo) ^ (f >> k)) & 1) return false;
    }
    return true;
  }
  const uint64_t hi = c >> (64 - off);
  const uint8_t* next = words + 8 * static_cast<size_t>(cols);
  for (uint32_t k = 0; k < cols; ++k) {
    const uint64_t x = (LoadWord(words + 8 * k) & lo) ^ (LoadWord(next + 8 * k) & hi);
    if ((__builtin_parityll(x) ^ (f >> k)) & 1) return false;
  }
  return true;
}

}  // namespace ribbon

// Reader over a trusted block of kind kRibbon. Layout (docs/FORMAT.md,
// "Kind 5: Ribbon"):
//
//   +---------------------------+-------------------+---------+--------+---+
//   | solution words, layer 0.. | bump codes, layer | padding | header | H |
//   | (8-byte LE words)         | 0 .. L-2 (2 bits) | (zero)  | H bytes| u8|
//   +---------------------------+-------------------+---------+--------+---+
//   header: LEB128 lower_blocks, [LEB128 tail if compact_end], then the
//   start range R of layers 0 .. L-1. Layer j's starts are the global slots
//   [sum R<j, sum R<=j): layers are chained, so a layer's keys spill into
//   the next layer's first slots. Without compact_end the T = ceil((sum R +
//   63) / 64) whole blocks end 63 slots after the last start; with it the
//   filter has S = sum R + tail slots, the last block stores only its own
//   slots (RibbonEndOf), and the solution is zero past them.
//
//   params: bits 0-4 r_lo (0..31), 5-8 num_layers L (1..15), 9-12 log2 B
//           (6..9), 13-21 t1, 22-30 t2 (t1 <= t2 <= B), 31 compact_end.
class RibbonReader {
 public:
  struct Layer {
    uint64_t start_range = 0;  // R: start positions of this layer
    uint64_t first_slot = 0;   // global slot of its start 0 (sum of earlier R)
    const uint8_t* meta = nullptr;  // bump codes; nullptr for the last layer
  };

  // False when the block's kind, params or header do not describe a filter
  // that fits its payload; the caller then answers "may match".
  static bool Init(const ParsedBlock& block, RibbonReader* out);

  bool MayMatch(uint64_t key_hash) const {
    uint64_t g = SeededHash(key_hash, seed_);
    for (int j = 0;; ++j) {
      const Layer& layer = layers_[j];
      const uint64_t o = FastRange64(g, layer.start_range);
      if (Bumped(layer, o)) {
        g = ribbon::NextLayerHash(g);
        continue;
      }
      const uint64_t s = layer.first_slot + o;
      if (__builtin_expect(s >= end_path_from_, 0)) return CheckRowAtEnd(g, s);
      const uint64_t x = s >> 6;
      const uint32_t cols = ribbon::Columns(x, lower_blocks_, r_lo_);
      return ribbon::CheckRow(g, s,
                              data_ + 8 * ribbon::WordOffset(x, lower_blocks_, r_lo_), cols);
    }
  }

  // Prefetches layer 0's bump code and the key's two blocks (up to 16 r
  // bytes; a query that moves on to a later layer is rare, ~5%).
  void Prefetch(uint64_t key_hash) const {
    const uint64_t g = SeededHash(key_hash, seed_);
    const Layer& layer = layers_[0];
    const uint64_t s = FastRange64(g, layer.start_range);  // first_slot 0
    if (layer.meta != nullptr) PrefetchForRead(layer.meta + (s >> (log_bucket_ + 2)));
    const uint8_t* p = data_ + 8 * ribbon::WordOffset(s >> 6, lower_blocks_, r_lo_);
    const uint32_t bytes = 16 * (r_lo_ + 1);
    for (uint32_t b = 0; b < bytes; b += 64) PrefetchForRead(p + b);
    PrefetchForRead(p + bytes - 1);
  }

  uint32_t r_lo() const { return r_lo_; }
  uint64_t lower_blocks() const { return lower_blocks_; }
  uint64_t total_blocks() const { return total_blocks_; }
  int num_layers() const { return num_layers_; }
  const Layer& layer(int j) const { return layers_[j]; }

  // Whether a query starting at offset `o` of `layer` moves on to the next
  // layer: its bucket's bump code says the keys there were bumped.
  bool Bumped(const Layer& layer, uint64_t o) const {
    return layer.meta != nullptr &&
           (o & bucket_mask_) < thresholds_[ribbon::BumpCode(layer.meta, o >> log_bucket_)];
  }

 private:
  // A key whose row may reach the last block. With compact_end the filter
  // has S slots (RibbonEndOf) and the last block stores only its own,
  // last_stride_ bytes per column; the solution is zero at every slot past
  // them (no key pivots there: the writer cuts the rows that would), so
  // those bits read as zero. ~2 blocks' worth of starts take this path.
  // Out of line and cold: a query takes it with probability ~128 / n.
  __attribute__((noinline, cold)) bool CheckRowAtEnd(uint64_t g, uint64_t s) const {
    const uint64_t c = ribbon::CoeffRow(g);
    const uint32_t f = ribbon::Fingerprint(g);
    const uint64_t x = s >> 6;
    const unsigned off = static_cast<unsigned>(s & 63);
    const uint64_t lo = c << off;
    const uint64_t hi = off == 0 ? 0 : c >> (64 - off);
    const uint32_t cols = ribbon::Columns(x, lower_blocks_, r_lo_);
    for (uint32_t k = 0; k < cols; ++k) {
      uint64_t v = Column(x, k) & lo;
      if (hi != 0) v ^= Column(x + 1, k) & hi;
      if ((__builtin_parityll(v) ^ (f >> k)) & 1) return false;
    }
    return true;
  }

  // Column k of block x (k < cols(x)); zero past the last block.
  uint64_t Column(uint64_t x, uint32_t k) const {
    if (x >= total_blocks_) return 0;
    const uint8_t* p = data_ + 8 * ribbon::WordOffset(x, lower_blocks_, r_lo_);
    if (x + 1 < total_blocks_) return ribbon::LoadWord(p + 8 * k);
    p += static_cast<size_t>(last_stride_) * k;
    return DecodeLe(p, last_stride_);
  }

  const uint8_t* data_ = nullptr;
  uint64_t lower_blocks_ = 0;
  uint64_t total_blocks_ = 0;
  uint64_t end_path_from_ = 0;  // starts from here may reach the last block
  uint32_t last_stride_ = 8;    // bytes per column of the last block
  uint64_t bucket_mask_ = 0;
  uint32_t thresholds_[4] = {0, 0, 0, 0};
  uint32_t r_lo_ = 0;
  int log_bucket_ = 0;
  int num_layers_ = 0;
  uint32_t seed_ = 0;
  Layer layers_[ribbon::kMaxLayers];
};

// Params word of a Ribbon filter (see RibbonReader).
struct RibbonParams {
  uint32_t r_lo = 0;
  int num_layers = 0;
  int log_bucket = 0;
  uint32_t t1 = 0, t2 = 0;
  bool compact_end = false;  // bit 31: header has `tail`, last block partial

  uint32_t Encode() const {
    return r_lo | static_cast<uint32_t>(num_layers) << 5 |
           static_cast<uint32_t>(log_bucket) << 9 | t1 << 13 | t2 << 22 |
           static_cast<uint32_t>(compact_end) << 31;
  }
  // False for reserved bits or out-of-range fields.
  bool Decode(uint32_t params);
};

inline bool RibbonParams::Decode(uint32_t params) {
  r_lo = params & 31;
  num_layers = static_cast<int>((params >> 5) & 15);
  log_bucket = static_cast<int>((params >> 9) & 15);
  t1 = (params >> 13) & 511;
  t2 = (params >> 22) & 511;
  compact_end = (params >> 31) != 0;
  return num_layers >= 1 && log_bucket >= ribbon::kMinLogBucket &&
         log_bucket <= ribbon::kMaxLogBucket && t1 <= t2 && t2 <= (1u << log_bucket);
}

// Buckets of a layer with `start_range` start positions.
inline uint64_t RibbonBuckets(uint64_t start_range, int log_bucket) {
  return ((start_range - 1) >> log_bucket) + 1;
}

// The end of a filter whose layers have `total_starts` start positions in
// all. Without compact_end (the first format): rows reach 63 slots past the
// last start, and T = ceil((starts + 63) / 64) whole blocks hold them. With
// compact_end: S = starts + tail slots (tail 0..63, from the header; no key
// pivots at S or later, so the solution there is zero and not stored), and
// the last of T = ceil(S / 64) blocks stores only its S - 64 (T - 1)
// slots, ceil(that / 8) bytes per column.
struct RibbonEnd {
  uint64_t slots = 0;         // S
  uint64_t total_blocks = 0;  // T
  uint32_t last_stride = 8;   // bytes per column of block T - 1
};

inline RibbonEnd RibbonEndOf(uint64_t total_starts, uint64_t tail, bool compact_end) {
  RibbonEnd end;
  const uint64_t k = ribbon::kBlockSlots;
  if (!compact_end) tail = k - 1;
  end.total_blocks = (total_starts + tail + k - 1) / k;
  end.slots = compact_end ? total_starts + tail : end.total_blocks * k;
  const uint64_t last_slots = end.slots - (end.total_blocks - 1) * k;
  end.last_stride = static_cast<uint32_t>((last_slots + 7) / 8);
  return end;
}

// LEB128, at most 5 bytes (values < 2^35, checked by the caller). Returns
// false when it would read past `end`.
inline bool ReadVarint(const uint8_t*& p, const uint8_t* end, uint64_t* value) {
  uint64_t v = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (p == end) return false;
    const uint8_t byte = *p++;
    v |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) {
      *value = v;
      return true;
    }
  }
  return false;
}

inline bool RibbonReader::Init(const ParsedBlock& block, RibbonReader* out) {
  RibbonParams params;
  if (block.trailer.kind != FilterKind::kRibbon || !params.Decode(block.trailer.params) ||
      block.payload_bytes < 2) {
    return false;
  }
  // Version 3 stores only r_lo, the layers and log2 B (bits 0-12); its end
  // is always compact and its thresholds (with two layers or more) follow
  // `tail` in the header.
  const bool v3 = block.trailer.version >= 3;
  if (v3) {
    if ((block.trailer.params >> 13) != 0) return false;
    params.compact_end = true;
  }
  const uint8_t* payload = block.payload;
  const size_t header_bytes = payload[block.payload_bytes - 1];
  if (header_bytes == 0 || header_bytes + 1 > block.payload_bytes) return false;
  const uint8_t* cursor = payload + block.payload_bytes - 1 - header_bytes;
  const uint8_t* header_end = payload + block.payload_bytes - 1;
  uint64_t lower_blocks = 0;
  if (!ReadVarint(cursor, header_end, &lower_blocks)) return false;
  uint64_t tail = ribbon::kBlockSlots - 1;
  if (params.compact_end &&
      (!ReadVarint(cursor, header_end, &tail) || tail >= ribbon::kBlockSlots)) {
    return false;
  }
  if (v3 && params.num_layers >= 2) {
    uint64_t t1 = 0, t2 = 0;
    if (!ReadVarint(cursor, header_end, &t1) || !ReadVarint(cursor, header_end, &t2) ||
        t1 > t2 || t2 > (1u << params.log_bucket)) {
      return false;
    }
    params.t1 = static_cast<uint32_t>(t1);
    params.t2 = static_cast<uint32_t>(t2);
  }
  uint64_t total_starts = 0, meta_bytes = 0;
  uint64_t meta_offset[ribbon::kMaxLayers] = {};
  for (int j = 0; j < params.num_layers; ++j) {
    uint64_t range = 0;
    // Varints are < 2^35, so total_starts < 15 * 2^35: no overflow below.
    if (!ReadVarint(cursor, header_end, &range) || range == 0) return false;
    Layer& layer = out->layers_[j];
    layer.start_range = range;
    layer.first_slot = total_starts;
    total_starts += range;
    meta_offset[j] = meta_bytes;
    if (j + 1 < params.num_layers) meta_bytes += (RibbonBuckets(range, params.log_bucket) + 3) / 4;
  }
  // Without compact_end the blocks are whole and every row fits them.
  const RibbonEnd end = RibbonEndOf(total_starts, tail, params.compact_end);
  const uint64_t total_blocks = end.total_blocks;
  if (cursor != header_end || lower_blocks > total_blocks) return false;
  // total_blocks < 2^34 and r_lo < 32: no overflow below.
  const uint64_t last = total_blocks - 1;
  const uint64_t words_bytes =
      ribbon::SolutionBytes(total_blocks, lower_blocks, params.r_lo, end.last_stride);
  if (words_bytes + meta_bytes + header_bytes + 1 > block.payload_bytes) return false;
  for (int j = 0; j < params.num_layers; ++j) {
    out->layers_[j].meta =
        j + 1 < params.num_layers ? payload + words_bytes + meta_offset[j] : nullptr;
  }
  out->data_ = payload;
  out->lower_blocks_ = lower_blocks;
  out->total_blocks_ = total_blocks;
  // Starts s with s + 63 < 64 (T - 1) read only whole blocks before the
  // last one; with T = 1 every start takes the end path.
  out->end_path_from_ = last * ribbon::kBlockSlots >= ribbon::kBlockSlots - 1
                            ? last * ribbon::kBlockSlots - (ribbon::kBlockSlots - 1)
                            : 0;
  out->last_stride_ = end.last_stride;
  out->bucket_mask_ = (1ULL << params.log_bucket) - 1;
  out->thresholds_[0] = 0;
  out->thresholds_[1] = params.t1;
  out->thresholds_[2] = params.t2;
  out->thresholds_[3] = 1u << params.log_bucket;
  out->r_lo_ = params.r_lo;
  out->log_bucket_ = params.log_bucket;
  out->num_layers_ = params.num_layers;
  out->seed_ = block.trailer.seed;
  return true;
}

}  // namespace sstfilter
