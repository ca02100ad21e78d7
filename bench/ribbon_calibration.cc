#include "bench/ribbon_calibration.h"

#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "table/block_based/filter_policy_internal.h"

namespace sstfilter::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

// Actual bits per key of one filter built from `keys` by `policy`, in the
// context of a compaction to L1 (bloom_before_level >= 2 would make it Bloom).
double TrialBitsPerKey(const rdb::FilterPolicy& policy, const std::vector<std::string>& keys) {
  const rdb::BlockBasedTableOptions table_options;
  rdb::FilterBuildingContext context(table_options);
  context.level_at_creation = 1;
  context.reason = rdb::TableFileCreationReason::kCompaction;
  std::unique_ptr<rdb::FilterBitsBuilder> builder(policy.GetBuilderWithContext(context));
  if (builder == nullptr) return 0;
  for (const std::string& key : keys) builder->AddKey(key);
  std::unique_ptr<const char[]> buf;
  return builder->Finish(&buf).size() * 8.0 / keys.size();
}

}  // namespace

double RibbonSettingForBitsPerKey(double bits_per_key, size_t num_keys, int bloom_before_level) {
  std::vector<std::string> keys;
  keys.reserve(std::max<size_t>(num_keys, 1000));
  for (size_t i = 0; i < std::max<size_t>(num_keys, 1000); ++i) {
    keys.push_back("ribbon-calibration-" + std::to_string(i));
  }
  auto actual = [&](double setting) {
    std::unique_ptr<const rdb::FilterPolicy> p(
        rdb::NewRibbonFilterPolicy(setting, bloom_before_level));
    return TrialBitsPerKey(*p, keys);
  };
  // The size grows with the setting (RocksDB accepts up to 100) in steps of
  // whole bytes: bisect, then take the closer end.
  double lo = 0.5, hi = 100;
  for (int i = 0; i < 30; ++i) {
    const double mid = (lo + hi) / 2;
    (actual(mid) < bits_per_key ? lo : hi) = mid;
  }
  return std::fabs(actual(lo) - bits_per_key) <= std::fabs(actual(hi) - bits_per_key) ? lo : hi;
}

}  // namespace sstfilter::bench
