// Selecting sstfilter policies through RocksDB's options machinery: every
// accepted id form, every refused value (with a clear Status, never a crash
// or a silent default), and the plugin registrar.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/object_registry.h>

#include <rocksdb/version.h>

#include "plugin/rocksdb/api_compat.h"
#include "include/sstfilter/sstfilter.h"
#include "plugin/core/bloom_math.h"
#include "plugin/rocksdb/option_types.h"
#include "plugin/rocksdb/policy.h"
#include "plugin/rocksdb/register.h"
#include "tests/temp_dir.h"

namespace sstfilter {
namespace {

using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::FilterPolicy;
using ROCKSDB_NAMESPACE::Status;

// From scratch: RocksDB merges the options of an existing policy with the
// same id into the new one (see ReconfiguringMergesExistingOptions).
Status Create(const std::string& value, std::shared_ptr<const FilterPolicy>* policy) {
  policy->reset();
  ConfigOptions config_options;
  config_options.ignore_unsupported_options = false;
  return FilterPolicy::CreateFromString(config_options, value, policy);
}

double ResolvedBitsPerKey(const std::shared_ptr<const FilterPolicy>& policy) {
  auto* p = dynamic_cast<const SstFilterPolicy*>(policy.get());
  return p == nullptr ? std::nan("") : p->ResolvedConfig().bits_per_key;
}

TEST(PolicyTest, EveryRegisteredIdHasTheSharedCompatibilityName) {
  ASSERT_FALSE(PolicyIds().empty());
  for (const auto& id : PolicyIds()) {
    std::shared_ptr<const FilterPolicy> policy;
    ASSERT_TRUE(Create(id, &policy).ok()) << id;
    EXPECT_EQ(policy->Name(), id);
    EXPECT_STREQ(policy->CompatibilityName(), "rocksdb.BuiltinBloomFilter");
  }
}

TEST(PolicyTest, AcceptedForms) {
  const struct { const char* value; double bits_per_key; } cases[] = {
      {"sstfilter.StandardBloom", 10.0},
      {"sstfilter.StandardBloom:10", 10.0},
      {"sstfilter.StandardBloom:6.5", 6.5},
      {"sstfilter.StandardBloom:1", 1.0},
      {"sstfilter.StandardBloom:100", 100.0},
      {"{id=sstfilter.StandardBloom;bits_per_key=16}", 16.0},
      {"{id=sstfilter.StandardBloom;fp_rate=0.01}", StandardBloomBitsPerKeyForFpRate(0.01)},
      {"id=sstfilter.StandardBloom;fp_rate=0.001", StandardBloomBitsPerKeyForFpRate(0.001)},
  };
  for (const auto& c : cases) {
    std::shared_ptr<const FilterPolicy> policy;
    const Status s = Create(c.value, &policy);
    ASSERT_TRUE(s.ok()) << c.value << ": " << s.ToString();
    EXPECT_STREQ(policy->Name(), "sstfilter.StandardBloom");
    EXPECT_DOUBLE_EQ(ResolvedBitsPerKey(policy), c.bits_per_key) << c.value;
  }
}

TEST(PolicyTest, BadValuesAreRefusedWithAClearStatus) {
  const struct { const char* value; const char* message; } cases[] = {
      {"sstfilter.StandardBloom:0", "bits_per_key"},
      {"sstfilter.StandardBloom:-1", "bits_per_key"},
      {"sstfilter.StandardBloom:0.5", "bits_per_key"},
      {"sstfilter.StandardBloom:nan", "bits_per_key"},
      {"sstfilter.StandardBloom:NaN", "bits_per_key"},
      {"sstfilter.StandardBloom:inf", "bits_per_key"},
      {"sstfilter.StandardBloom:1e9", "bits_per_key"},
      {"sstfilter.StandardBloom:100.5", "bits_per_key"},
      {"sstfilter.StandardBloom:10x", "bits_per_key"},
      {"sstfilter.StandardBloom:", ""},
      {"{id=sstfilter.StandardBloom;bits_per_key=0}", "bits_per_key"},
      {"{id=sstfilter.StandardBloom;bits_per_key=}", "bits_per_key"},
      {"{id=sstfilter.StandardBloom;fp_rate=0}", "fp_rate"},
      {"{id=sstfilter.StandardBloom;fp_rate=1}", "fp_rate"},
      {"{id=sstfilter.StandardBloom;fp_rate=-0.01}", "fp_rate"},
      {"{id=sstfilter.StandardBloom;fp_rate=1.5}", "fp_rate"},
      {"{id=sstfilter.StandardBloom;fp_rate=nan}", "fp_rate"},
      {"{id=sstfilter.StandardBloom;fp_rate=1e-40}", "fp_rate"},
      {"{id=sstfilter.StandardBloom;bits_per_key=10;fp_rate=0.01}", "not both"},
      {"{id=sstfilter.StandardBloom:10;fp_rate=0.01}", "not both"},
      {"{id=sstfilter.StandardBloom;bogus=1}", "bogus"},
      {"sstfilter.NoSuchFilter", ""},
      {"sstfilter.StandardBloomX", ""},
  };
  for (const auto& c : cases) {
    std::shared_ptr<const FilterPolicy> policy;
    const Status s = Create(c.value, &policy);
    EXPECT_FALSE(s.ok()) << c.value << " was accepted";
    EXPECT_NE(s.ToString().find(c.message), std::string::npos)
        << c.value << ": " << s.ToString();
  }
}

TEST(PolicyTest, BlockedBloomHighAccuracyOption) {
  std::shared_ptr<const FilterPolicy> policy;
  ASSERT_TRUE(Create("{id=sstfilter.BlockedBloom;bits_per_key=20;lines_per_key=2}", &policy).ok());
  auto* p = dynamic_cast<const SstFilterPolicy*>(policy.get());
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->ResolvedConfig().lines_per_key, 2);
  EXPECT_EQ(p->ResolvedConfig().bits_per_key, 20.0);
  ASSERT_TRUE(Create("sstfilter.BlockedBloom:20", &policy).ok());
  EXPECT_EQ(dynamic_cast<const SstFilterPolicy*>(policy.get())->ResolvedConfig().lines_per_key, 1);
  // Sized from an FP rate, the two-line mode needs less memory.
  ASSERT_TRUE(Create("{id=sstfilter.BlockedBloom;fp_rate=0.0001;lines_per_key=2}", &policy).ok());
  const double two = ResolvedBitsPerKey(policy);
  ASSERT_TRUE(Create("{id=sstfilter.BlockedBloom;fp_rate=0.0001}", &policy).ok());
  EXPECT_LT(two, ResolvedBitsPerKey(policy));
  for (const char* bad : {"{id=sstfilter.BlockedBloom;lines_per_key=0}",
                          "{id=sstfilter.BlockedBloom;lines_per_key=3}",
                          "{id=sstfilter.BlockedBloom;lines_per_key=1.5}",
                          "{id=sstfilter.StandardBloom;lines_per_key=2}"}) {
    const Status s = Create(bad, &policy);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.ToString().find("lines_per_key"), std::string::npos) << s.ToString();
  }
}

