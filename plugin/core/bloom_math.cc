#include "plugin/core/bloom_math.h"

#include <algorithm>
#include <cmath>

namespace sstfilter {

double StandardBloomFpRate(double num_keys, double num_bits, int num_probes) {
  if (num_keys <= 0) return 0.0;
  // Fraction of bits still zero after k*n insertions, computed with log1p so
  // that it stays exact for m in the billions.
  const double zero_fraction =
      std::exp(num_probes * num_keys * std::log1p(-1.0 / num_bits));
  return std::pow(1.0 - zero_fraction, num_probes);
}

double StandardBloomFpRate(double bits_per_key, int num_probes) {
  return std::pow(1.0 - std::exp(-num_probes / bits_per_key), num_probes);
}

int OptimalStandardBloomProbes(double bits_per_key) {
  const double ideal = bits_per_key * std::log(2.0);
  int lo = std::clamp(static_cast<int>(std::floor(ideal)), 1, kMaxBloomProbes);
  int hi = std::clamp(lo + 1, 1, kMaxBloomProbes);
  return StandardBloomFpRate(bits_per_key, hi) <
                 StandardBloomFpRate(bits_per_key, lo)
             ? hi
             : lo;
}

double StandardBloomBitsPerKeyForFpRate(double fp_rate) {
  auto fp_at = [](double bpk) {
    return StandardBloomFpRate(bpk, OptimalStandardBloomProbes(bpk));
  };
  double hi = kMaxBitsPerKey;
  if (fp_at(hi) > fp_rate) return hi * 2;  // out of range: caller refuses
  double lo = 0.01;
  // The FP rate at the optimal k falls monotonically in bits per key, so
  // bisection converges; 60 halvings reach double precision.
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (fp_at(mid) <= fp_rate ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace sstfilter
