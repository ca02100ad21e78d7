// Banding of one Ribbon layer (kind 5; essay in ribbon.h): the Gaussian
// elimination step and the BuRR bucket loop with lead control and two
// interleaved streams. Included only by ribbon_builder.cc.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "plugin/core/counting_sort.h"
#include "plugin/core/hash.h"
#include "plugin/core/ribbon.h"
#include "plugin/core/ribbon_builder.h"

namespace sstfilter {
namespace ribbon {
namespace band {

// The band of all layers, one row per global slot: layers are chained (layer
// j + 1's starts begin where layer j's end), so a layer's spill lands in the
// next layer's first slots and only the last layer leaves a 63-slot tail.
struct Band {
  std::vector<uint64_t> coeff;   // row per slot, bit 0 = the slot itself
  std::vector<uint32_t> result;  // fingerprint side of the same row
  // Makes slots [0, n) addressable; new slots are empty.
  void Reserve(uint64_t n) {
    if (coeff.size() < n) {
      coeff.resize(n, 0);
      result.resize(n, 0);
    }
  }
};

struct LayerBand {
  uint64_t first_slot = 0;    // global slot of start 0
  uint64_t start_range = 0;   // R
  std::vector<uint8_t> codes;  // bump code per bucket; empty for the last layer
};

// Gaussian elimination step of Ribbon (Dietzfelbinger & Walzer): reduce the
// row against occupied pivots until it finds an empty slot (inserted) or
// vanishes. Returns 1 with *pivot set, 0 when the key is already implied by
// others (same fingerprint: nothing to store), -1 when it contradicts them.
// Slots from `end` on are fixed at zero (the filter's end): row bits there
// are dropped, also those that rows reduced against bring in, so no key
// pivots at or past `end` (s < end on entry).
inline int Insert(uint64_t* coeff, uint32_t* result, uint64_t s, uint64_t c, uint32_t f,
                  uint64_t end, uint64_t* pivot) {
  if (end - s < kBlockSlots) c &= (uint64_t{1} << (end - s)) - 1;  // keeps bit 0
  for (;;) {
    if (coeff[s] == 0) {
      coeff[s] = c;
      result[s] = f;
      *pivot = s;
      return 1;
    }
    c ^= coeff[s];
    f ^= result[s];
    if (end - s < kBlockSlots) c &= (uint64_t{1} << (end - s)) - 1;
    if (c == 0) return f == 0 ? 0 : -1;
    const int tz = __builtin_ctzll(c);  // >= 1: both rows had bit 0
    c >>= tz;
    s += static_cast<uint64_t>(tz);  // < end: c has no bit at or past it
  }
}

// Keys of a layer: layer 0 seeds the caller's hashes on the fly, later
// layers hold already-remixed hashes. Either array may be reordered.
struct LayerInput {
  uint64_t* hashes;
  size_t num_keys;
  bool seeded;  // true: g = SeededHash(hashes[i], seed)
  uint32_t seed;
  uint64_t g(uint64_t v) const { return seeded ? SeededHash(v, seed) : v; }
};

// Insertion state of one stream: a run of buckets [bucket, bucket_end) of a
// BuRR layer, banded in order, and the elimination walk of its current key.
struct Stream {
  uint64_t bucket = 0, bucket_end = 0;
  size_t key = 0, end = 0;  // current key; end of the bucket's kept keys
  uint32_t code = 0;        // bump code being tried for the bucket
  uint64_t slot = 0, row = 0;  // walk: slot and coefficient row (bit 0 at slot)
  uint32_t print = 0;          // fingerprint
  uint64_t limit = 0;  // a walk reaching this slot fails (see RunTwo)
  bool live = false;
  std::vector<uint64_t> pivots;  // slots filled by the current bucket so far
};

class LayerBuilder {
 public:
  explicit LayerBuilder(const Tuning& tuning) : t_(tuning) {}