// format_version picks the block format a policy writes: 3 by default, 2
// for readers that predate version 3. Every kind writes what it is asked.
TEST(PolicyTest, FormatVersionOption) {
  std::shared_ptr<const FilterPolicy> policy;
  for (const char* kind : {"StandardBloom", "BlockedBloom", "Ribbon"}) {
    const std::string id = std::string("sstfilter.") + kind;
    ASSERT_TRUE(Create(id, &policy).ok());
    EXPECT_EQ(WrittenVersion(dynamic_cast<const SstFilterPolicy*>(policy.get())->ResolvedConfig()),
              3);
    ASSERT_TRUE(Create("{id=" + id + ";format_version=2}", &policy).ok()) << id;
    EXPECT_EQ(dynamic_cast<const SstFilterPolicy*>(policy.get())->ResolvedConfig().format_version,
              2);
  }
  for (const char* bad : {"{id=sstfilter.Ribbon;format_version=1}",
                          "{id=sstfilter.Ribbon;format_version=4}",
                          "{id=sstfilter.Ribbon;format_version=2.5}"}) {
    const Status s = Create(bad, &policy);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.ToString().find("format_version"), std::string::npos) << s.ToString();
  }
}

// RocksDB's Customizable::GetOptionsMap keeps the options of a current
// policy with the same id that the new string does not mention. Adding an
// option works as expected; switching between bits_per_key and fp_rate on
// top of an existing policy is refused (both end up set) - docs/OPTIONS.md says to
// start from filter_policy=nullptr.
TEST(PolicyTest, ReconfiguringMergesExistingOptions) {
  ConfigOptions config_options;
  std::shared_ptr<const FilterPolicy> policy;
  ASSERT_TRUE(FilterPolicy::CreateFromString(config_options, "sstfilter.BlockedBloom:20", &policy).ok());
  ASSERT_TRUE(FilterPolicy::CreateFromString(
                  config_options, "{id=sstfilter.BlockedBloom;lines_per_key=2}", &policy)
                  .ok());
  auto* p = dynamic_cast<const SstFilterPolicy*>(policy.get());
  EXPECT_EQ(p->ResolvedConfig().bits_per_key, 20.0);
  EXPECT_EQ(p->ResolvedConfig().lines_per_key, 2);
  const Status s = FilterPolicy::CreateFromString(
      config_options, "{id=sstfilter.BlockedBloom;fp_rate=0.001}", &policy);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  policy.reset();
  EXPECT_TRUE(FilterPolicy::CreateFromString(
                  config_options, "{id=sstfilter.BlockedBloom;fp_rate=0.001}", &policy)
                  .ok());
}

