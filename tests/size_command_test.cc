// `sstfilter size` against the formulas it must reproduce (the classic
// standard-Bloom table, the core's sizing, RocksDB's own model) and against
// filters actually built and queried (--verify).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <sstream>
#include <string>

#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include "plugin/core/bloom_math.h"
#include "plugin/core/filter_builder.h"
#include "plugin/rocksdb/compat.h"
#include "plugin/tools/builtin_predictor.h"
#include "plugin/tools/size_command.h"
#include "tests/test_util.h"

namespace sstfilter::tools {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

const SizeRow& Row(const std::vector<SizeRow>& rows, const std::string& filter) {
  for (const SizeRow& r : rows) {
    if (r.filter == filter) return r;
  }
  ADD_FAILURE() << "no row " << filter;
  return rows.front();
}

SizeOptions FpOptions(uint64_t keys, double fp_rate) {
  SizeOptions o;
  o.keys = keys;
  o.fp_rate = fp_rate;
  return o;
}

// The classic table for a standard Bloom filter at 100M keys: 10% -> 4.8
// bits/key, 3 probes, ~60 MB; 1% -> 9.6, 7, 120 MB; 0.1% -> 14.4, 10,
// 180 MB; 0.01% -> 19.2, 13, 240 MB. The textbook rounds -ln(p)/ln(2)^2;
// ours is exact for the best whole k, and rounds to the same figures.
TEST(SizeCommandTest, ReproducesTheClassicStandardBloomTable) {
  struct Classic {
    double fp_rate, bits_per_key;
    int probes;
    double megabytes;
  };
  for (const Classic& c : {Classic{0.1, 4.8, 3, 60}, Classic{0.01, 9.6, 7, 120},
                           Classic{0.001, 14.4, 10, 180}, Classic{0.0001, 19.2, 13, 240}}) {
    const auto rows = ComputeSizeRows(FpOptions(100000000, c.fp_rate));
    const SizeRow& r = Row(rows, "sstfilter.StandardBloom");
    EXPECT_NEAR(r.bits_per_key, c.bits_per_key, 0.05) << c.fp_rate;
    EXPECT_EQ(r.probes, std::to_string(c.probes)) << c.fp_rate;
    EXPECT_NEAR(r.bytes / 1e6, c.megabytes, 0.01 * c.megabytes) << c.fp_rate;
    // Sized in the large-filter limit, predicted for exactly 100M keys.
    EXPECT_NEAR(r.predicted_fp_rate, c.fp_rate, c.fp_rate * 1e-4);
  }
}

// Every sstfilter row is what the builders would write: the core's bits per
// key for the target, its exact byte count and its prediction.
TEST(SizeCommandTest, SstFilterRowsUseTheBuildersSizing) {
  constexpr uint64_t kKeys = 3000000;
  const SizeOptions o = FpOptions(kKeys, 0.005);
  const auto rows = ComputeSizeRows(o);
  struct Expect {
    const char* filter;
    FilterKind kind;
    int lines;
  };
  for (const Expect& e : {Expect{"sstfilter.StandardBloom", FilterKind::kStandardBloom, 1},
                          Expect{"sstfilter.BlockedBloom", FilterKind::kBlockedBloom, 1},
                          Expect{"sstfilter.BlockedBloom/lines_per_key=2", FilterKind::kBlockedBloom, 2},
                          Expect{"sstfilter.Ribbon", FilterKind::kRibbon, 1}}) {
    FilterConfig config{e.kind, 0, e.lines};
    config.bits_per_key = BitsPerKeyForFpRate(config, 0.005);
    const FilterBuilder builder(config);
    const SizeRow& r = Row(rows, e.filter);
    EXPECT_EQ(r.bytes, builder.BytesForKeys(kKeys)) << e.filter;
    EXPECT_DOUBLE_EQ(r.predicted_fp_rate, builder.PredictedFpRate(kKeys, r.bytes)) << e.filter;
    EXPECT_DOUBLE_EQ(r.wasted_reads_per_miss, o.levels * r.predicted_fp_rate) << e.filter;
    EXPECT_NEAR(r.predicted_fp_rate, 0.005, 0.005 * 0.01) << e.filter;
  }
  // The standard Bloom row's rate is the textbook formula at its probes.
  const SizeRow& standard = Row(rows, "sstfilter.StandardBloom");
  EXPECT_NEAR(standard.predicted_fp_rate,
              StandardBloomFpRate(standard.bits_per_key, std::stoi(standard.probes)), 1e-5);
}

// RocksDB's rows are RocksDB's own CalculateSpace and EstimatedFpRate at
// the setting shown; a budget in bits per key is met in actual memory.
TEST(SizeCommandTest, BuiltinRowsUseRocksDbsModel) {
  SizeOptions o;
  o.keys = 1000000;
  o.bits_per_key = 10;
  const auto rows = ComputeSizeRows(o);
  const SizeRow& bloom = Row(rows, "rocksdb.Bloom");
  EXPECT_EQ(bloom.probes, "6");  // FastLocalBloom at 10 bits/key
  for (const SizeRow* r : {&bloom, &Row(rows, "rocksdb.Ribbon")}) {
    const bool is_bloom = r == &bloom;
    auto policy = MakeBuiltinPolicy(is_bloom ? BuiltinFilter::kBloom : BuiltinFilter::kRibbon,
                                    r->setting_value);
    const rdb::BlockBasedTableOptions table_options;
    std::unique_ptr<rdb::FilterBitsBuilder> b(
        policy->GetBuilderWithContext(rdb::FilterBuildingContext(table_options)));
    auto* builtin = compat::WithSpaceModel(b.get());
    ASSERT_NE(builtin, nullptr);
    EXPECT_EQ(r->bytes, builtin->CalculateSpace(o.keys)) << r->filter;
    EXPECT_DOUBLE_EQ(r->predicted_fp_rate, builtin->EstimatedFpRate(o.keys, r->bytes)) << r->filter;
    EXPECT_NEAR(r->bits_per_key, 10, 0.1) << r->filter;
  }
  // Ribbon's setting is "Bloom-equivalent": 10 actual bits need more.
  EXPECT_GT(Row(rows, "rocksdb.Ribbon").setting_value, 13);
}

TEST(SizeCommandTest, ScalesBeyondTheModelledFilter) {
  const auto small = ComputeSizeRows(FpOptions(kMaxModelKeys, 0.01));
  const auto huge = ComputeSizeRows(FpOptions(kMaxModelKeys * 1000, 0.01));
  for (size_t i = 0; i < small.size(); ++i) {
    EXPECT_DOUBLE_EQ(huge[i].bits_per_key, small[i].bits_per_key);
    EXPECT_NEAR(static_cast<double>(huge[i].bytes), 1000.0 * small[i].bytes, 1000.0);
  }
}

TEST(SizeCommandTest, RefusesBadOptions) {
  SizeOptions o = FpOptions(1000, 0.01);
  EXPECT_EQ(ValidateSizeOptions(o), "");
  for (double bad : {0.0, 1.0, -0.1, double{NAN}, double{INFINITY}}) {
    o.fp_rate = bad;
    EXPECT_NE(ValidateSizeOptions(o), "") << bad;
  }
  o.fp_rate.reset();
  EXPECT_NE(ValidateSizeOptions(o), "");  // neither budget
  for (double bad : {0.5, 101.0, double{NAN}}) {
    o.bits_per_key = bad;
    EXPECT_NE(ValidateSizeOptions(o), "") << bad;
  }
  o.bits_per_key = 10;
  EXPECT_EQ(ValidateSizeOptions(o), "");
  o.fp_rate = 0.01;
  EXPECT_NE(ValidateSizeOptions(o), "");  // both
  o.fp_rate.reset();
  o.keys = 0;
  EXPECT_NE(ValidateSizeOptions(o), "");
  o.keys = kMaxSizeKeys + 1;
  EXPECT_NE(ValidateSizeOptions(o), "");
  o.keys = 1000;
  o.levels = 0;
  EXPECT_NE(ValidateSizeOptions(o), "");
  std::ostringstream out, err;
  EXPECT_EQ(RunSize(o, out, err), 2);
  EXPECT_NE(err.str().find("--levels"), std::string::npos);
}

// A target no kind reaches within 100 bits/key is reported, not sized.
TEST(SizeCommandTest, UnreachableTarget) {
  for (const SizeRow& r : ComputeSizeRows(FpOptions(1000, 1e-40))) EXPECT_FALSE(r.reachable) << r.filter;
}

// --verify: each filter built through its FilterPolicy has no false
// negative and an FP rate within Poisson bounds of its builder's own
// prediction.
TEST(SizeCommandTest, VerifyMatchesMeasuredBuilds) {
  SizeOptions o;
  o.keys = 200000;
  o.bits_per_key = 10;
  o.verify = true;
  o.verify_queries = 2000000;
  auto rows = ComputeSizeRows(o);
  ASSERT_TRUE(VerifySizeRows(o, &rows));
  for (const SizeRow& r : rows) {
    ASSERT_TRUE(r.verified) << r.filter;
    EXPECT_EQ(r.false_negatives, 0u) << r.filter;
    EXPECT_EQ(r.verify_keys, o.keys) << r.filter;
    // Built at the same number of keys: the sized filter (RocksDB's Ribbon
    // builds one 16-byte segment off its CalculateSpace at 200K keys).
    EXPECT_NEAR(r.verify_bits_per_key, r.bits_per_key, 1e-3 * r.bits_per_key) << r.filter;
    EXPECT_NEAR(r.verify_predicted_fp_rate, r.predicted_fp_rate, 5e-3 * r.predicted_fp_rate)
        << r.filter;
    const auto bounds = test::PoissonBounds(r.verify_predicted_fp_rate * r.verify_queries);
    EXPECT_GE(static_cast<double>(r.false_positives), bounds.lo) << r.filter;
    EXPECT_LE(static_cast<double>(r.false_positives), bounds.hi) << r.filter;
  }
  std::ostringstream out;
  PrintSizeText(o, rows, out);
  EXPECT_NE(out.str().find("measured_fp"), std::string::npos);
}

}  // namespace
}  // namespace sstfilter::tools
