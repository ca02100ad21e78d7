// `sstfilter size --verify`: builds every row's filter through RocksDB's
// FilterPolicy API (the path RocksDB takes when it writes an SST file, as in
// filter_bench) and measures its FP rate beside the builder's own
// prediction for the same filter.
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "plugin/core/hash.h"
#include "plugin/rocksdb/api_compat.h"
#include "plugin/rocksdb/filter_bits.h"
#include "plugin/tools/builtin_predictor.h"
#include "plugin/tools/policy_factory.h"
#include "plugin/tools/size_command.h"

namespace sstfilter::tools {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
using PolicyPtr = std::shared_ptr<const rdb::FilterPolicy>;

constexpr uint64_t kMinQueries = 1000000;
constexpr uint64_t kMaxQueries = 100000000;
constexpr double kTargetFalsePositives = 2000;  // ~2% relative noise

// Key i: 8 fixed bytes, then a bijective mix of i, so keys are distinct and
// indices >= the number added are absent.
std::string VerifyKey(uint64_t i) {
  std::string key = "sstfsize";
  const uint64_t v = Mix64(i);
  for (int b = 0; b < 8; ++b) key.push_back(static_cast<char>(v >> (8 * b)));
  return key;
}

PolicyPtr PolicyForRow(const SizeRow& row, std::string* error) {
  PolicyRequest request;
  request.filter = row.filter;
  request.bits_per_key = row.setting_value;
  request.ribbon_bloom_before_level = -1;  // the sizes are Ribbon's (builtin_predictor.h)
  MadePolicy made;
  const rdb::Status s = MakeFilterPolicy(request, &made);
  if (!s.ok()) *error = s.ToString();
  return made.policy;
}

bool VerifyRow(const SizeOptions& o, SizeRow* row, std::string* error) {
  const PolicyPtr policy = PolicyForRow(*row, error);
  if (policy == nullptr) return false;
  const rdb::BlockBasedTableOptions table_options = compat::ExactLengthTableOptions();
  const rdb::FilterBuildingContext context(table_options);
  bits::Builder builder(*policy, context);
  if (!builder) {
    *error = row->filter + ": the policy gave no builder";
    return false;
  }
  const uint64_t n = std::min(o.keys, o.verify_max_keys);
  for (uint64_t i = 0; i < n; ++i) builder.AddKey(VerifyKey(i));
  std::unique_ptr<const char[]> buf;
  const rdb::Slice filter = builder.Finish(&buf);
  row->verify_keys = n;
  row->verify_bits_per_key = 8.0 * static_cast<double>(filter.size()) / static_cast<double>(n);
  row->verify_predicted_fp_rate = builder.EstimatedFpRate(n, filter.size());
  const bits::Reader reader(*policy, filter);
  if (!reader) {
    *error = row->filter + ": the policy gave no reader";
    return false;
  }
  for (uint64_t i = 0; i < n; ++i) row->false_negatives += !reader.MayMatch(VerifyKey(i));
  uint64_t queries = o.verify_queries;
  if (queries == 0) {
    const double p = row->verify_predicted_fp_rate > 0 ? row->verify_predicted_fp_rate : 1e-9;
    queries = static_cast<uint64_t>(
        std::clamp(std::ceil(kTargetFalsePositives / p), double{kMinQueries}, double{kMaxQueries}));
  }
  for (uint64_t i = n; i < n + queries; ++i) row->false_positives += reader.MayMatch(VerifyKey(i));
  row->verify_queries = queries;
  row->verified = true;
  return true;
}

}  // namespace

bool VerifySizeRows(const SizeOptions& o, std::vector<SizeRow>* rows) {
  bool no_false_negatives = true;
  for (SizeRow& row : *rows) {
    if (!row.reachable) continue;
    std::fprintf(stderr, "[sstfilter size] verifying %s ...\n", row.filter.c_str());
    std::string error;
    if (!VerifyRow(o, &row, &error)) {
      std::fprintf(stderr, "[sstfilter size] cannot verify: %s\n", error.c_str());
      continue;
    }
    no_false_negatives = no_false_negatives && row.false_negatives == 0;
  }
  return no_false_negatives;
}

}  // namespace sstfilter::tools
