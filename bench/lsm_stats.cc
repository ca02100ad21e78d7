#include "bench/lsm_stats.h"

#include <rocksdb/metadata.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/table_properties.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "plugin/core/block_allocation.h"

namespace sstfilter::bench {

namespace rdb = ROCKSDB_NAMESPACE;

void EnableLookupCounting() {
  rdb::SetPerfLevel(rdb::PerfLevel::kEnableCount);
  rdb::get_perf_context()->EnablePerLevelPerfContext();
}

LookupCounters LookupCounters::Capture(rdb::Statistics* statistics) {
  LookupCounters c;
  c.useful = statistics->getTickerCount(rdb::BLOOM_FILTER_USEFUL);
  c.positive = statistics->getTickerCount(rdb::BLOOM_FILTER_FULL_POSITIVE);
  c.true_positive = statistics->getTickerCount(rdb::BLOOM_FILTER_FULL_TRUE_POSITIVE);
  c.data_cache_accesses = statistics->getTickerCount(rdb::BLOCK_CACHE_DATA_MISS) +
                          statistics->getTickerCount(rdb::BLOCK_CACHE_DATA_HIT);
  const rdb::PerfContext* perf = rdb::get_perf_context();
  c.data_block_reads = perf->block_read_count - perf->index_block_read_count -
                       perf->filter_block_read_count -
                       perf->compression_dict_block_read_count;
  c.by_level = ThreadLevelCounts();
  return c;
}

std::map<int, LevelFilterCounts> ThreadLevelCounts() {
  std::map<int, LevelFilterCounts> counts;
  const rdb::PerfContext* perf = rdb::get_perf_context();
  if (perf->level_to_perf_context != nullptr) {
    for (const auto& [level, p] : *perf->level_to_perf_context) {
      counts[static_cast<int>(level)] = {p.bloom_filter_useful, p.bloom_filter_full_positive,
                                         p.bloom_filter_full_true_positive,
                                         p.block_cache_miss_count};
    }
  }
  return counts;
}

LookupCounters LookupCounters::Minus(const LookupCounters& before) const {
  LookupCounters d;
  d.useful = useful - before.useful;
  d.positive = positive - before.positive;
  d.true_positive = true_positive - before.true_positive;
  d.data_block_reads = data_block_reads - before.data_block_reads;
  d.data_cache_accesses = data_cache_accesses - before.data_cache_accesses;
  for (const auto& [level, now] : by_level) {
    LevelFilterCounts then;
    if (auto it = before.by_level.find(level); it != before.by_level.end()) then = it->second;
    d.by_level[level] = now.Minus(then);
  }
  return d;
}

TableSummary SummarizeTables(rdb::DB* db, const std::vector<std::string>& expected_policies,
                             bool some_unfiltered) {
  rdb::TablePropertiesCollection props;
  const rdb::Status s = db->GetPropertiesOfAllTables(&props);
  TableSummary summary;
  if (!s.ok()) {
    summary.wrong_policy.push_back("GetPropertiesOfAllTables: " + s.ToString());
    return summary;
  }
  std::vector<rdb::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  std::map<std::string, int> level_of;  // by the path GetPropertiesOfAllTables uses
  for (const auto& f : live) level_of[f.db_path + f.name] = f.level;
  const bool want_filter = !expected_policies.empty() && !expected_policies[0].empty();
  uint64_t with_filter = 0;
  for (const auto& [file, p] : props) {
    // Whole-key filtering without a prefix extractor adds every distinct key
    // once, so filter entries = keys; older files may not record the count.
    const uint64_t entries = p->num_filter_entries ? p->num_filter_entries : p->num_entries;
    auto add = [&](TableCounts& c) {
      ++c.files;
      c.entries += entries;
      c.filter_bytes += p->filter_size;
      // Partitioned filters are several blocks; counted as one here.
      if (p->filter_size > 0) c.alloc_bytes += sstfilter::AllocatedBlockBytes(p->filter_size);
    };
    add(summary);
    if (const auto it = level_of.find(file);
        it != level_of.end() && it->second >= 0 && it->second < kMaxLevels) {
      add(summary.by_level[it->second]);
    }
    with_filter += p->filter_size > 0;
    const bool filter_ok = want_filter ? (p->filter_size > 0 || some_unfiltered) : p->filter_size == 0;
    const bool name_ok = std::find(expected_policies.begin(), expected_policies.end(),
                                   p->filter_policy_name) != expected_policies.end();
    if (!name_ok || !filter_ok) {
      summary.wrong_policy.push_back(file + ": filter policy '" + p->filter_policy_name +
                                     "', filter " + std::to_string(p->filter_size) +
                                     " bytes");
    }
  }
  if (summary.files == 0) summary.wrong_policy.push_back("no SST files at all");
  if (want_filter && summary.files > 0 && with_filter == 0) {
    summary.wrong_policy.push_back("no SST file has a filter");
  }
  return summary;
}

FileRanges::FileRanges(rdb::DB* db) {
  std::vector<rdb::LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);
  for (const auto& f : files) {
    if (f.level >= 0 && f.level < kMaxLevels) {
      levels_[f.level].push_back({f.smallestkey, f.largestkey, f.file_number});
    }
  }
  for (auto& level : levels_) {
    std::sort(level.begin(), level.end(),
              [](const Range& a, const Range& b) { return a.smallest < b.smallest; });
  }
}

