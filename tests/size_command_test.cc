// `sstfilter size` against the formulas it must reproduce (the classic
// standard-Bloom table, the core's sizing, RocksDB's own model, the papers'
// sizing of other designs for --variants) and against filters actually
// built and queried (--verify).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include "plugin/core/bloom_math.h"
#include "plugin/core/filter_builder.h"
#include "plugin/rocksdb/filter_bits.h"
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
    bits::Builder builtin(*policy, rdb::FilterBuildingContext(table_options));
    ASSERT_TRUE(builtin && builtin.HasRocksDBSpaceModel());
    EXPECT_EQ(r->bytes, builtin.CalculateSpace(o.keys)) << r->filter;
    bits::FpModel model;
    EXPECT_DOUBLE_EQ(r->predicted_fp_rate, builtin.EstimatedFpRate(o.keys, r->bytes, &model)) << r->filter;
    EXPECT_EQ(model, bits::FpModel::kRocksDB) << r->filter;
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

// Without --variants the output is exactly what it was: the flag-less run
// prints the table alone, with the lines below to the byte (sstfilter's
// rows at 100M keys, 1%: RocksDB's rows depend on the RocksDB build), and
// --variants prints that same text, then its own table.
TEST(SizeCommandTest, WithoutVariantsTheOutputIsUnchanged) {
  SizeOptions o = FpOptions(100000000, 0.01);
  std::ostringstream plain, err;
  ASSERT_EQ(RunSize(o, plain, err), 0) << err.str();
  const auto rows = ComputeSizeRows(o);
  std::ostringstream table;
  PrintSizeText(o, rows, table);
  EXPECT_EQ(plain.str(), table.str());
  for (const char* line : {
           "sstfilter size: one filter of 100,000,000 keys, target FP rate 0.01\n\n",
           "\nfilter                                  bits/key  probes  predicted_fp    memory  "
           "wasted_reads/miss\n",
           "\nsstfilter.StandardBloom                     9.59       7          0.01  119.9 MB  "
           "             0.05\n",
           "\nsstfilter.BlockedBloom                      9.92       6          0.01  124.0 MB  "
           "             0.05\n",
           "\nsstfilter.BlockedBloom/lines_per_key=2      9.67     3+3          0.01  120.9 MB  "
           "             0.05\n",
           "\nsstfilter.Ribbon                            6.75   r=6.6      0.009998  84.32 MB  "
           "          0.04999\n",
           "\ntextbook standard Bloom: -ln(p)/ln(2)^2 = 9.59 bits/key at k = log2(1/p) = 6.6 "
           "probes; sstfilter.StandardBloom uses the best whole number of probes.\n\n"}) {
    EXPECT_NE(plain.str().find(line), std::string::npos) << line << "\n" << plain.str();
  }
  for (const char* absent : {"formula", "Cuckoo", "Xor", "BinaryFuse", "ScalableBloom"}) {
    EXPECT_EQ(plain.str().find(absent), std::string::npos) << absent;
  }
  std::ostringstream plain_json;
  o.json = true;
  ASSERT_EQ(RunSize(o, plain_json, err), 0);
  EXPECT_EQ(plain_json.str().find("variants"), std::string::npos);

  o.json = false;
  o.variants = true;
  std::ostringstream with;
  ASSERT_EQ(RunSize(o, with, err), 0) << err.str();
  ASSERT_EQ(with.str().compare(0, plain.str().size(), plain.str()), 0) << with.str();
  std::ostringstream variants;
  PrintVariantsText(o, ComputeVariantRows(o, rows), variants);
  EXPECT_EQ(with.str().substr(plain.str().size()), "\n" + variants.str());
}

const VariantRow& Variant(const std::vector<VariantRow>& rows, const std::string& filter) {
  for (const VariantRow& r : rows) {
    if (r.filter == filter) return r;
  }
  ADD_FAILURE() << "no variant " << filter;
  return rows.front();
}

constexpr const char* kFormulaRows[] = {
    "CountingBloom/counter_bits=4", "Cuckoo/b=4,load=95.5%", "ScalableBloom/s=2,r=0.9", "Xor",
    "BinaryFuse/3-wise", "BinaryFuse/4-wise"};

