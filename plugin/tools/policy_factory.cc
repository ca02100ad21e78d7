#include "plugin/tools/policy_factory.h"

#include <algorithm>

#include "include/sstfilter/sstfilter.h"
#include "plugin/rocksdb/option_types.h"
#include "plugin/rocksdb/register.h"
#include "plugin/tools/builtin_predictor.h"
#include "plugin/tools/text_output.h"

namespace sstfilter::tools {

namespace rdb = ROCKSDB_NAMESPACE;

std::string PolicyIdFor(const std::string& filter, double bits_per_key) {
  const std::string bits = FormatDouble(bits_per_key);
  const size_t slash = filter.find('/');
  if (slash == std::string::npos) return filter + ":" + bits;
  std::string opts = filter.substr(slash + 1);
  std::replace(opts.begin(), opts.end(), '/', ';');
  return "{id=" + filter.substr(0, slash) + ";bits_per_key=" + bits + ";" + opts + "}";
}

std::string KnownFilterNames() {
  std::string known = "rocksdb.Bloom, rocksdb.Ribbon";
  for (const std::string& id : PolicyIds()) known += ", " + id;
  return known;
}

rdb::Status MakeFilterPolicy(const PolicyRequest& request, MadePolicy* out) {
  *out = MadePolicy();
  const double bits = request.bits_per_key;
  if (!(bits > 0)) {
    return rdb::Status::InvalidArgument("bits per key must be positive, not " +
                                        FormatDouble(bits));
  }
  if (request.filter == "rocksdb.Bloom") {
    out->policy.reset(rdb::NewBloomFilterPolicy(bits));
    out->short_setting = FormatDouble(bits);
    out->setting = "NewBloomFilterPolicy(" + out->short_setting + ")";
    return rdb::Status::OK();
  }
  if (request.filter == "rocksdb.Ribbon") {
    // Below ~1000 keys RocksDB's Ribbon builder writes Bloom filters, whose
    // size says nothing about Ribbon's.
    const double setting =
        request.ribbon_same_memory
            ? SizeBuiltinForBitsPerKey(BuiltinFilter::kRibbon,
                                       std::max<uint64_t>(request.ribbon_calibration_keys, 1000),
                                       bits)
                  .setting
            : bits;
    out->policy.reset(rdb::NewRibbonFilterPolicy(setting, request.ribbon_bloom_before_level));
    // Printed with three decimals; the policy gets the exact setting.
    out->short_setting = FormatNumber(setting, "%.3f");
    out->setting = "NewRibbonFilterPolicy(" + out->short_setting +
                   "; bloom_before_level=" + std::to_string(request.ribbon_bloom_before_level) +
                   ")";
    return rdb::Status::OK();
  }
  const std::string id = PolicyIdFor(request.filter, bits);
  const rdb::Status s = NewFilterPolicy(id, &out->policy);  // never OK without a policy
  if (!s.ok()) {
    return rdb::Status::InvalidArgument("cannot create filter policy '" + id + "': " +
                                        s.ToString() + "\n  known filters: " +
                                        KnownFilterNames());
  }
  out->setting = id;
  out->short_setting = id;
  return rdb::Status::OK();
}

}  // namespace sstfilter::tools
