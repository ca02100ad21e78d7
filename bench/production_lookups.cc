#include "bench/production_lookups.h"

#include <atomic>
#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include <rocksdb/perf_context.h>

#include "bench/bench_util.h"

namespace sstfilter::bench {

namespace rdb = ROCKSDB_NAMESPACE;

namespace {

// syscr and read_bytes of this process: reads it asked for and bytes the
// block layer fetched for it (direct reads included, page-cache hits not).
void ReadProcIo(uint64_t* reads, uint64_t* bytes) {
  std::ifstream in("/proc/self/io");
  std::string name;
  uint64_t v = 0;
  while (in >> name >> v) {
    if (name == "syscr:") *reads = v;
    if (name == "read_bytes:") *bytes = v;
  }
}

uint64_t Below(uint64_t x, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) * n) >> 64);
}

}  // namespace

ReadCounters ReadCounters::Capture(rdb::Statistics* s) {
  static constexpr rdb::Tickers kTickers[] = {
      rdb::BLOOM_FILTER_USEFUL,     rdb::BLOOM_FILTER_FULL_POSITIVE,
      rdb::BLOOM_FILTER_FULL_TRUE_POSITIVE,
      rdb::BLOCK_CACHE_DATA_HIT,    rdb::BLOCK_CACHE_DATA_MISS,
      rdb::BLOCK_CACHE_INDEX_HIT,   rdb::BLOCK_CACHE_INDEX_MISS,
      rdb::BLOCK_CACHE_FILTER_HIT,  rdb::BLOCK_CACHE_FILTER_MISS};
  static_assert(std::size(kTickers) == kOsReads, "one ticker per statistics counter");
  ReadCounters c;
  for (size_t i = 0; i < std::size(kTickers); ++i) c.value[i] = s->getTickerCount(kTickers[i]);
  ReadProcIo(&c.value[kOsReads], &c.value[kOsReadBytes]);
  return c;
}

ReadCounters ReadCounters::Minus(const ReadCounters& before) const {
  ReadCounters d;
  for (int i = 0; i < kCounters; ++i) d.value[i] = value[i] - before.value[i];
  return d;
}

void ReadCounters::Add(const ReadCounters& other) {
  for (int i = 0; i < kCounters; ++i) value[i] += other.value[i];
}

WorkloadResult WorkloadTally::Result() const {
  WorkloadResult r;
  r.hits = hit_us.size();
  r.misses = miss_us.size();
  r.seconds = seconds;
  r.counters = counters;
  r.by_level = by_level;
  r.slice_ops_per_second = slice_ops_per_second;
  r.hit_latency = Summarize(hit_us);
  r.miss_latency = Summarize(miss_us);
  return r;
}

bool RunWorkload(rdb::DB* db, rdb::Statistics* statistics, const Workload& w, uint64_t keys,
                 const std::function<std::string(uint64_t)>& key,
                 const std::function<std::string(uint64_t)>& value, WorkloadResult* result,
                 std::string* error) {
  WorkloadTally tally;
  if (!AddWorkloadRun(db, statistics, w, keys, key, value, &tally, error)) return false;
  *result = tally.Result();
  return true;
}

bool AddWorkloadRun(rdb::DB* db, rdb::Statistics* statistics, const Workload& w, uint64_t keys,
                    const std::function<std::string(uint64_t)>& key,
                    const std::function<std::string(uint64_t)>& value, WorkloadTally* tally,
                    std::string* error) {
  struct PerThread {
    std::vector<double> hit_us, miss_us;
    uint64_t wrong = 0;
    std::string first_wrong;
    std::map<int, LevelFilterCounts> by_level;
  };
  const int threads = std::max(1, w.threads);
  std::vector<PerThread> per(threads);
  const ReadCounters before = ReadCounters::Capture(statistics);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      PerThread& mine = per[t];
      const uint64_t n = w.ops / threads + (static_cast<uint64_t>(t) < w.ops % threads);
      rdb::PinnableSlice got;
      if (w.by_level) {
        rdb::get_perf_context()->ClearPerLevelPerfContext();  // also disables it
        EnableLookupCounting();
      }
      const auto deadline =
          start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(w.min_seconds));
      bool past_deadline = w.min_seconds <= 0;
      for (uint64_t j = 0; j < n || !past_deadline; ++j) {
        if (!past_deadline && j % 256 == 0) {
          past_deadline = std::chrono::steady_clock::now() >= deadline;
        }
        const uint64_t r = Mix64(w.salt ^ Mix64((static_cast<uint64_t>(t) << 40) + j));
        const bool hit = Below(Mix64(r), 100) < static_cast<uint64_t>(w.hit_percent);
        // Absent keys are indexes past the loaded ones: spread like the
        // present ones over the key space, so inside the files' ranges.
        // Drawn from 2^63 of them, so that no absent key comes back: a
        // repeated miss finds its false positive's block in the cache, and
        // the faster a policy, the more of its misses would repeat.
        const uint64_t i = hit ? Below(r, keys) : keys + (r >> 1);
        const std::string k = key(i);
        got.Reset();
        const auto t0 = std::chrono::steady_clock::now();
        const rdb::Status s = db->Get(rdb::ReadOptions(), db->DefaultColumnFamily(), k, &got);
        const double us =
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                .count();
        (hit ? mine.hit_us : mine.miss_us).push_back(us);
        const bool right = hit ? s.ok() && got == value(i) : s.IsNotFound();
        if (!right && mine.wrong++ == 0) {
          mine.first_wrong = std::string(hit ? "present" : "absent") + " key " +
                             std::to_string(i) + ": " + s.ToString();
        }
      }
      if (w.by_level) {
        mine.by_level = ThreadLevelCounts();
        rdb::get_perf_context()->DisablePerLevelPerfContext();
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  tally->seconds += seconds;
  tally->counters.Add(ReadCounters::Capture(statistics).Minus(before));
  uint64_t lookups = 0;
  for (PerThread& p : per) {
    if (p.wrong > 0) {
      *error = std::to_string(p.wrong) + " wrong answers, first: " + p.first_wrong;
      return false;
    }
    for (const auto& [level, c] : p.by_level) tally->by_level[level].Add(c);
    lookups += p.hit_us.size() + p.miss_us.size();
    tally->hit_us.insert(tally->hit_us.end(), p.hit_us.begin(), p.hit_us.end());
    tally->miss_us.insert(tally->miss_us.end(), p.miss_us.begin(), p.miss_us.end());
  }
  tally->slice_ops_per_second.push_back(seconds > 0 ? lookups / seconds : 0);
  return true;
}

}  // namespace sstfilter::bench
