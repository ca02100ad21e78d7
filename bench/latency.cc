#include "bench/latency.h"

#include <algorithm>
#include <cstddef>

namespace sstfilter::bench {

LatencySummary Summarize(std::vector<double> latencies_us) {
  LatencySummary summary;
  if (latencies_us.empty()) return summary;
  double sum = 0;
  for (double v : latencies_us) sum += v;
  summary.mean_us = sum / static_cast<double>(latencies_us.size());
  std::sort(latencies_us.begin(), latencies_us.end());
  const auto at = [&](size_t per_mille) {
    return latencies_us[std::min(latencies_us.size() - 1, latencies_us.size() * per_mille / 1000)];
  };
  summary.p50_us = at(500);
  summary.p99_us = at(990);
  summary.p999_us = at(999);
  return summary;
}

}  // namespace sstfilter::bench
