// Bisection on a monotone predicate, the one loop behind every "find the
// setting that gives this FP rate / this memory" search in core, tools and
// bench.
#pragma once

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

}  // namespace sstfilter