// Through an options string, RocksDB 7.8 drops filter_policy parse errors
// when input_strings_escaped is set (the ConfigOptions default), which would
// silently mean "no filter". sstfilter makes the error surface anyway: from
// the legacy GetOptionsFromString at parse time, and from DB::Open always.
TEST(PolicyTest, BadValuesAreRefusedThroughTheOptionsString) {
  for (const char* value :
       {"sstfilter.StandardBloom:0", "sstfilter.StandardBloom:nan", "sstfilter.Typo:10",
        "{id=sstfilter.StandardBloom;fp_rate=2}", "{id=sstfilter.StandardBloom;bogus=1}",
        "{id=sstfilter.StandardBloom;bits_per_key=10;fp_rate=0.1}"}) {
    const std::string opts = std::string("block_based_table_factory={filter_policy=") + value + "}";
    ROCKSDB_NAMESPACE::Options base, out;
    base.create_if_missing = true;
    EXPECT_FALSE(ROCKSDB_NAMESPACE::GetOptionsFromString(base, opts, &out).ok()) << value;

    ConfigOptions config_options;  // defaults: RocksDB swallows the parse error
    ASSERT_TRUE(ROCKSDB_NAMESPACE::GetOptionsFromString(config_options, base, opts, &out).ok());
    test::TempDir dir("sstfilter_policy_test");
    std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
    const Status s = compat::OpenDB(out, dir.path(), &db);
    db.reset();
    EXPECT_TRUE(s.IsInvalidArgument()) << value << ": " << s.ToString();
    EXPECT_NE(s.ToString().find("sstfilter"), std::string::npos) << s.ToString();
  }
}

// Numbers serialize as the shortest decimal that reads back to the same
// double: what the user wrote for ordinary values.
TEST(PolicyTest, NumbersSerializeAsWritten) {
  EXPECT_EQ(FormatDouble(10), "10");
  EXPECT_EQ(FormatDouble(0.01), "0.01");
  EXPECT_EQ(FormatDouble(7.25), "7.25");
  EXPECT_EQ(FormatDouble(9.17), "9.17");
  EXPECT_EQ(FormatDouble(1e-7), "1e-07");
  EXPECT_EQ(FormatDouble(100), "100");
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    const double v = std::ldexp(static_cast<double>(rng() >> 11), -40 + static_cast<int>(rng() % 60));
    double back = 0;
    ASSERT_TRUE(ParseFiniteDouble(FormatDouble(v), &back)) << v;
    EXPECT_EQ(back, v) << FormatDouble(v);
  }
}

