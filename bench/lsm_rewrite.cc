#include "bench/lsm_rewrite.h"

#include <algorithm>
#include <cmath>

#include "bench/bench_util.h"
#include "bench/db_util.h"
#include "bench/flag_help.h"
#include "bench/lsm_stats.h"

namespace sstfilter::bench {

namespace rdb = ROCKSDB_NAMESPACE;

std::vector<double> ParseRewriteSteps(const std::string& list) {
  std::vector<double> steps;
  if (list.empty()) return steps;
  std::vector<std::pair<std::string, double>> parsed;
  std::string bad;
  if (!ParseBitsPerKeyList(list, &parsed, &bad)) {
    Fatal("bad value '" + bad + "' in --rewrite_steps (want percentages)");
  }
  for (const auto& [text, percent] : parsed) {
    if (percent > 100 || (!steps.empty() && percent <= steps.back())) {
      Fatal("--rewrite_steps must increase and stay <= 100, not '" + list + "'");
    }
    steps.push_back(percent);
  }
  return steps;
}

FilesByLevel LiveFiles(rdb::DB* db) {
  std::vector<rdb::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  FilesByLevel files(kMaxLevels);
  for (const auto& f : live) {
    if (f.level >= 0 && f.level < kMaxLevels) files[f.level].push_back(f.name);
  }
  for (auto& level : files) std::sort(level.begin(), level.end());
  return files;
}

void RewriteFiles(rdb::DB* db, const FilesByLevel& original, double percent,
                  std::vector<size_t>* done) {
  for (int level = 0; level < kMaxLevels; ++level) {
    const std::vector<std::string>& files = original[level];
    const size_t want = static_cast<size_t>(std::ceil(percent / 100.0 * files.size() - 1e-9));
    for (size_t& i = (*done)[level]; i < std::min(want, files.size()); ++i) {
      Check(db->CompactFiles(rdb::CompactionOptions(), {files[i]}, level),
            "rewrite " + files[i] + " in L" + std::to_string(level));
    }
  }
}

}  // namespace sstfilter::bench
