// An emulated storage device for production_bench: every read of an SST
// file takes at least a latency drawn from a log-normal distribution of a
// given median and mean. A filter's worth is the device reads it saves, so
// its ops/s and tail latency depend on what one read costs; this machine's
// disk may be far faster (or slower) than the device a figure is wanted
// for. The reads themselves stay real (direct, counted by RocksDB and the
// OS); only their time is stretched to the model's.
//
// Why log-normal: a device's 4 KiB random reads have a sharp median and a
// long tail (queueing, garbage collection, a cloud volume's throttling).
// Median 120 µs and mean 510 µs (the slower disks of machines like the one
// docs/BENCHMARKS.md ran on) give sigma = 1.70 and a p99 of 6.3 ms. A model
// with mean = median is a fixed latency. Each reading thread waits on its
// own: the model has no queue and no limit on reads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

namespace sstfilter::bench {

class LatencyModel {
 public:
  // Bounds that keep every draw finite and a run's length sane: sigma at
  // most 3.03 (mean 100x the median), one read at most a minute.
  static constexpr double kMinMedianUs = 1;
  static constexpr double kMaxMeanToMedian = 100;
  static constexpr double kMaxMeanUs = 10e6;
  static constexpr double kMaxDrawUs = 60e6;
  static bool ModelIsValid(double median_us, double mean_us);

  // A model that is not valid becomes a fixed latency of median_us.
  LatencyModel(double median_us, double mean_us);
  double median_us() const { return median_us_; }
  double mean_us() const { return mean_us_; }
  double sigma() const { return sigma_; }
  // One read's latency in µs (at most kMaxDrawUs).
  double Draw(std::mt19937_64& rng) const;
  // "median 120 µs, mean 510 µs (log-normal, sigma 1.70)".
  std::string Describe() const;

 private:
  double median_us_, mean_us_, mu_, sigma_;
};

// Parses "MEDIAN,MEAN" in µs (a valid model, above); false with *error set
// otherwise.
bool ParseLatencyModel(const std::string& text, double* median_us, double* mean_us,
                       std::string* error);

// The default file system with every read of a `*.sst` file held until the
// model's latency has passed since the read began (a read slower than its
// draw is not delayed further). Other files (MANIFEST, WAL, OPTIONS) read
// at the disk's speed.
std::unique_ptr<ROCKSDB_NAMESPACE::FileSystem> NewEmulatedDeviceFileSystem(
    const LatencyModel& model, uint64_t seed);
// The default Env over that file system.
std::unique_ptr<ROCKSDB_NAMESPACE::Env> NewEmulatedDeviceEnv(const LatencyModel& model,
                                                             uint64_t seed);

// The id under which libsstfilter_emulated_device.so registers the file
// system for the stock db_bench: `--fs_uri=sstfilter.EmulatedDevice:120,510`.
inline constexpr char kEmulatedDeviceId[] = "sstfilter.EmulatedDevice";

}  // namespace sstfilter::bench
