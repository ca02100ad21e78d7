// production_bench's emulated device (bench/emulated_device.h): its latency
// model has the median and mean asked for, and reads of SST files through
// its Env take at least the model's latency.
#include "bench/emulated_device.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <rocksdb/env.h>

#include "tests/temp_dir.h"

namespace sstfilter::bench {
namespace {

// The logs of the draws are normal(ln median, sigma^2): their mean and
// variance, and the share of draws under the median, within 5 standard
// errors of what the model says (N = 200,000 draws).
TEST(EmulatedDeviceTest, DrawsFollowTheModel) {
  for (const auto& [median, mean] : std::vector<std::pair<double, double>>{
           {120, 510}, {50, 60}, {1000, 1000}}) {
    const LatencyModel model(median, mean);
    EXPECT_NEAR(model.sigma(), std::sqrt(2 * std::log(mean / median)), 1e-12);
    std::mt19937_64 rng(median);
    constexpr int kDraws = 200000;
    double sum = 0, sum_sq = 0;
    int below = 0;
    for (int i = 0; i < kDraws; ++i) {
      const double us = model.Draw(rng);
      ASSERT_GT(us, 0);
      sum += std::log(us);
      sum_sq += std::log(us) * std::log(us);
      below += us < median;
    }
    const double s = model.sigma();
    const double log_mean = sum / kDraws;
    const double log_var = sum_sq / kDraws - log_mean * log_mean;
    EXPECT_NEAR(log_mean, std::log(median), 5 * s / std::sqrt(kDraws) + 1e-9) << median;
    EXPECT_NEAR(log_var, s * s, 5 * s * s * std::sqrt(2.0 / kDraws) + 1e-9) << median;
    if (s > 0) {
      EXPECT_NEAR(below / static_cast<double>(kDraws), 0.5, 5 * 0.5 / std::sqrt(kDraws));
    }
  }
}

TEST(EmulatedDeviceTest, ParsesOnlyAModelItCanDraw) {
  double median = 0, mean = 0;
  std::string error;
  EXPECT_TRUE(ParseLatencyModel("120,510", &median, &mean, &error)) << error;
  EXPECT_EQ(median, 120);
  EXPECT_EQ(mean, 510);
  EXPECT_TRUE(ParseLatencyModel("80,80", &median, &mean, &error)) << error;
  for (const char* bad : {"", "120", "120,", ",510", "510,120", "0,10", "-1,10", "a,b", "120,510x",
                          "1,nan", "1,inf", "1,20000000"}) {
    EXPECT_FALSE(ParseLatencyModel(bad, &median, &mean, &error)) << bad;
    EXPECT_NE(error.find("MEDIAN,MEAN"), std::string::npos) << bad;
  }
}

// A lower bound only: a read can always take longer than its model says.
TEST(EmulatedDeviceTest, SstReadsTakeAtLeastTheModelsLatency) {
  test::TempDir dir("emulated_device");
  const std::string path = dir.path() + "/000001.sst";
  std::ofstream(path) << std::string(8192, 'x');
  const std::unique_ptr<ROCKSDB_NAMESPACE::Env> env =
      NewEmulatedDeviceEnv(LatencyModel(3000, 3000), 1);
  std::unique_ptr<ROCKSDB_NAMESPACE::RandomAccessFile> file;
  ASSERT_TRUE(env->NewRandomAccessFile(path, &file, ROCKSDB_NAMESPACE::EnvOptions()).ok());
  char scratch[4096];
  for (int i = 0; i < 3; ++i) {
    ROCKSDB_NAMESPACE::Slice result;
    const auto start = std::chrono::steady_clock::now();
    ASSERT_TRUE(file->Read(4096 * (i % 2), 4096, &result, scratch).ok());
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_GE(took, std::chrono::microseconds(3000));
    EXPECT_EQ(result.ToString(), std::string(4096, 'x'));
  }
}

}  // namespace
}  // namespace sstfilter::bench
