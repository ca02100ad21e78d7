#include "bench/emulated_device.h"

#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <type_traits>

#include <rocksdb/file_system.h>

namespace sstfilter::bench {
namespace rdb = ROCKSDB_NAMESPACE;

LatencyModel::LatencyModel(double median_us, double mean_us)
    : median_us_(median_us),
      // A model ParseLatencyModel would refuse is a fixed latency.
      mean_us_(ModelIsValid(median_us, mean_us) ? mean_us : median_us),
      mu_(std::log(median_us_)),
      // mean = median * exp(sigma^2 / 2).
      sigma_(std::sqrt(2 * std::log(mean_us_ / median_us_))) {}

bool LatencyModel::ModelIsValid(double median_us, double mean_us) {
  return median_us >= kMinMedianUs && mean_us >= median_us &&
         mean_us <= kMaxMeanToMedian * median_us && mean_us <= kMaxMeanUs;
}

double LatencyModel::Draw(std::mt19937_64& rng) const {
  if (sigma_ == 0) return median_us_;
  const double us = std::exp(mu_ + sigma_ * std::normal_distribution<double>()(rng));
  return std::min(us, kMaxDrawUs);
}

std::string LatencyModel::Describe() const {
  char text[128];
  std::snprintf(text, sizeof(text), "median %g µs, mean %g µs (log-normal, sigma %.2f)",
                median_us_, mean_us_, sigma_);
  return text;
}

bool ParseLatencyModel(const std::string& text, double* median_us, double* mean_us,
                       std::string* error) {
  const size_t comma = text.find(',');
  char* end = nullptr;
  const std::string median_text = text.substr(0, comma);
  const std::string mean_text = comma == std::string::npos ? "" : text.substr(comma + 1);
  *median_us = std::strtod(median_text.c_str(), &end);
  const bool median_ok = !median_text.empty() && *end == '\0';
  *mean_us = std::strtod(mean_text.c_str(), &end);
  const bool mean_ok = !mean_text.empty() && *end == '\0';
  if (!median_ok || !mean_ok || !LatencyModel::ModelIsValid(*median_us, *mean_us)) {
    *error = "want MEDIAN,MEAN in µs with 1 <= MEDIAN <= MEAN <= 100 MEDIAN and MEAN <= 10000000, "
             "not '" + text + "'";
    return false;
  }
  return true;
}

namespace {

// ReadAsync's callback type: its request argument lost its const in
// RocksDB 8.x; taken from the base class so that one override fits both.
template <class F>
struct ThirdParameter;
template <class R, class C, class A1, class A2, class A3, class... Rest>
struct ThirdParameter<R (C::*)(A1, A2, A3, Rest...)> {
  using type = A3;
};
using ReadAsyncCallback = ThirdParameter<decltype(&rdb::FSRandomAccessFile::ReadAsync)>::type;

// RocksDB 11.x's SubmitReadAsync, where it exists, would pass a read to the
// disk past Read: routed back through Read (its base class's synchronous
// fallback).
template <class Base, class = void>
struct SubmitReadAsyncThroughRead : Base {
  using Base::Base;
};
template <class Base>
struct SubmitReadAsyncThroughRead<Base, std::void_t<decltype(&Base::SubmitReadAsync)>> : Base {
  using Base::Base;
  bool SubmitReadAsync(rdb::FSReadRequest& req, const rdb::IOOptions& opts,
                       std::function<void(rdb::FSReadRequest&)> cb,
                       rdb::IODebugContext* dbg) override {
    req.status = this->Read(req.offset, req.len, opts, &req.result, req.scratch, dbg);
    cb(req);
    return false;
  }
};

class SlowFile : public SubmitReadAsyncThroughRead<rdb::FSRandomAccessFileOwnerWrapper> {
 public:
  SlowFile(std::unique_ptr<rdb::FSRandomAccessFile>&& file, const LatencyModel& model,
           uint64_t seed)
      : SubmitReadAsyncThroughRead(std::move(file)), model_(model), seed_(seed) {}

  rdb::IOStatus Read(uint64_t offset, size_t n, const rdb::IOOptions& options, rdb::Slice* result,
                     char* scratch, rdb::IODebugContext* dbg) const override {
    const auto start = std::chrono::steady_clock::now();
    rdb::IOStatus s = target()->Read(offset, n, options, result, scratch, dbg);
    WaitFrom(start);
    return s;
  }
  // The requests of one MultiRead go to the device together: one latency.
  rdb::IOStatus MultiRead(rdb::FSReadRequest* reqs, size_t num_reqs, const rdb::IOOptions& options,
                          rdb::IODebugContext* dbg) override {
    const auto start = std::chrono::steady_clock::now();
    rdb::IOStatus s = target()->MultiRead(reqs, num_reqs, options, dbg);
    WaitFrom(start);
    return s;
  }
  // Async reads (async_io) complete at once, through Read: the base class's
  // synchronous fallback, not the wrapped file's.
  rdb::IOStatus ReadAsync(rdb::FSReadRequest& req, const rdb::IOOptions& opts,
                          ReadAsyncCallback cb, void* cb_arg, void** io_handle,
                          rdb::IOHandleDeleter* del_fn, rdb::IODebugContext* dbg) override {
    return rdb::FSRandomAccessFile::ReadAsync(req, opts, std::move(cb), cb_arg, io_handle, del_fn,
                                              dbg);
  }

 private:
  void WaitFrom(std::chrono::steady_clock::time_point start) const {
    // One generator per thread, numbered in the order threads first read:
    // the draws are the device's noise, not reproducible between runs.
    static std::atomic<uint64_t> next_thread{0};
    thread_local std::mt19937_64 rng = [this] {
      // Linux rounds a sleep up by the thread's timer slack, 50 µs unless
      // set: as much as the median read of a fast disk.
      prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
      return std::mt19937_64(seed_ + 0x9E3779B97F4A7C15ULL * next_thread.fetch_add(1));
    }();
    const double us = model_.Draw(rng);
    std::this_thread::sleep_until(start + std::chrono::nanoseconds(static_cast<int64_t>(us * 1e3)));
  }

  const LatencyModel model_;
  const uint64_t seed_;
};

class SlowFileSystem : public rdb::FileSystemWrapper {
 public:
  SlowFileSystem(const LatencyModel& model, uint64_t seed)
      : FileSystemWrapper(rdb::FileSystem::Default()), model_(model), seed_(seed) {}
  const char* Name() const override { return "EmulatedDevice"; }

  rdb::IOStatus NewRandomAccessFile(const std::string& name, const rdb::FileOptions& options,
                                    std::unique_ptr<rdb::FSRandomAccessFile>* file,
                                    rdb::IODebugContext* dbg) override {
    rdb::IOStatus s = target()->NewRandomAccessFile(name, options, file, dbg);
    const std::string suffix = ".sst";
    if (s.ok() && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      *file = std::make_unique<SlowFile>(std::move(*file), model_, seed_);
    }
    return s;
  }

 private:
  const LatencyModel model_;
  const uint64_t seed_;
};

}  // namespace

std::unique_ptr<rdb::FileSystem> NewEmulatedDeviceFileSystem(const LatencyModel& model,
                                                             uint64_t seed) {
  return std::make_unique<SlowFileSystem>(model, seed);
}

std::unique_ptr<rdb::Env> NewEmulatedDeviceEnv(const LatencyModel& model, uint64_t seed) {
  return rdb::NewCompositeEnv(NewEmulatedDeviceFileSystem(model, seed));
}

}  // namespace sstfilter::bench
