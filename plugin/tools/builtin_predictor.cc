#include "plugin/tools/builtin_predictor.h"

#include <rocksdb/convenience.h>
#include <rocksdb/table.h>

#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "plugin/core/bisect.h"
#include "plugin/rocksdb/api_compat.h"
#include "plugin/rocksdb/filter_bits.h"
#include "plugin/tools/policy_factory.h"

namespace sstfilter::tools {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using PolicyPtr = std::shared_ptr<const rdb::FilterPolicy>;

constexpr double kMinSetting = 1.0;
constexpr double kMaxSetting = 100.0;  // RocksDB's own upper limit
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// A builder in the context of a table file at an unknown level, where
// Ribbon with bloom_before_level = -1 builds Ribbon. Null for a policy that
// is not one of RocksDB's built-ins.
std::unique_ptr<bits::Builder> BuilderOf(const PolicyPtr& policy) {
  static const rdb::BlockBasedTableOptions table_options = compat::ExactLengthTableOptions();
  if (policy == nullptr) return nullptr;
  auto builder = std::make_unique<bits::Builder>(*policy, rdb::FilterBuildingContext(table_options));
  if (!*builder || !builder->HasRocksDBSpaceModel()) return nullptr;
  return builder;
}

// The policy whose builders write `kind` blocks at `setting` bits per key.
// The legacy Bloom filter is no longer public; RocksDB 7.8 still registers
// it under its internal name.
PolicyPtr BloomPolicyFor(BuiltinKind kind, double setting) {
  if (kind != BuiltinKind::kLegacyBloom) return MakeBuiltinPolicy(BuiltinFilter::kBloom, setting);
  PolicyPtr policy;
  const rdb::Status s = rdb::FilterPolicy::CreateFromString(
      rdb::ConfigOptions(), "rocksdb.internal.LegacyBloomFilter:" + std::to_string(setting),
      &policy);
  return s.ok() ? policy : nullptr;
}

// Probes per key of the filters `kind` writes at `setting`, read from the
// metadata of a small one; 0 if it wrote no Bloom filter.
int ProbesAt(BuiltinKind kind, double setting) {
  const auto builder = BuilderOf(BloomPolicyFor(kind, setting));
  if (builder == nullptr) return 0;
  for (int i = 0; i < 100; ++i) builder->AddKey("probe-key-" + std::to_string(i));
  std::unique_ptr<const char[]> buf;
  const rdb::Slice filter = builder->Finish(&buf);
  const FilterBlockInfo info = DescribeBuiltinFilterBlock({filter.data(), filter.size()});
  return info.builtin_kind == kind ? info.probes : 0;
}

// The smallest setting at which `kind` writes `probes` probes (probes grow
// with the setting), or NaN if none does; cached.
double SettingWithProbes(BuiltinKind kind, int probes) {
  static std::mutex mu;
  static std::map<std::pair<BuiltinKind, int>, double> cache;
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_pair(kind, probes);
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  double hi = kMinSetting;
  if (ProbesAt(kind, kMinSetting) < probes) {
    hi = Bisect(kMinSetting, kMaxSetting, 40,
                [&](double setting) { return ProbesAt(kind, setting) >= probes; })
             .second;
  }
  const double setting = ProbesAt(kind, hi) == probes ? hi : kNaN;
  cache[key] = setting;
  return setting;
}

BuiltinSizing Evaluate(BuiltinFilter filter, uint64_t keys, double setting) {
  BuiltinSizing s;
  s.setting = setting;
  const auto builder = BuilderOf(MakeBuiltinPolicy(filter, setting));
  if (builder == nullptr) return s;
  s.bytes = builder->CalculateSpace(keys);
  s.fp_rate = builder->EstimatedFpRate(keys, s.bytes);
  if (filter == BuiltinFilter::kBloom) s.probes = ProbesAt(BuiltinKind::kFastLocalBloom, setting);
  return s;
}

}  // namespace

PolicyPtr MakeBuiltinPolicy(BuiltinFilter filter, double setting) {
  PolicyRequest request;
  request.filter = filter == BuiltinFilter::kBloom ? "rocksdb.Bloom" : "rocksdb.Ribbon";
  request.bits_per_key = setting;
  request.ribbon_bloom_before_level = -1;
  MadePolicy made;
  return MakeFilterPolicy(request, &made).ok() ? made.policy : nullptr;
}

double PredictBuiltinFpRate(const FilterBlockInfo& info, uint64_t num_entries,
                            size_t block_bytes) {
  if (info.builtin_kind == BuiltinKind::kEmpty) return 0.0;
  if (!info.usable || num_entries == 0) return kNaN;
  std::unique_ptr<bits::Builder> builder;
  if (info.builtin_kind == BuiltinKind::kRibbon) {
    // Ribbon's estimate depends only on the keys and the bytes.
    builder = BuilderOf(MakeBuiltinPolicy(BuiltinFilter::kRibbon, 10));
  } else if (info.builtin_kind == BuiltinKind::kFastLocalBloom ||
             info.builtin_kind == BuiltinKind::kLegacyBloom) {
    const double setting = SettingWithProbes(info.builtin_kind, info.probes);
    if (std::isnan(setting)) return kNaN;
    builder = BuilderOf(BloomPolicyFor(info.builtin_kind, setting));
  }
  return builder == nullptr ? kNaN : builder->EstimatedFpRate(num_entries, block_bytes);
}

BuiltinSizing SizeBuiltinForFpRate(BuiltinFilter filter, uint64_t keys, double fp_rate) {
  if (Evaluate(filter, keys, kMaxSetting).fp_rate > fp_rate) {
    return Evaluate(filter, keys, kMaxSetting);
  }
  return Evaluate(filter, keys, Bisect(kMinSetting, kMaxSetting, 50, [&](double setting) {
                                  return Evaluate(filter, keys, setting).fp_rate <= fp_rate;
                                }).second);
}

BuiltinSizing SizeBuiltinForBitsPerKey(BuiltinFilter filter, uint64_t keys,
                                       double bits_per_key) {
  if (filter == BuiltinFilter::kBloom) return Evaluate(filter, keys, bits_per_key);
  // Memory grows with the setting in steps of whole bytes: bisect, then
  // take the closer end.
  auto bits_at = [&](double setting) {
    return Evaluate(filter, keys, setting).bytes * 8.0 / static_cast<double>(keys);
  };
  const auto [lo, hi] = Bisect(kMinSetting, kMaxSetting, 50, [&](double setting) {
    return !(bits_at(setting) < bits_per_key);
  });
  const bool low_closer = std::fabs(bits_at(lo) - bits_per_key) <= std::fabs(bits_at(hi) - bits_per_key);
  return Evaluate(filter, keys, low_closer ? lo : hi);
}

}  // namespace sstfilter::tools
