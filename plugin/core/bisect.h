// Bisection on a monotone predicate, the loops behind every "find the
// setting that gives this FP rate / this memory" search in core, tools and
// bench: one over real numbers, one over integers.
#pragma once

#include <cstddef>
#include <utility>

namespace sstfilter {

// Halves [lo, hi] `steps` times around the point where `holds` turns true
// (false below it, true above it) and returns the last {lo, hi}: `hi` is
// the smallest point seen where it holds. Callers pick `steps` for the
// precision they need (60 halvings reach double precision from ~1000).
template <typename Holds>
std::pair<double, double> Bisect(double lo, double hi, int steps, const Holds& holds) {
  for (int i = 0; i < steps; ++i) {
    const double mid = 0.5 * (lo + hi);
    (holds(mid) ? hi : lo) = mid;
  }
  return {lo, hi};
}

// The largest x in [lo, hi] where `holds` is true, for a predicate that is
// true from lo up to some point and false after it (holds(lo) is taken as
// true, not evaluated). Integers: log2(hi - lo) evaluations.
template <typename Holds>
size_t LastWhere(size_t lo, size_t hi, const Holds& holds) {
  while (lo < hi) {
    const size_t mid = lo + (hi - lo + 1) / 2;
    if (holds(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

}  // namespace sstfilter
