// production_bench's emulated device (bench/emulated_device.h): its latency
// model has the median and mean asked for, and reads of SST files through
// its Env take at least the model's latency.
#include "bench/emulated_device.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <rocksdb/file_system.h>

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
    double sum = 0, sum_sq = 0, sum_us = 0;
    int below = 0;
    for (int i = 0; i < kDraws; ++i) {
      const double us = model.Draw(rng);
      ASSERT_GT(us, 0);
      sum_us += us;
      sum += std::log(us);
      sum_sq += std::log(us) * std::log(us);
      below += us < median;
    }
    const double s = model.sigma();
    // What the flag promises: the draws average `mean`. The sample mean's
    // standard error is mean * sqrt(exp(sigma^2) - 1) / sqrt(N).
    const double mean_se = mean * std::sqrt(std::expm1(s * s) / kDraws);
    EXPECT_NEAR(sum_us / kDraws, mean, 5 * mean_se + 1e-9) << median;
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
  EXPECT_TRUE(ParseLatencyModel("1,100", &median, &mean, &error)) << error;
  for (const char* bad : {"", "120", "120,", ",510", "510,120", "0,10", "-1,10", "a,b", "120,510x",
                          "1,nan", "1,inf", "1,101", "0.5,1", "1e-310,1", "200000,20000000"}) {
    EXPECT_FALSE(ParseLatencyModel(bad, &median, &mean, &error)) << bad;
    EXPECT_NE(error.find("MEDIAN,MEAN"), std::string::npos) << bad;
  }
  // A model the parser refuses, made directly, is a fixed latency: no NaN.
  std::mt19937_64 rng(1);
  EXPECT_EQ(LatencyModel(510, 120).Draw(rng), 510);
  EXPECT_EQ(LatencyModel(510, 120).sigma(), 0);
}

// Lower bounds on the reads of SST files, whatever their path (Read,
// MultiRead, ReadAsync); other files at the disk's speed, bounded far above
// a page-cache read (200 ms). A read can always take longer than its model.
TEST(EmulatedDeviceTest, SstReadsTakeAtLeastTheModelsLatency) {
  namespace rdb = ROCKSDB_NAMESPACE;
  test::TempDir dir("emulated_device");
  const std::chrono::milliseconds latency(200);
  const std::unique_ptr<rdb::FileSystem> fs =
      NewEmulatedDeviceFileSystem(LatencyModel(200000, 200000), 1);
  const auto time = [](const std::function<void()>& read) {
    const auto start = std::chrono::steady_clock::now();
    read();
    return std::chrono::steady_clock::now() - start;
  };
  for (const std::string name : {"000001.sst", "MANIFEST-000001"}) {
    const std::string path = dir.path() + "/" + name;
    std::ofstream(path) << std::string(8192, 'x');
    std::unique_ptr<rdb::FSRandomAccessFile> file;
    ASSERT_TRUE(fs->NewRandomAccessFile(path, rdb::FileOptions(), &file, nullptr).ok());
    const bool slow = name.size() > 4 && name.substr(name.size() - 4) == ".sst";
    char scratch[4096];
    rdb::Slice result;
    const auto read = time([&] {
      ASSERT_TRUE(file->Read(4096, 4096, rdb::IOOptions(), &result, scratch, nullptr).ok());
    });
    EXPECT_EQ(result.ToString(), std::string(4096, 'x')) << name;
    rdb::FSReadRequest req;
    req.offset = 0;
    req.len = 4096;
    req.scratch = scratch;
    const auto multi = time([&] {
      ASSERT_TRUE(file->MultiRead(&req, 1, rdb::IOOptions(), nullptr).ok());
    });
    EXPECT_TRUE(req.status.ok()) << name;
    if (!slow) {  // the disk's own file: without io_uring it has no async reads
      EXPECT_LT(read, latency) << name;
      EXPECT_LT(multi, latency) << name;
      continue;
    }
    bool called = false;
    const auto async = time([&] {
      void* handle = nullptr;
      rdb::IOHandleDeleter deleter;
      ASSERT_TRUE(file->ReadAsync(req, rdb::IOOptions(),
                                  [&](auto&, void*) { called = true; }, nullptr, &handle,
                                  &deleter, nullptr).ok());
    });
    EXPECT_TRUE(called) << name;
    for (const auto took : {read, multi, async}) EXPECT_GE(took, latency) << name;
  }
}

}  // namespace
}  // namespace sstfilter::bench
