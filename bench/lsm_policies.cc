#include "bench/lsm_policies.h"

#include <rocksdb/convenience.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench/lsm_keys.h"
#include "plugin/rocksdb/register.h"
#include "table/block_based/filter_policy_internal.h"

namespace sstfilter::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

// Actual bits per key of one filter built from `keys` by `policy`, in the
// context of a compaction to L1 (bloom_before_level >= 1 would make it Bloom).
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

double CalibrateRibbon(double budget, const RibbonCalibration& calibration) {
  // Keys outside the DB's stream (indexes from 2^64 down), 1000 at least:
  // below ~1024 slots RocksDB's Ribbon falls back to Bloom.
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < std::max<uint64_t>(calibration.trial_keys, 1000); ++i) {
    keys.push_back(LsmKey(~i, calibration.seed));
  }
  auto actual = [&](double setting) {
    std::unique_ptr<const rdb::FilterPolicy> p(
        rdb::NewRibbonFilterPolicy(setting, calibration.bloom_before_level));
    return TrialBitsPerKey(*p, keys);
  };
  // The size grows with the setting (RocksDB accepts up to 100) in steps of
  // whole bytes: bisect, then take the closer end.
  double lo = 0.5, hi = 100;
  for (int i = 0; i < 30; ++i) {
    const double mid = (lo + hi) / 2;
    (actual(mid) < budget ? lo : hi) = mid;
  }
  return std::fabs(actual(lo) - budget) <= std::fabs(actual(hi) - budget) ? lo : hi;
}

bool MakePolicySpec(const std::string& policy, const std::string& param, double budget,
                    const RibbonCalibration& ribbon, PolicySpec* spec, std::string* error) {
  *spec = PolicySpec{policy, param, budget, "", "-", nullptr, ""};
  char buf[128];
  if (policy == "none") {
    spec->budget = 0;
    spec->setting = "no filter";
    return true;
  } else if (policy == "rocksdb.Bloom") {
    spec->filter_policy.reset(rdb::NewBloomFilterPolicy(budget));
    spec->setting = "NewBloomFilterPolicy(" + param + ")";
    spec->list_setting = param;
  } else if (policy == "rocksdb.Ribbon") {
    const double setting = CalibrateRibbon(budget, ribbon);
    spec->filter_policy.reset(rdb::NewRibbonFilterPolicy(setting, ribbon.bloom_before_level));
    // No commas: this lands in a CSV cell.
    std::snprintf(buf, sizeof(buf), "NewRibbonFilterPolicy(%.3f; bloom_before_level=%d)", setting,
                  ribbon.bloom_before_level);
    spec->setting = buf;
    std::snprintf(buf, sizeof(buf), "%.3f", setting);
    spec->list_setting = buf;
  } else {
    rdb::ConfigOptions options;
    options.ignore_unsupported_options = false;  // else an unknown id is "OK", no policy
    spec->setting = policy + ":" + param;
    spec->list_setting = spec->setting;
    const rdb::Status s =
        rdb::FilterPolicy::CreateFromString(options, spec->setting, &spec->filter_policy);
    if (!s.ok() || spec->filter_policy == nullptr) {
      std::string known = "none, rocksdb.Bloom, rocksdb.Ribbon";
      for (const std::string& id : PolicyIds()) known += ", " + id;
      *error = "cannot create filter policy '" + spec->setting + "': " +
               (s.ok() ? std::string("no such policy") : s.ToString()) + "\n  known: " + known;
      return false;
    }
  }
  spec->expected_name = spec->filter_policy->Name();
  return true;
}

}  // namespace sstfilter::bench
