#include "bench/lsm_policies.h"

#include <rocksdb/convenience.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench/bench_util.h"
#include "bench/ribbon_calibration.h"
#include "plugin/rocksdb/level_aware_policy.h"
#include "plugin/rocksdb/register.h"

namespace sstfilter::bench {
namespace rdb = ROCKSDB_NAMESPACE;

double CalibrateRibbon(double budget, const RibbonCalibration& calibration) {
  return RibbonSettingForBitsPerKey(budget, calibration.trial_keys,
                                    calibration.bloom_before_level);
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
    spec->setting = PolicyIdWithBudget(policy, param);
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
  // LevelAware leaves a level's files without a filter when told to
  // (bottommost_bits_per_key=0) or when the budget is too small for it.
  if (const auto* level_aware = dynamic_cast<const LevelAwarePolicy*>(spec->filter_policy.get())) {
    const LevelModel model = level_aware->Model();
    spec->some_unfiltered = model.bottommost_bits_per_key == 0;
    for (const LevelPlan& plan : PlanLevels(model, kDefaultNumLevels)) {
      spec->some_unfiltered |= !plan.has_filter;
    }
  }
  return true;
}

}  // namespace sstfilter::bench
