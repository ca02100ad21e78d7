#include "bench/lsm_compactor.h"

#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/table_properties.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace sstfilter::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

bool Overlaps(const rdb::SstFileMetaData& f, const std::string& smallest,
              const std::string& largest) {
  return !(f.largestkey < smallest || largest < f.smallestkey);
}

}  // namespace

uint64_t LeveledCompactor::TargetBytes(int level) const {
  return static_cast<uint64_t>(shape_.level_base_bytes *
                               std::pow(shape_.level_multiplier, level - 1));
}

uint64_t LeveledCompactor::FileBytes(int output_level) const {
  uint64_t bytes = shape_.target_file_bytes;
  for (int l = 1; l < output_level; ++l) bytes *= shape_.target_file_multiplier;
  return bytes;
}

rdb::Status LeveledCompactor::CompactUntilSettled(rdb::DB* db, int* compactions) {
  *compactions = 0;
  while (true) {
    rdb::ColumnFamilyMetaData cf;
    db->GetColumnFamilyMetaData(&cf);
    rdb::TablePropertiesCollection props;
    rdb::Status s = db->GetPropertiesOfAllTables(&props);
    if (!s.ok()) return s;
    std::vector<std::vector<rdb::SstFileMetaData>> levels(kMaxLevels);
    for (const auto& level : cf.levels) {
      if (level.level < kMaxLevels) levels[level.level] = level.files;
    }
    for (int l = 1; l < kMaxLevels; ++l) {
      std::sort(levels[l].begin(), levels[l].end(),
                [](const auto& a, const auto& b) { return a.smallestkey < b.smallestkey; });
    }

    // Scores as RocksDB's leveled picker computes them, but from data and
    // index bytes: the filter block is left out so that it cannot steer.
    int best_level = -1;
    double best_score = 0;
    for (int l = 0; l + 1 < kMaxLevels; ++l) {
      double score;
      if (l == 0) {
        score = static_cast<double>(levels[0].size()) / shape_.l0_trigger;
      } else {
        uint64_t data_bytes = 0;
        for (const auto& f : levels[l]) {
          const auto it = props.find(f.db_path + f.name);
          data_bytes += it != props.end() ? it->second->data_size + it->second->index_size : f.size;
        }
        score = static_cast<double>(data_bytes) / TargetBytes(l);
        if (score <= 1.0) continue;  // RocksDB compacts a level once it is over target
      }
      if (score >= 1.0 && score > best_score) {
        best_score = score;
        best_level = l;
      }
    }
    if (best_level < 0) return rdb::Status::OK();

    // Inputs: all of L0, or the next file of the level in key order; plus
    // every file of the next level that overlaps them.
    std::vector<rdb::SstFileMetaData> picked;
    if (best_level == 0) {
      picked = levels[0];
    } else {
      const auto& files = levels[best_level];
      auto it = std::find_if(files.begin(), files.end(), [&](const auto& f) {
        return f.smallestkey > cursor_[best_level];
      });
      if (it == files.end()) it = files.begin();
      picked.push_back(*it);
      cursor_[best_level] = it->largestkey;
    }
    std::string smallest = picked[0].smallestkey, largest = picked[0].largestkey;
    for (const auto& f : picked) {
      smallest = std::min(smallest, f.smallestkey);
      largest = std::max(largest, f.largestkey);
    }
    std::vector<std::string> inputs;
    for (const auto& f : picked) inputs.push_back(f.name);
    for (const auto& f : levels[best_level + 1]) {
      if (Overlaps(f, smallest, largest)) inputs.push_back(f.name);
    }
    rdb::CompactionOptions options;
    options.compression = rdb::kNoCompression;  // CompactionOptions defaults to Snappy
    options.output_file_size_limit = FileBytes(best_level + 1);
    options.max_subcompactions = 1;
    s = db->CompactFiles(options, inputs, best_level + 1);
    if (!s.ok()) return s;
    ++*compactions;
  }
}

}  // namespace sstfilter::bench
