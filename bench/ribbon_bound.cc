#include "bench/ribbon_bound.h"

#include <cmath>

namespace sstfilter::bench {

double BoundRibbonFpRate(double bits_per_key) {
  const double r = std::floor(bits_per_key);
  return std::ldexp(1.0 - 0.5 * (bits_per_key - r), -static_cast<int>(r));
}

size_t BoundRibbonLength(uint64_t keys, double bits_per_key, const AllocatorFit* fit) {
  const auto target = static_cast<size_t>(std::ceil(bits_per_key * static_cast<double>(keys) / 8));
  if (fit == nullptr || keys == 0) return target;
  const double n = static_cast<double>(keys);
  return FitLength(
      *fit, target, [](size_t len) { return len; },
      [n](size_t len) { return BoundRibbonFpRate(8.0 * static_cast<double>(len) / n); });
}

}  // namespace sstfilter::bench
