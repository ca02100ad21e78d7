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

void AppendOutputs(const rdb::CompactionJobInfo& info, std::vector<BuiltFile>* files) {
  for (size_t i = 0; i < info.output_file_infos.size(); ++i) {
    const auto props = i < info.output_files.size()
                           ? info.table_properties.find(info.output_files[i])
                           : info.table_properties.end();
    files->push_back({info.output_file_infos[i].file_number, info.output_level,
                      props == info.table_properties.end() ? 0 : props->second->num_entries});
  }
}

std::vector<uint64_t> LeveledCompactor::Targets(const std::vector<uint64_t>& level_bytes,
                                                int* base_level) const {
  const int num_levels = static_cast<int>(level_bytes.size());
  const int last = num_levels - 1;
  const double mult = shape_.level_multiplier;
  std::vector<uint64_t> targets(num_levels, 0);
  if (!shape_.dynamic) {
    *base_level = 1;
    for (int l = 1; l < last; ++l) {
      targets[l] = static_cast<uint64_t>(shape_.level_base_bytes * std::pow(mult, l - 1));
    }
    return targets;
  }
  // RocksDB 7.8.3 VersionStorageInfo::CalculateBaseBytes, dynamic branch.
  uint64_t max_level_bytes = 0;
  int first_non_empty = -1;
  for (int l = 1; l < num_levels; ++l) {
    if (level_bytes[l] > 0 && first_non_empty < 0) first_non_empty = l;
    max_level_bytes = std::max(max_level_bytes, level_bytes[l]);
  }
  if (max_level_bytes == 0) {
    *base_level = last;  // L0 compacts straight into the last level
    return targets;
  }
  const uint64_t base_max = shape_.level_base_bytes;
  const uint64_t base_min = static_cast<uint64_t>(base_max / mult);
  uint64_t cur = max_level_bytes;
  for (int l = num_levels - 2; l >= first_non_empty; --l) cur = static_cast<uint64_t>(cur / mult);
  uint64_t base_bytes;
  *base_level = first_non_empty;
  if (cur <= base_min) {
    base_bytes = base_min + 1;
  } else {
    while (*base_level > 1 && cur > base_max) {
      --*base_level;
      cur = static_cast<uint64_t>(cur / mult);
    }
    base_bytes = std::min(cur, base_max);
  }
  double level_size = static_cast<double>(base_bytes);
  for (int l = *base_level; l < last; ++l) {
    if (l > *base_level) level_size *= mult;
    targets[l] = std::max(static_cast<uint64_t>(level_size), base_max);
  }
  return targets;
}

uint64_t LeveledCompactor::FileBytes(int output_level, int base_level) const {
  // RocksDB's max_file_size[i]: target_file_size_base for i <= 1, times the
  // multiplier per level beyond; dynamic levels count i from the base level.
  const int index = shape_.dynamic ? output_level - base_level : output_level;
  uint64_t bytes = shape_.target_file_bytes;
  for (int l = 1; l < index; ++l) bytes *= shape_.target_file_multiplier;
  return bytes;
}

rdb::Status LeveledCompactor::ReadLevels(rdb::DB* db, Levels* levels,
                                         std::vector<uint64_t>* level_bytes) const {
  rdb::ColumnFamilyMetaData cf;
  db->GetColumnFamilyMetaData(&cf);
  rdb::TablePropertiesCollection props;
  const rdb::Status s = db->GetPropertiesOfAllTables(&props);
  if (!s.ok()) return s;
  levels->assign(kMaxLevels, {});
  for (const auto& level : cf.levels) {
    if (level.level < kMaxLevels) (*levels)[level.level] = level.files;
  }
  level_bytes->assign(kMaxLevels, 0);
  for (int l = 1; l < kMaxLevels; ++l) {
    std::sort((*levels)[l].begin(), (*levels)[l].end(),
              [](const auto& a, const auto& b) { return a.smallestkey < b.smallestkey; });
    for (const auto& f : (*levels)[l]) {
      const auto it = props.find(f.db_path + f.name);
      (*level_bytes)[l] += it != props.end() ? it->second->data_size + it->second->index_size : f.size;
    }
  }
  return rdb::Status::OK();
}

int LeveledCompactor::PickLevel(const Levels& levels, const std::vector<uint64_t>& level_bytes,
                                const std::vector<uint64_t>& targets) const {
  int best_level = -1;
  double best_score = 0;
  for (int l = 0; l + 1 < kMaxLevels; ++l) {
    double score;
    if (l == 0) {
      score = static_cast<double>(levels[0].size()) / shape_.l0_trigger;
    } else {
      if (targets[l] == 0) continue;  // above the base level: takes no input
      score = static_cast<double>(level_bytes[l]) / targets[l];
      if (score <= 1.0) continue;  // RocksDB compacts a level once it is over target
    }
    if (score >= 1.0 && score > best_score) {
      best_score = score;
      best_level = l;
    }
  }
  return best_level;
}

std::vector<std::string> LeveledCompactor::PickInputs(const Levels& levels, int level,
                                                      int output_level) {
  std::vector<rdb::SstFileMetaData> picked;
  if (level == 0) {
    picked = levels[0];
  } else {
    const auto& files = levels[level];
    auto it = std::find_if(files.begin(), files.end(),
                           [&](const auto& f) { return f.smallestkey > cursor_[level]; });
    if (it == files.end()) it = files.begin();
    picked.push_back(*it);
    cursor_[level] = it->largestkey;
  }
  std::string smallest = picked[0].smallestkey, largest = picked[0].largestkey;
  for (const auto& f : picked) {
    smallest = std::min(smallest, f.smallestkey);
    largest = std::max(largest, f.largestkey);
  }
  std::vector<std::string> inputs;
  for (const auto& f : picked) inputs.push_back(f.name);
  for (const auto& f : levels[output_level]) {
    if (Overlaps(f, smallest, largest)) inputs.push_back(f.name);
  }
  return inputs;
}

rdb::Status LeveledCompactor::CompactUntilSettled(rdb::DB* db, int* compactions) {
  *compactions = 0;
  while (true) {
    Levels levels;
    std::vector<uint64_t> level_bytes;
    rdb::Status s = ReadLevels(db, &levels, &level_bytes);
    if (!s.ok()) return s;
    int base_level = 1;
    const std::vector<uint64_t> targets = Targets(level_bytes, &base_level);
    const int level = PickLevel(levels, level_bytes, targets);
    if (level < 0) return rdb::Status::OK();
    const int output_level = level == 0 ? base_level : level + 1;
    rdb::CompactionOptions options;
    options.compression = rdb::kNoCompression;  // CompactionOptions defaults to Snappy
    options.output_file_size_limit = FileBytes(output_level, base_level);
    options.max_subcompactions = 1;
    rdb::CompactionJobInfo info;
    s = db->CompactFiles(options, PickInputs(levels, level, output_level), output_level,
                         /*output_path_id=*/-1, /*output_file_names=*/nullptr, &info);
    if (!s.ok()) return s;
    if (outputs_ != nullptr) AppendOutputs(info, outputs_);
    ++*compactions;
  }
}

}  // namespace sstfilter::bench