// Each row at 100M keys against the published figure (the derivations are
// in tests/variant_math_test.cc): bits/key, memory = bits/key x 10^8 / 8
// bytes, probes, fingerprint, FP rate and the cost over log2(1/p).
TEST(SizeCommandTest, VariantsMatchThePublishedSizing) {
  struct Expect {
    const char* filter;
    double bits_per_key;
    double tolerance;
    const char* probes;
    const char* fingerprint;
    double fp_rate;
  };
  struct Case {
    double fp_rate;
    std::vector<Expect> rows;
  };
  const Case cases[] = {
      {0.01,
       {{"CountingBloom/counter_bits=4", 38.3718, 1e-3, "7", "4-bit counters", 0.01},
        {"Cuckoo/b=4,load=95.5%", 10.471204, 1e-6, "2 buckets", "f=10", 0.0077859},
        {"ScalableBloom/s=2,r=0.9", 22.312, 0.01, "40", "-", 0.0027079},
        {"Xor", 8.61, 1e-5, "3", "f=7", 0.0078125},
        {"BinaryFuse/3-wise", 7.875, 1e-9, "3", "f=7", 0.0078125},
        {"BinaryFuse/4-wise", 7.525, 1e-9, "4", "f=7", 0.0078125}}},
      {0.001,
       {{"CountingBloom/counter_bits=4", 57.5106, 1e-3, "10", "4-bit counters", 0.001},
        {"Cuckoo/b=4,load=95.5%", 13.612565, 1e-6, "2 buckets", "f=13", 0.00097615},
        {"ScalableBloom/s=2,r=0.9", 29.501, 0.01, "54", "-", 0.00027098},
        {"Xor", 12.3, 1e-5, "3", "f=10", 0.0009765625},
        {"BinaryFuse/3-wise", 11.25, 1e-9, "3", "f=10", 0.0009765625},
        {"BinaryFuse/4-wise", 10.75, 1e-9, "4", "f=10", 0.0009765625}}},
      {0.1,
       {{"CountingBloom/counter_bits=4", 19.2333, 1e-3, "3", "4-bit counters", 0.1},
        {"Cuckoo/b=4,load=95.5%", 7.329843, 1e-6, "2 buckets", "f=7", 0.0608175},
        {"ScalableBloom/s=2,r=0.9", 15.123, 0.01, "28", "-", 0.026886},
        {"Xor", 4.92, 1e-5, "3", "f=4", 0.0625},
        {"BinaryFuse/3-wise", 4.5, 1e-9, "3", "f=4", 0.0625},
        {"BinaryFuse/4-wise", 4.3, 1e-9, "4", "f=4", 0.0625}}},
  };
  for (const Case& c : cases) {
    SizeOptions o = FpOptions(100000000, c.fp_rate);
    o.variants = true;
    const auto size_rows = ComputeSizeRows(o);
    const auto rows = ComputeVariantRows(o, size_rows);
    ASSERT_EQ(rows.size(), 10u);  // 6 designs and sstfilter's 4 kinds
    const double bound = std::log2(1 / c.fp_rate);
    for (const Expect& e : c.rows) {
      const VariantRow& r = Variant(rows, e.filter);
      EXPECT_TRUE(r.formula && r.reachable) << e.filter;
      EXPECT_NEAR(r.bits_per_key, e.bits_per_key, e.tolerance) << c.fp_rate << " " << e.filter;
      EXPECT_NEAR(static_cast<double>(r.bytes), e.bits_per_key * 1e8 / 8, e.tolerance * 1e8 / 8 + 1)
          << c.fp_rate << " " << e.filter;
      EXPECT_EQ(r.probes, e.probes) << c.fp_rate << " " << e.filter;
      EXPECT_EQ(r.fingerprint, e.fingerprint) << c.fp_rate << " " << e.filter;
      EXPECT_NEAR(r.fp_rate, e.fp_rate, 1e-3 * e.fp_rate) << c.fp_rate << " " << e.filter;
      EXPECT_LE(r.fp_rate, c.fp_rate * (1 + 1e-9)) << e.filter;
      EXPECT_NEAR(r.over_bound, r.bits_per_key / bound - 1, 1e-12) << e.filter;
      EXPECT_FALSE(r.reason.empty()) << e.filter;
      EXPECT_FALSE(r.sizing.empty()) << e.filter;
    }
    // sstfilter's kinds are the rows of the table above, unchanged.
    for (const SizeRow& s : size_rows) {
      if (s.filter.rfind("sstfilter.", 0) != 0) continue;
      const VariantRow& r = Variant(rows, s.filter);
      EXPECT_FALSE(r.formula);
      EXPECT_EQ(r.bits_per_key, s.bits_per_key) << s.filter;
      EXPECT_EQ(r.bytes, s.bytes) << s.filter;
      EXPECT_EQ(r.fp_rate, s.predicted_fp_rate) << s.filter;
    }
  }
}