  // BuRR layer: bands what fits, appends the next-layer hashes of bumped
  // keys to *bumped.
  //
  // Keys are sorted by group: per bucket [offset < t1 | < t2 | rest], in
  // input order within a group (a finer sort by start cost ~5 ns/key and
  // left the filter's size unchanged; the solution does not depend on the
  // order, since the pivot slots of a band are those of its row space).
  // Each bucket's kept keys (a suffix of that order: bump code k drops the
  // first k groups, 3 = all) are inserted in that order. Two changes
  // against BuRR's "insert, bump on failure" loop (SEA 2022, Sec. 4), both
  // measured at 1M keys, 4 bits/key, on a 2-vCPU AMD EPYC VM:
  //
  //  - Lead control. Under 0.95 slots per key, the keys of a bucket that
  //    spill past it (the lead) grow until insertions fail, ~40 slots, and a
  //    walk costs ~lead/2 steps: 21 XOR steps per key. Instead a bucket
  //    takes the smallest code that keeps the predicted lead (spill in +
  //    kept keys - B) <= max_lead, and only bumps a group when the spill
  //    in already covers its offsets (else its slots would stay empty).
  //    max_lead 48: 16 steps per key, 0.07% empty slots against 0.04%
  //    with no limit, FP unchanged within noise. Failures still bump (next code, retried).
  //  - Two streams. A walk is one dependent chain (load, xor, tzcnt, add:
  //    ~10 cycles a step), so the layer's two halves are banded
  //    interleaved, one step each in turn: band time falls by ~45%. The
  //    first half's last buckets spill into slots the second half already
  //    filled, so they wait until it is done (RunTwo); they bump a little
  //    more there, ~10 empty slots per layer.
  void BandBumped(const LayerInput& in, Band* band, LayerBand* layer,
                  std::vector<uint64_t>* bumped) {
    const uint64_t range = layer->start_range;
    const uint64_t base = layer->first_slot;
    // The keys are sorted through the band's slots past this layer's first
    // block: still empty (no walk reaches them yet), zeroed again after.
    // BandLayers reserved ~1.008 n slots, which holds every layer's
    // base + 64 + n_j (the earlier layers' starts plus this layer's keys are
    // about n), so this costs no memory; only adversarial hashes (most keys
    // bumped) grow the band.
    const uint64_t scratch_at = base + kBlockSlots;
    band->Reserve(std::max(base + range + kBlockSlots - 1, scratch_at + in.num_keys));
    const uint64_t slots = band->coeff.size() - base;  // addressable from start 0
    const uint64_t buckets = RibbonBuckets(range, t_.log_bucket);
    const uint64_t mask = (1ULL << t_.log_bucket) - 1;
    // Group of a key: (bucket, offset < t1 | < t2 | rest), ascending with s.
    auto group_of = [&](uint64_t v) {
      const uint64_t s = FastRange64(in.g(v), range);
      const uint64_t off = s & mask;
      return 3 * (s >> t_.log_bucket) + (off >= t_.t2 ? 2 : off >= t_.t1 ? 1 : 0);
    };
    uint64_t* scratch = band->coeff.data() + scratch_at;
    sorter_.Sort(in.hashes, in.num_keys, 3 * buckets, group_of, scratch, &start_);
    std::fill(scratch, scratch + in.num_keys, 0);
    layer->codes.assign(buckets, 0);
    filled_.assign(buckets + 4, 0);
    in_ = &in;
    coeff_ = band->coeff.data() + base;
    result_ = band->result.data() + base;
    range_ = range;
    codes_ = layer->codes.data();
    // The previous layer's spill into this one's first slots is lead.
    for (uint64_t k = 0; k < std::min<uint64_t>(slots, kBlockSlots); ++k) {
      if (coeff_[k] != 0) ++filled_[k >> t_.log_bucket];
    }
    bumped_ = bumped;
    const uint64_t num_streams = buckets >= t_.min_buckets_per_stream * 2 ? 2 : 1;
    // Stream 1 starts without the spill its first bucket would get from the
    // one before it, which stream 0 bands later: a phantom lead makes that
    // bucket bump its low groups as usual and leave their slots for the
    // spill. Without it that spill finds the slots filled and its bucket
    // often bumps everything (~100 empty slots: 1% of a 10K-key filter).
    if (num_streams == 2) filled_[buckets / 2] += static_cast<uint32_t>(t_.seam_lead);
    for (uint64_t k = 0; k < num_streams; ++k) {
      streams_[k].bucket = buckets * k / num_streams;
      streams_[k].bucket_end = buckets * (k + 1) / num_streams;
      streams_[k].limit = slots;
      StartBucket(&streams_[k]);
    }
    if (num_streams == 2) {
      RunTwo(&streams_[0], &streams_[1]);
      RunOne(&streams_[1]);
      streams_[0].limit = slots;
    }
    RunOne(&streams_[0]);
  }

