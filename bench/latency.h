// Mean and percentiles of per-operation latencies: one summary for every
// benchmark that times operations one by one (Get calls, device reads).
// No RocksDB dependency.
#pragma once

#include <vector>

namespace sstfilter::bench {

// In microseconds; a percentile is the value at rank floor(n * q) of n
// samples.
struct LatencySummary {
  double mean_us = 0;
  double p50_us = 0;
  double p99_us = 0;
  double p999_us = 0;
};
LatencySummary Summarize(std::vector<double> latencies_us);

}  // namespace sstfilter::bench
