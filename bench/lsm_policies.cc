#include "bench/lsm_policies.h"

#include <rocksdb/convenience.h>
#include <rocksdb/table.h>

#include <cmath>
#include <vector>

#include "bench/bench_util.h"
#include "plugin/rocksdb/level_aware_policy.h"
#include "plugin/rocksdb/register.h"
#include "plugin/tools/policy_factory.h"

namespace sstfilter::bench {
namespace rdb = ROCKSDB_NAMESPACE;

bool MakePolicySpec(const std::string& policy, const std::string& param, double budget,
                    const RibbonCalibration& ribbon, PolicySpec* spec, std::string* error) {
  *spec = PolicySpec{policy, param, budget, "", "-", nullptr, ""};
  if (policy == "none") {
    spec->budget = 0;
    spec->setting = "no filter";
    return true;
  }
  tools::PolicyRequest request;
  request.filter = policy;
  request.bits_per_key = budget;
  request.ribbon_same_memory = true;
  request.ribbon_calibration_keys = ribbon.trial_keys;
  request.ribbon_bloom_before_level = ribbon.bloom_before_level;
  tools::MadePolicy made;
  const rdb::Status s = tools::MakeFilterPolicy(request, &made);
  if (!s.ok()) {
    *error = s.ToString() + ", none";
    return false;
  }
  spec->filter_policy = made.policy;
  spec->setting = made.setting;
  spec->list_setting = made.short_setting;
  spec->expected_name = spec->filter_policy->Name();
  // LevelAware leaves a level's files without a filter when told to
  // (bottommost_bits_per_key=0) or when the budget is too small for it: the
  // planner drops the largest level's filter only below ~1.5 bits per key
  // (docs/LEVEL_AWARE.md), so 2 leaves a margin for any shape.
  if (const auto* level_aware = dynamic_cast<const LevelAwarePolicy*>(spec->filter_policy.get())) {
    spec->some_unfiltered =
        level_aware->BottommostBitsPerKey() == 0 || level_aware->BudgetBitsPerKey() < 2;
  }
  return true;
}

bool ExpandPolicyList(const std::string& list, bool kinds_only, std::vector<std::string>* names,
                      std::string* bad) {
  for (const std::string& name : SplitCommas(list)) {
    if (name == "sstfilter.*") {
      for (const std::string& id : PolicyIds()) {
        if (!kinds_only || id != kLevelAwareId) names->push_back(id);
      }
    } else if (name.empty() || name.find(':') != std::string::npos) {
      *bad = name;
      return false;
    } else {
      names->push_back(name);
    }
  }
  return true;
}

double CalibrateSetting(double budget, const std::function<double(double)>& alloc_at,
                        double* alloc) {
  double lo = 0.7 * budget, hi = 1.1 * budget, best = budget;
  double best_alloc = alloc_at(budget);
  for (int i = 0; i < 14 && std::fabs(best_alloc / budget - 1) > 0.002; ++i) {
    const double mid = 0.5 * (lo + hi);
    const double mid_alloc = alloc_at(mid);
    if (std::fabs(mid_alloc - budget) < std::fabs(best_alloc - budget)) {
      best = mid;
      best_alloc = mid_alloc;
    }
    (mid_alloc < budget ? lo : hi) = mid;
  }
  *alloc = best_alloc;
  return best;
}

}  // namespace sstfilter::bench