  // Plain Ribbon (last layer): every key must fit. Rows are cut at the
  // filter's end, `tail` slots after the last start (as the reader cuts
  // them). On failure the band is as before (the previous layer's spill
  // stays).
  bool BandAll(const LayerInput& in, Band* band, LayerBand* layer, uint64_t tail) {
    const uint64_t range = layer->start_range;
    const uint64_t end = range + tail;  // from this layer's first slot
    band->Reserve(layer->first_slot + std::max<uint64_t>(end, kBlockSlots));
    uint64_t* coeff = band->coeff.data() + layer->first_slot;
    uint32_t* result = band->result.data() + layer->first_slot;
    layer->codes.clear();
    pivots_.clear();
    for (size_t i = 0; i < in.num_keys; ++i) {
      const uint64_t g = in.g(in.hashes[i]);
      uint64_t pivot = 0;
      const int r =
          Insert(coeff, result, FastRange64(g, range), CoeffRow(g), Fingerprint(g), end, &pivot);
      if (r > 0) pivots_.push_back(pivot);
      if (r < 0) {
        for (uint64_t p : pivots_) coeff[p] = 0, result[p] = 0;
        return false;
      }
    }
    return true;
  }

  void ReleaseScratch() {
    std::vector<size_t>().swap(start_);
    std::vector<uint32_t>().swap(filled_);
    sorter_.Release();
    for (Stream& st : streams_) std::vector<uint64_t>().swap(st.pivots);
  }

 private:
  // One elimination step of Insert on a walk (s, c, f); false when the walk
  // ends at s (the slot is empty, the row reduces to zero there, or s
  // reached the stream's limit). The three tests are combined without
  // short-circuit: one branch per step, taken once per key.
  static bool Step(const uint64_t* coeff, const uint32_t* result, uint64_t& s, uint64_t& c,
                   uint32_t& f, uint64_t limit) {
    const uint64_t other = coeff[s];
    const uint64_t x = c ^ other;
    if ((other == 0) | (x == 0) | (s >= limit)) return false;
    f ^= result[s];
    const int tz = __builtin_ctzll(x);  // >= 1: both rows had bit 0
    c = x >> tz;
    s += static_cast<uint64_t>(tz);
    return true;
  }

  // Walks both streams one step each in turn until the second runs out of
  // buckets or the first reaches its last two. A walk may run through any
  // number of filled slots, so the first stream's keys must not reach the
  // second's slots while the second can still undo a bucket (nor the
  // second reduce against rows the first may undo): the first stream's
  // walks stop at the second's first slot (a failure: the key bumps), and
  // its last two buckets, whose keys spill there, wait until the second is
  // done.
  //
  // Everything the steps touch is in locals (registers): the inner loop
  // runs until a walk ends, and only then is state stored for EndWalk,
  // which may change it. Reading band pointers, limits and flags through
  // `this` after every step cost ~20% of band time at 10K keys (the call
  // to EndWalk in the loop kept them from being hoisted).
  void RunTwo(Stream* first, Stream* second) {
    const uint64_t* const coeff = coeff_;
    const uint32_t* const result = result_;
    const uint64_t pause = first->bucket_end >= 2 ? first->bucket_end - 2 : 0;
    first->limit = first->bucket_end << t_.log_bucket;
    const uint64_t la = first->limit, lb = second->limit;
    while (first->live && second->live && first->bucket < pause) {
      uint64_t sa = first->slot, ca = first->row, sb = second->slot, cb = second->row;
      uint32_t fa = first->print, fb = second->print;
      bool go_a, go_b;
      do {
        go_a = Step(coeff, result, sa, ca, fa, la);
        go_b = Step(coeff, result, sb, cb, fb, lb);
      } while (go_a & go_b);
      first->slot = sa, first->row = ca, first->print = fa;
      second->slot = sb, second->row = cb, second->print = fb;
      if (!go_a) EndWalk(first);
      if (!go_b) EndWalk(second);
    }
  }

