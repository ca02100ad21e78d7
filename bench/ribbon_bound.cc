#include "bench/ribbon_bound.h"

#include <cmath>

namespace sstfilter::bench {

double BoundRibbonFpRate(size_t filter_bytes, uint64_t keys) {
  if (keys == 0) return 0;  // holds nothing: every query answers "no"
  const double bits_per_key = 8.0 * static_cast<double>(filter_bytes) / static_cast<double>(keys);
  const double r = std::floor(bits_per_key);
  return std::ldexp(1.0 - 0.5 * (bits_per_key - r), -static_cast<int>(r));
}

size_t BoundRibbonLength(uint64_t keys, double bits_per_key, const AllocatorFit* fit) {
  const auto target = static_cast<size_t>(std::ceil(bits_per_key * static_cast<double>(keys) / 8));
  if (fit == nullptr || keys == 0) return target;
  return FitLength(
      *fit, target, [](size_t len) { return len; },
      [keys](size_t len) { return BoundRibbonFpRate(len, keys); });
}

}  // namespace sstfilter::bench