template <class Fn>
void FileRanges::ForEachFileFor(const rdb::Slice& key_slice, Fn fn) const {
  const std::string key = key_slice.ToString();
  for (const Range& r : levels_[0]) {
    if (r.smallest <= key && key <= r.largest) fn(r);
  }
  // Deeper levels hold disjoint ranges: the candidate is the last file whose
  // smallest key is <= key.
  for (int level = 1; level < kMaxLevels; ++level) {
    const auto& files = levels_[level];
    auto it = std::upper_bound(files.begin(), files.end(), key,
                               [](const std::string& k, const Range& r) { return k < r.smallest; });
    if (it != files.begin() && key <= std::prev(it)->largest) fn(*std::prev(it));
  }
}

int FileRanges::FilesFor(const rdb::Slice& key) const {
  int count = 0;
  ForEachFileFor(key, [&count](const Range&) { ++count; });
  return count;
}

void FileRanges::FileNumbersFor(const rdb::Slice& key, std::vector<uint64_t>* numbers) const {
  ForEachFileFor(key, [numbers](const Range& r) { numbers->push_back(r.number); });
}

std::string FileRanges::Shape() const {
  int last = 0;
  for (int level = 0; level < kMaxLevels; ++level) {
    if (!levels_[level].empty()) last = level;
  }
  std::string shape;
  for (int level = 0; level <= last; ++level) {
    shape += (level ? "/" : "") + std::to_string(levels_[level].size());
  }
  return shape;
}

int FileRanges::NonEmptyLevels() const {
  int n = 0;
  for (const auto& level : levels_) n += !level.empty();
  return n;
}

void WaitForBackgroundWork(rdb::DB* db, bool include_pending_compactions) {
  // RocksDB 7.8 has no DB::WaitForCompact; these four properties cover
  // queued and running flushes and compactions (a finished flush or
  // compaction installs its version, which sets compaction-pending, before it
  // stops counting as running). Two idle polls in a row for good measure;
  // 0.5 ms apart, as the load waits after each of its ~250 flushes.
  const char* const kBusy[] = {"rocksdb.num-running-compactions",
                               "rocksdb.num-running-flushes",
                               "rocksdb.mem-table-flush-pending", "rocksdb.compaction-pending"};
  const size_t checked = include_pending_compactions ? 4 : 3;
  int idle_polls = 0;
  while (idle_polls < 2) {
    bool busy = false;
    for (size_t i = 0; i < checked; ++i) {
      uint64_t value = 0;
      busy |= db->GetIntProperty(kBusy[i], &value) && value > 0;
    }
    idle_polls = busy ? 0 : idle_polls + 1;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

}  // namespace sstfilter::bench
