#include "plugin/core/bloom_math.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "plugin/core/bisect.h"

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
  // The FP rate at the optimal k falls monotonically in bits per key, so
  // bisection converges; 60 halvings reach double precision.
  return Bisect(0.01, hi, 60, [&](double bpk) { return fp_at(bpk) <= fp_rate; }).second;
}

namespace {

// E over line loads of P(k query probes all hit set bits), exactly: for a
// load of L keys the line has taken L*k uniform insertions, and the chance
// that k independent probes hit set bits is E[(X/B)^k] for X set bits. The
// textbook form (1 - (1 - 1/B)^(L k))^k uses E[X/B]^k instead, which by
// Jensen's inequality is low: by 1.2% at 10 bits/key (0.957% vs 0.969%,
// the latter what RocksDB's FastLocalBloom and ours measure) and 3% at 20.
// X follows the occupancy chain P(x -> x+1) = (B - x) / B, advanced one
// insertion at a time: cost ~ max_load * k * B, about 0.5M steps at 10
// bits/key. Loads beyond mean +- 12 sd carry < 1e-30 of the mass.
template <class LogPmf>
double ExpectedLineFp(double mean, double sd, double max_load, int k, LogPmf log_pmf) {
  constexpr int kB = kBlockedLineBits;
  const long lo = static_cast<long>(std::max(0.0, std::floor(mean - 12 * sd - 2)));
  const long hi = static_cast<long>(std::min(max_load, std::ceil(mean + 12 * sd + 2)));
  std::vector<double> hit(kB + 1), p(kB + 1, 0.0), next(kB + 1);
  for (int x = 0; x <= kB; ++x) hit[x] = std::pow(static_cast<double>(x) / kB, k);
  p[0] = 1.0;
  int top = 0;  // highest x with nonzero probability
  double total = 0.0;
  for (long load = 0; load <= hi; ++load) {
    if (load > 0) {
      for (int step = 0; step < k; ++step) {
        top = std::min(kB, top + 1);
        next[0] = 0.0;
        for (int x = 0; x <= top; ++x) {
          next[x] = p[x] * x / kB + (x > 0 ? p[x - 1] * (kB - x + 1) / kB : 0.0);
        }
        std::swap(p, next);
      }
    }
    if (load < lo) continue;
    double e = 0.0;
    for (int x = 0; x <= top; ++x) e += p[x] * hit[x];
    total += std::exp(log_pmf(static_cast<double>(load))) * e;
  }
  return total;
}

}  // namespace

double BlockedBloomFpRate(double num_keys, double num_lines, int probes_per_line,
                          int lines_per_key) {
  if (num_keys <= 0) return 0.0;
  const double touches = num_keys * lines_per_key;
  double line_fp;
  if (num_lines <= 1.0) {  // every key in the one line: the load is fixed
    line_fp = ExpectedLineFp(touches, 0.0, touches, probes_per_line,
                             [&](double j) { return j == touches ? 0.0 : -INFINITY; });
  } else {
    const double p = 1.0 / num_lines;
    const double log_p = std::log(p), log_q = std::log1p(-p);
    const double lg_n = std::lgamma(touches + 1);
    line_fp = ExpectedLineFp(
        touches * p, std::sqrt(touches * p * (1 - p)), touches, probes_per_line,
        [&](double j) {
          return lg_n - std::lgamma(j + 1) - std::lgamma(touches - j + 1) + j * log_p +
                 (touches - j) * log_q;
        });
  }
  return std::pow(line_fp, lines_per_key);
}

double BlockedBloomFpRate(double bits_per_key, int probes_per_line, int lines_per_key) {
  const double lambda = kBlockedLineBits * lines_per_key / bits_per_key;
  const double line_fp = ExpectedLineFp(
      lambda, std::sqrt(lambda), 1e300, probes_per_line,
      [&](double j) { return j * std::log(lambda) - lambda - std::lgamma(j + 1); });
  return std::pow(line_fp, lines_per_key);
}

// Bits per key (one line per key) at which k + 1 probes start to beat k
// (index k - 1), from the exact large-n BlockedBloomFpRate; regenerate with
// the loop in tests/blocked_bloom_test.cc (ProbeTableMatchesExactFormula).
// They agree with RocksDB's empirically chosen FastLocalBloom thresholds
// (2.08, 3.58, 5.10, 6.64, 8.30, 10.07, ...) to within 0.03 bits/key.
constexpr double kProbeCrossoverBitsPerKey[] = {
    2.0820, 3.5842, 5.1037, 6.6734, 8.3171, 10.0580, 11.9206, 13.9323,
    16.1231, 18.5275, 21.1846, 24.1396, 27.4448, 31.1612, 35.3603, 40.1262,
    45.5583, 51.7745, 58.9150, 67.1475, 76.6726, 87.7317, 100.6153};

int OptimalBlockedBloomProbes(double bits_per_key, int lines_per_key) {
  // Two lines per key = two one-line filters of half the memory each, so
  // the per-line optimum is the one-line optimum at bits_per_key / lines.
  const double per_line = bits_per_key / std::max(1, lines_per_key);
  int k = 1;
  for (double crossover : kProbeCrossoverBitsPerKey) {
    if (per_line < crossover) break;
    ++k;
  }
  return std::min(k, kMaxBlockedProbesPerLine);
}

double BlockedBloomBitsPerKeyForFpRate(double fp_rate, int lines_per_key) {
  auto fp_at = [&](double bpk) {
    return BlockedBloomFpRate(bpk, OptimalBlockedBloomProbes(bpk, lines_per_key),
                              lines_per_key);
  };
  double hi = kMaxBitsPerKey;
  if (fp_at(hi) > fp_rate) return hi * 2;
  // 30 halvings reach 1e-7 bits per key; each step costs one exact
  // evaluation, so callers cache the result.
  return Bisect(0.01, hi, 30, [&](double bpk) { return fp_at(bpk) <= fp_rate; }).second;
}

}  // namespace sstfilter