  void RunOne(Stream* stream) {
    const uint64_t* const coeff = coeff_;
    const uint32_t* const result = result_;
    const uint64_t limit = stream->limit;
    while (stream->live) {
      uint64_t s = stream->slot, c = stream->row;
      uint32_t f = stream->print;
      while (Step(coeff, result, s, c, f, limit)) {
      }
      stream->slot = s, stream->row = c, stream->print = f;
      EndWalk(stream);
    }
  }

  // Picks bucket st->bucket's first code and loads its first kept key; commits
  // empty buckets on the way. Clears st->live after the last bucket.
  void StartBucket(Stream* st) {
    const int64_t bsize = int64_t{1} << t_.log_bucket;
    const int64_t thresholds[4] = {0, t_.t1, t_.t2, bsize};
    for (; st->bucket < st->bucket_end; ++st->bucket) {
      const uint64_t u = st->bucket;
      // Lead: keys already pivoting at or past this bucket (from earlier
      // buckets of this stream only: a spill reaches < 2 buckets ahead).
      int64_t lead = 0;
      for (uint64_t v = u; v < std::min(u + 4, st->bucket_end); ++v) lead += filled_[v];
      uint32_t code = 0;
      int64_t kept = static_cast<int64_t>(start_[3 * u + 3] - start_[3 * u]);
      while (code < 3 && lead + kept - bsize > t_.max_lead &&
             lead >= thresholds[code + 1] + t_.lead_margin) {
        ++code;
        kept = static_cast<int64_t>(start_[3 * u + 3] - start_[3 * u + code]);
      }
      st->code = code;
      st->pivots.clear();
      st->key = start_[3 * u + code];
      st->end = start_[3 * u + 3];
      if (st->key < st->end) {
        LoadKey(st);
        st->live = true;
        return;
      }
      CommitBucket(*st);
    }
    st->live = false;
  }

  void LoadKey(Stream* st) const {
    const uint64_t g = in_->g(in_->hashes[st->key]);
    st->slot = FastRange64(g, range_);
    st->row = CoeffRow(g);
    st->print = Fingerprint(g);
  }

  // The walk of key st->key ended: place it, skip it (implied by others) or,
  // on a contradiction, undo the bucket and retry it with the next code.
  __attribute__((noinline)) void EndWalk(Stream* st) {
    bool next_key = true;
    if (st->slot < st->limit && coeff_[st->slot] == 0) {
      coeff_[st->slot] = st->row;
      result_[st->slot] = st->print;
      st->pivots.push_back(st->slot);
    } else if (st->slot >= st->limit || (st->print ^ result_[st->slot]) != 0) {
      // Undo: insertions only ever fill empty slots, so clearing them
      // restores the band exactly.
      for (uint64_t p : st->pivots) coeff_[p] = 0, result_[p] = 0;
      st->pivots.clear();
      ++st->code;
      st->key = start_[3 * st->bucket + st->code];
      next_key = false;
    }
    if (next_key) ++st->key;
    if (st->code < 3 && st->key < st->end) {
      LoadKey(st);
      return;
    }
    CommitBucket(*st);
    ++st->bucket;
    StartBucket(st);
  }

  void CommitBucket(const Stream& st) {
    for (uint64_t p : st.pivots) ++filled_[p >> t_.log_bucket];
    codes_[st.bucket] = static_cast<uint8_t>(st.code);
    for (size_t k = start_[3 * st.bucket]; k < start_[3 * st.bucket + st.code]; ++k) {
      bumped_->push_back(NextLayerHash(in_->g(in_->hashes[k])));
    }
  }

  const Tuning& t_;
  std::vector<size_t> start_;   // first key of each (bucket, group)
  std::vector<uint32_t> filled_;  // pivots per bucket-sized slot range
  CountingSorter sorter_;
  Stream streams_[2];
  std::vector<uint64_t> pivots_;  // BandAll's insertions, for undo
  // The layer being banded.
  const LayerInput* in_ = nullptr;
  uint64_t* coeff_ = nullptr;
  uint32_t* result_ = nullptr;
  uint64_t range_ = 0;
  uint8_t* codes_ = nullptr;
  std::vector<uint64_t>* bumped_ = nullptr;
};

}  // namespace band
}  // namespace ribbon
}  // namespace sstfilter