// The static designs' reason lines carry their cost over the bound: at 1%
// (f = 7, log2(100) = 6.644) xor 1.23 x 7 / 6.644 = +29.6% (+23.0% at its
// FP 2^-7), 3-wise fuse 7.875 / 6.644 = +18.5% (+12.5%), 4-wise 7.525 /
// 6.644 = +13.3% (+7.5%), beside sstfilter.Ribbon's own row.
TEST(SizeCommandTest, VariantReasonsStateTheCostOverTheBound) {
  SizeOptions o = FpOptions(100000000, 0.01);
  o.variants = true;
  const auto size_rows = ComputeSizeRows(o);
  const auto rows = ComputeVariantRows(o, size_rows);
  const double ribbon = Row(size_rows, "sstfilter.Ribbon").bits_per_key / std::log2(100.0) - 1;
  char ribbon_percent[16];
  std::snprintf(ribbon_percent, sizeof(ribbon_percent), "%+.1f%%", 100 * ribbon);
  struct Expect {
    const char* filter;
    const char* at_own_fp;
    const char* here;
  };
  for (const Expect& e : {Expect{"Xor", "+23.0% over log2(1/FP) at its FP 2^-7", "+29.6%"},
                          Expect{"BinaryFuse/3-wise", "+12.5% over log2(1/FP) at its FP 2^-7", "+18.5%"},
                          Expect{"BinaryFuse/4-wise", "+7.5% over log2(1/FP) at its FP 2^-7", "+13.3%"}}) {
    const std::string& reason = Variant(rows, e.filter).reason;
    EXPECT_NE(reason.find(e.at_own_fp), std::string::npos) << reason;
    EXPECT_NE(reason.find(std::string(e.here) + " over log2(1/0.01) here"), std::string::npos) << reason;
    EXPECT_NE(reason.find(std::string("sstfilter.Ribbon is ") + ribbon_percent), std::string::npos)
        << reason;
  }
  for (const char* filter : {"CountingBloom/counter_bits=4", "Cuckoo/b=4,load=95.5%"}) {
    EXPECT_NE(Variant(rows, filter).reason.find("SST file"), std::string::npos) << filter;
  }
  EXPECT_NE(Variant(rows, "ScalableBloom/s=2,r=0.9").reason.find("SST filter"), std::string::npos);
}

// --variants --json: every row, formula and sstfilter's, with its figures.
TEST(SizeCommandTest, VariantsJsonHoldsEveryRow) {
  SizeOptions o = FpOptions(100000000, 0.01);
  o.variants = true;
  o.json = true;
  std::ostringstream out, err;
  ASSERT_EQ(RunSize(o, out, err), 0) << err.str();
  const std::string json = out.str();
  const size_t variants = json.find("\"variants\": [");
  ASSERT_NE(variants, std::string::npos) << json;
  std::vector<std::string> names(std::begin(kFormulaRows), std::end(kFormulaRows));
  for (const char* ours : {"sstfilter.StandardBloom", "sstfilter.BlockedBloom",
                           "sstfilter.BlockedBloom/lines_per_key=2", "sstfilter.Ribbon"}) {
    names.push_back(ours);
  }
  for (const std::string& name : names) {
    EXPECT_NE(json.find("\"filter\": \"" + name + "\"", variants), std::string::npos) << name;
  }
  EXPECT_NE(json.find("\"bits_per_key\": 8.61", variants), std::string::npos) << json;  // Xor
  EXPECT_NE(json.find("\"from\": \"formula\""), std::string::npos);
  EXPECT_NE(json.find("\"from\": \"sstfilter\""), std::string::npos);
  EXPECT_NE(json.find("growth s = 2, tightening r = 0.9"), std::string::npos);
  EXPECT_EQ(std::count(json.begin(), json.end(), '{'), std::count(json.begin(), json.end(), '}'));
  // Sized for a target FP rate only.
  o.fp_rate.reset();
  o.bits_per_key = 10;
  EXPECT_NE(ValidateSizeOptions(o).find("--variants needs --fp_rate"), std::string::npos);
}

}  // namespace
}  // namespace sstfilter::tools
