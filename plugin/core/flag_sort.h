// In-place counting sort of 64-bit values by a small integer key (American
// flag sort: McIlroy, Bostic & McIlroy, "Engineering Radix Sort", Computing
// Systems 6(1), 1993). The Ribbon builder sorts its key hashes with it: no
// second array, which would cost 8 bytes per key of temporary memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <utility>
#include <vector>

namespace sstfilter {

class FlagSorter {
 public:
  // Sorts a[0, n) by key(a[i]) in [0, num_keys); the order of values with
  // equal keys is arbitrary. Up to kOneLevelMaxKeys keys in one pass (the
  // counters fit L2; at 10K Ribbon keys two passes cost ~5 ns/key more).
  // Beyond, two levels for cache locality: first into <= 1024 coarse ranges
  // (few enough write streams to stay cached), then each range (~n / 1024
  // values, L1-resident at 1M keys) by its exact key.
  template <class Key>
  void Sort(uint64_t* a, size_t n, uint64_t num_keys, const Key& key) {
    int shift = 0;
    if (num_keys > kOneLevelMaxKeys) {
      while ((num_keys >> shift) > 1024) ++shift;
    }
    const uint64_t coarse_keys = (num_keys >> shift) + 1;
    if (shift == 0) {
      OneLevel(a, n, num_keys, key, &coarse_);
      return;
    }
    OneLevel(a, n, coarse_keys, [&](uint64_t v) { return key(v) >> shift; }, &coarse_);
    for (uint64_t c = 0; c < coarse_keys; ++c) {
      const size_t begin = coarse_[c], end = coarse_[c + 1];
      if (end - begin < 2) continue;
      const uint64_t base = c << shift;
      OneLevel(a + begin, end - begin, uint64_t{1} << shift,
               [&](uint64_t v) { return key(v) - base; }, &fine_);
    }
  }

  // Out of place, for when a scratch array of n values is free anyway (the
  // Ribbon builder's band, before layer 0 fills it): one counting pass, one
  // scatter into scratch, copied back. Against Sort at 1M keys and ~22K
  // keys: 2 key evaluations per value instead of ~5, and no dependent swap
  // chains (each swap's target depends on the last value's key): the Ribbon
  // build at 1M keys, 4 bits/key went from 115 to 80 ns per key (filter_bench,
  // this machine); ~22K write heads (1.4 MB of cache lines) stay in its 2 MB
  // L2. *starts gets the first index of each key, (*starts)[num_keys] = n.
  template <class Key>
  void SortWithScratch(uint64_t* a, size_t n, uint64_t num_keys, const Key& key,
                       uint64_t* scratch, std::vector<size_t>* starts) {
    Count(a, n, num_keys, key, starts);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t v = a[i];
      scratch[next_[key(v)]++] = v;
    }
    std::copy(scratch, scratch + n, a);
  }

  void Release() {
    std::vector<size_t>().swap(next_);
    std::vector<size_t>().swap(coarse_);
    std::vector<size_t>().swap(fine_);
  }

 private:
  static constexpr uint64_t kOneLevelMaxKeys = 16384;
  // (*out)[k] = first index of key k, (*out)[num_keys] = n; next_ = a copy
  // of out[0, num_keys) (the write position of each key).
  template <class Key>
  void Count(const uint64_t* a, size_t n, uint64_t num_keys, const Key& key,
             std::vector<size_t>* out) {
    std::vector<size_t>& start = *out;
    start.assign(num_keys + 1, 0);
    for (size_t i = 0; i < n; ++i) ++start[key(a[i]) + 1];
    for (uint64_t k = 1; k <= num_keys; ++k) start[k] += start[k - 1];
    next_.assign(start.begin(), start.end() - 1);
  }

  // One level, in place (swap cycles).
  template <class Key>
  void OneLevel(uint64_t* a, size_t n, uint64_t num_keys, const Key& key,
                std::vector<size_t>* out) {
    Count(a, n, num_keys, key, out);
    const std::vector<size_t>& start = *out;
    for (uint64_t k = 0; k < num_keys; ++k) {
      while (next_[k] < start[k + 1]) {
        uint64_t v = a[next_[k]];
        for (uint64_t kv = key(v); kv != k; kv = key(v)) std::swap(v, a[next_[kv]++]);
        a[next_[k]++] = v;
      }
    }
  }

  std::vector<size_t> next_, coarse_, fine_;
};

}  // namespace sstfilter
