// The filter policies lsm_bench compares, each configured for one memory
// budget: "none", RocksDB's built-ins and any registered id (sstfilter.*).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/filter_policy.h>

namespace sstfilter::bench {

struct PolicySpec {
  std::string policy;         // as requested: "none", "rocksdb.Bloom", ...
  std::string param;          // the budget as typed, e.g. "10"
  double budget = 0;          // actual bits per key wanted; 0 for "none"
  std::string setting;        // human-readable configuration
  std::string list_setting;   // for --list_policies: built-in's number or the id
  std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy> filter_policy;  // null: none
  std::string expected_name;  // table property rocksdb.filter.policy of every SST
  bool some_unfiltered = false;  // the policy leaves some files without a filter
};

// The names of a comma-separated policy list (--policies, --filters),
// "sstfilter.*" expanded to every registered id (without
// sstfilter.LevelAware when `kinds_only`: it picks its kind per level,
// which a lone filter has not). False with *bad set on an empty name or one
// with a ':' (budgets have flags of their own).
bool ExpandPolicyList(const std::string& list, bool kinds_only, std::vector<std::string>* names,
                      std::string* bad);

// How rocksdb.Ribbon is calibrated and built.
struct RibbonCalibration {
  uint64_t trial_keys;     // keys in the trial filter: a typical SST file's
  int bloom_before_level;  // NewRibbonFilterPolicy's second argument
};

// Creates the policy for `policy` at `budget` actual bits per key through
// MakeFilterPolicy (plugin/tools/policy_factory.h), rocksdb.Ribbon
// calibrated to the same memory. False and `error` set if the policy cannot
// be created.
bool MakePolicySpec(const std::string& policy, const std::string& param, double budget,
                    const RibbonCalibration& ribbon, PolicySpec* spec, std::string* error);

// The setting (bits per key) whose allocated bits per key, alloc_at(setting),
// come closest to `budget`: bisection over 0.7-1.1x the budget, starting
// from the budget itself (allocated memory grows with the setting, in
// steps), until within 0.2% or after 14 steps. *alloc gets that allocation.
double CalibrateSetting(double budget, const std::function<double(double)>& alloc_at,
                        double* alloc);

}  // namespace sstfilter::bench
