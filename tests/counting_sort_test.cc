// CountingSorter: the Ribbon builder relies on each group's keys being
// contiguous, in group order, with starts[] pointing at them; a wrong start
// would silently drop keys from a bucket (false negatives).
#include "plugin/core/counting_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <unordered_map>
#include <vector>

namespace sstfilter {
namespace {

uint64_t KeyOf(uint64_t v, uint64_t num_keys) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(v) * num_keys) >> 64);
}

TEST(CountingSortTest, SortsStablyByKeyWithStarts) {
  // Empty groups (more keys than values), n = 0 and 1, one key.
  for (size_t n : {0, 1, 7, 1000, 100000}) {
    for (uint64_t num_keys : {1, 3, 225, 20000, 60000}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " num_keys=" << num_keys);
      std::mt19937_64 rng(n * 31 + num_keys);
      std::vector<uint64_t> original(n);
      for (auto& x : original) x = rng();
      auto key = [num_keys](uint64_t v) { return KeyOf(v, num_keys); };

      std::vector<uint64_t> a = original, scratch(n + 1, 0);
      std::vector<size_t> starts;
      CountingSorter sorter;
      sorter.Sort(a.data(), a.size(), num_keys, key, scratch.data(), &starts);

      std::vector<uint64_t> x = original, y = a;
      std::sort(x.begin(), x.end());
      std::sort(y.begin(), y.end());
      ASSERT_EQ(x, y) << "not a permutation";
      ASSERT_EQ(starts.size(), num_keys + 1);
      ASSERT_EQ(starts[num_keys], n);
      for (uint64_t k = 0; k < num_keys; ++k) {
        ASSERT_LE(starts[k], starts[k + 1]);
        for (size_t i = starts[k]; i < starts[k + 1]; ++i) ASSERT_EQ(key(a[i]), k);
      }
      // Stable: input order kept within a group.
      std::unordered_map<uint64_t, size_t> index;
      for (size_t i = 0; i < n; ++i) index[original[i]] = i;
      for (size_t i = 1; i < n; ++i) {
        if (key(a[i - 1]) == key(a[i])) {
          ASSERT_LT(index[a[i - 1]], index[a[i]]);
        }
      }
    }
  }
}

}  // namespace
}  // namespace sstfilter
