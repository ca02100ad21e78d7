// FlagSorter, both variants: the Ribbon builder relies on each group's keys
// being contiguous, in group order, with starts[] pointing at them; a wrong
// start would silently drop keys from a bucket (false negatives).
#include "plugin/core/flag_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <unordered_map>
#include <vector>

namespace sstfilter {
namespace {

std::vector<uint64_t> RandomValues(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

// True when a is a permutation of original, sorted by key, and starts[k] is
// the first index of key k (starts[num_keys] == n).
void ExpectSorted(const std::vector<uint64_t>& original, const std::vector<uint64_t>& a,
                  uint64_t num_keys, uint64_t (*key)(uint64_t, uint64_t),
                  const std::vector<size_t>* starts) {
  std::vector<uint64_t> x = original, y = a;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  ASSERT_EQ(x, y) << "not a permutation";
  for (size_t i = 1; i < a.size(); ++i) {
    ASSERT_LE(key(a[i - 1], num_keys), key(a[i], num_keys)) << "at " << i;
  }
  if (starts == nullptr) return;
  ASSERT_EQ(starts->size(), num_keys + 1);
  ASSERT_EQ((*starts)[num_keys], a.size());
  for (uint64_t k = 0; k < num_keys; ++k) {
    const size_t begin = (*starts)[k], end = (*starts)[k + 1];
    ASSERT_LE(begin, end);
    for (size_t i = begin; i < end; ++i) ASSERT_EQ(key(a[i], num_keys), k);
  }
}

uint64_t KeyOf(uint64_t v, uint64_t num_keys) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(v) * num_keys) >> 64);
}

TEST(FlagSortTest, InPlaceAndWithScratchSortByKey) {
  // One level (<= 16384 keys) and two levels; empty groups (more keys than
  // values) and n = 0, 1.
  for (size_t n : {0, 1, 7, 1000, 100000}) {
    for (uint64_t num_keys : {1, 3, 225, 20000, 60000}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " num_keys=" << num_keys);
      const std::vector<uint64_t> original = RandomValues(n, n * 31 + num_keys);
      auto key = [num_keys](uint64_t v) { return KeyOf(v, num_keys); };
      FlagSorter sorter;
      std::vector<uint64_t> a = original;
      sorter.Sort(a.data(), a.size(), num_keys, key);
      ExpectSorted(original, a, num_keys, KeyOf, nullptr);

      std::vector<uint64_t> b = original, scratch(n + 1, 0);
      std::vector<size_t> starts;
      sorter.SortWithScratch(b.data(), b.size(), num_keys, key, scratch.data(), &starts);
      ExpectSorted(original, b, num_keys, KeyOf, &starts);
      // Input order kept within a group (the scatter is stable).
      std::unordered_map<uint64_t, size_t> index;
      for (size_t i = 0; i < n; ++i) index[original[i]] = i;
      for (size_t i = 1; i < n; ++i) {
        if (key(b[i - 1]) == key(b[i])) {
          ASSERT_LT(index[b[i - 1]], index[b[i]]);
        }
      }
    }
  }
}

}  // namespace
}  // namespace sstfilter