// The id that RocksDB writes to an OPTIONS file, parsed back, gives the
// same configuration: that is what reopening from OPTIONS relies on.
TEST(PolicyTest, SerializedFormRoundTrips) {
  for (const char* value : {"sstfilter.StandardBloom", "sstfilter.StandardBloom:7.25",
                            "{id=sstfilter.StandardBloom;fp_rate=0.003}"}) {
    std::shared_ptr<const FilterPolicy> policy;
    ASSERT_TRUE(Create(value, &policy).ok()) << value;
    ConfigOptions config_options;
    const std::string serialized = policy->ToString(config_options);
    std::shared_ptr<const FilterPolicy> again;
    ASSERT_TRUE(Create(serialized, &again).ok()) << serialized;
    EXPECT_DOUBLE_EQ(ResolvedBitsPerKey(again), ResolvedBitsPerKey(policy)) << serialized;
    std::string mismatch;
    EXPECT_TRUE(policy->AreEquivalent(config_options, again.get(), &mismatch))
        << serialized << " mismatch " << mismatch;
  }
}

// The public entry point: idempotent beside the load-time registration, and
// never OK without a policy.
TEST(PolicyTest, RegisterAllIsIdempotentAndNewFilterPolicyIsStrict) {
  auto library = std::make_shared<ROCKSDB_NAMESPACE::ObjectLibrary>("explicit");
  ASSERT_TRUE(RegisterAll(*library).ok());
  ASSERT_TRUE(RegisterAll(*library).ok());
  EXPECT_EQ(library->GetFactoryCount(FilterPolicy::Type()), PolicyIds().size() + 1);
  const size_t before =
      ROCKSDB_NAMESPACE::ObjectLibrary::Default()->GetFactoryCount(FilterPolicy::Type());
  ASSERT_TRUE(RegisterAll().ok());  // the library registered itself at load
  EXPECT_EQ(ROCKSDB_NAMESPACE::ObjectLibrary::Default()->GetFactoryCount(FilterPolicy::Type()),
            before);
  EXPECT_STREQ(RocksDBVersionBuiltAgainst(), ROCKSDB_NAMESPACE::GetRocksVersionAsString().c_str());

  std::shared_ptr<const FilterPolicy> policy;
  ASSERT_TRUE(NewFilterPolicy("sstfilter.Ribbon:10", &policy).ok());
  ASSERT_NE(policy, nullptr);
  EXPECT_STREQ(policy->Name(), "sstfilter.Ribbon");
  for (const char* bad : {"sstfilter.Riboon:10", "sstfilter.Ribbon:ten", "nosuch.Policy", ""}) {
    const Status s = NewFilterPolicy(bad, &policy);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_EQ(policy, nullptr) << bad;
  }
}

TEST(PolicyTest, RegistrarFillsAFreshLibrary) {
  auto library = std::make_shared<ROCKSDB_NAMESPACE::ObjectLibrary>("direct");
  EXPECT_EQ(RegisterSstFilter(*library, ""), static_cast<int>(PolicyIds().size()));
  EXPECT_EQ(library->GetFactoryCount(FilterPolicy::Type()), PolicyIds().size() + 1);
  for (const auto& id : PolicyIds()) {
    auto factory = library->FindFactory<const FilterPolicy>(id + ":8");
    ASSERT_NE(factory, nullptr) << id;
    std::unique_ptr<const FilterPolicy> guard;
    std::string errmsg;
    ASSERT_NE(factory(id + ":8", &guard, &errmsg), nullptr) << errmsg;
    EXPECT_EQ(guard->Name(), id);
    ASSERT_NE(factory(id + "Typo", &guard, &errmsg), nullptr) << "poisoned, not null";
  }
}

}  // namespace
}  // namespace sstfilter
