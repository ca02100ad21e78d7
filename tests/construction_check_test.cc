// BlockBasedTableOptions::detect_filter_construct_corruption: the builder
// checks its hash list when it builds and re-queries every hash against the
// bytes RocksDB is about to write (MaybePostVerify), as RocksDB's built-in
// builders do. The tests damage a construction deliberately and show it is
// caught: by MaybePostVerify directly, and end to end in a flush, where the
// damaged filter would otherwise have been written and cause false negatives.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include "plugin/rocksdb/compat.h"
#include "plugin/core/format.h"
#include "plugin/rocksdb/bits_builder.h"
#include "plugin/rocksdb/policy.h"
#include "plugin/rocksdb/register.h"
#include "tests/temp_dir.h"
#include "tests/test_util.h"

namespace sstfilter {

// Simulates memory corruption of a hash after it was added: the hash list
// and its running checksum no longer agree (either side may be the damaged
// one; the check only compares them).
class SstFilterBitsBuilderTestPeer {
 public:
  static void DamageHashChecksum(SstFilterBitsBuilder* b) { b->hash_xor_ ^= 0x10; }
};

namespace {

namespace rdb = ROCKSDB_NAMESPACE;

constexpr int kKeys = 5000;

std::shared_ptr<const rdb::FilterPolicy> MakePolicy(const std::string& id) {
  rdb::ConfigOptions config_options;
  config_options.ignore_unsupported_options = false;
  std::shared_ptr<const rdb::FilterPolicy> policy;
  const rdb::Status s = rdb::FilterPolicy::CreateFromString(config_options, id, &policy);
  EXPECT_TRUE(s.ok()) << id << ": " << s.ToString();
  return policy;
}

std::unique_ptr<rdb::FilterBitsBuilder> MakeBuilder(const rdb::FilterPolicy& policy,
                                                    bool detect) {
  rdb::BlockBasedTableOptions table_options = compat::ExactLengthTableOptions();
  table_options.detect_filter_construct_corruption = detect;
  return std::unique_ptr<rdb::FilterBitsBuilder>(
      policy.GetBuilderWithContext(rdb::FilterBuildingContext(table_options)));
}

void AddKeys(rdb::FilterBitsBuilder* b, int family) {
  for (int i = 0; i < kKeys; ++i) b->AddKey(test::Key(i, family));
}

// Every registered policy (so each new kind is covered when it registers).
class ConstructionCheckTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ConstructionCheckTest, IntactConstructionPasses) {
  const auto policy = MakePolicy(GetParam());
  auto b = MakeBuilder(*policy, /*detect=*/true);
  ASSERT_NE(b, nullptr);
  // Several rounds: the builder is reused by partitioned filters.
  for (int round = 0; round < 3; ++round) {
    AddKeys(b.get(), round);
    std::unique_ptr<const char[]> buf;
    rdb::Status s;
    const rdb::Slice filter = b->Finish(&buf, &s);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(b->MaybePostVerify(filter).ok()) << "round " << round;
  }
}

// MaybePostVerify must report Corruption exactly when the damaged bytes
// would answer "no" for a key the filter was built from: damage that loses
// keys is caught, harmless damage (bits that only add false positives, or a
// kind reading damaged metadata conservatively) is not a false alarm. The
// damages: single cleared bits sampled over the payload (in a Bloom filter
// every set bit belongs to some key, so each loses keys), single set bits,
// the whole payload zeroed and inverted.
TEST_P(ConstructionCheckTest, DamageIsCaughtExactlyWhenAKeyWouldBeMissed) {
  const auto policy = MakePolicy(GetParam());
  auto b = MakeBuilder(*policy, /*detect=*/true);
  AddKeys(b.get(), 0);
  std::unique_ptr<const char[]> buf;
  rdb::Status s;
  const rdb::Slice filter = b->Finish(&buf, &s);
  ASSERT_TRUE(s.ok());
  const std::string intact = filter.ToString();
  const size_t payload_bytes = intact.size() - kTrailerBytes;
  std::unique_ptr<rdb::FilterBitsReader> intact_reader(policy->GetFilterBitsReader(filter));

  // MaybePostVerify consumes the kept hashes, so each damaged copy needs a
  // fresh, identical construction.
  auto verify = [&](const std::string& contents) {
    AddKeys(b.get(), 0);
    std::unique_ptr<const char[]> again;
    rdb::Status st;
    const rdb::Slice rebuilt = b->Finish(&again, &st);
    EXPECT_TRUE(st.ok());
    EXPECT_EQ(rebuilt.ToString(), intact) << "construction is deterministic";
    return b->MaybePostVerify(contents);
  };
  // The independent oracle: query every key through the policy's reader.
  auto misses_a_key = [&](const std::string& contents) {
    std::unique_ptr<rdb::FilterBitsReader> r(policy->GetFilterBitsReader(contents));
    for (int i = 0; i < kKeys; ++i) {
      if (!r->MayMatch(test::Key(i, 0))) return true;
    }
    return false;
  };
  int caught = 0, harmless = 0;
  // Damage in memory during construction comes before the trailer's check
  // is computed over the payload: the check then vouches for it.
  ParsedBlock parsed;
  ASSERT_TRUE(ParseBlock(intact.data(), intact.size(), &parsed));
  auto expect_exact = [&](std::string damaged, const std::string& what) {
    EncodeTrailer(parsed.trailer, &damaged[0], payload_bytes);
    const bool lossy = misses_a_key(damaged);
    const rdb::Status st = verify(damaged);
    EXPECT_EQ(st.IsCorruption(), lossy) << what << ": " << st.ToString();
    EXPECT_TRUE(st.ok() || st.IsCorruption()) << what;
    (lossy ? caught : harmless) += 1;
  };

  for (size_t byte = 0; byte < payload_bytes; byte += payload_bytes / 61 + 1) {
    for (int bit = 0; bit < 8; ++bit) {
      if ((intact[byte] >> bit & 1) == 0) continue;
      std::string damaged = intact;
      damaged[byte] = static_cast<char>(damaged[byte] & ~(1 << bit));
      expect_exact(damaged, "cleared byte " + std::to_string(byte) + " bit " + std::to_string(bit));
      break;
    }
    for (int bit = 0; bit < 8; ++bit) {
      if ((intact[byte] >> bit & 1) == 1) continue;
      std::string damaged = intact;
      damaged[byte] = static_cast<char>(damaged[byte] | (1 << bit));
      expect_exact(damaged, "set byte " + std::to_string(byte) + " bit " + std::to_string(bit));
      break;
    }
  }
  std::string zeroed = intact, inverted = intact;
  for (size_t i = 0; i < payload_bytes; ++i) {
    zeroed[i] = 0;
    inverted[i] = static_cast<char>(~inverted[i]);
  }
  expect_exact(zeroed, "zeroed payload");
  expect_exact(inverted, "inverted payload");
  // Not vacuous: most sampled damage must have lost keys and been caught.
  EXPECT_GE(caught, 32) << "harmless " << harmless;
  // The intact bytes still pass after all that: no state leaks between rounds.
  EXPECT_TRUE(verify(intact).ok());
}

TEST_P(ConstructionCheckTest, DamagedHashListIsCaughtAtFinish) {
  const auto policy = MakePolicy(GetParam());
  auto b = MakeBuilder(*policy, /*detect=*/true);
  auto* ours = dynamic_cast<SstFilterBitsBuilder*>(b.get());
  ASSERT_NE(ours, nullptr);

  AddKeys(b.get(), 0);
  SstFilterBitsBuilderTestPeer::DamageHashChecksum(ours);
  std::unique_ptr<const char[]> buf;
  rdb::Status s;
  b->Finish(&buf, &s);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();

  // Through the one-argument Finish, which cannot report: MaybePostVerify does.
  AddKeys(b.get(), 1);
  SstFilterBitsBuilderTestPeer::DamageHashChecksum(ours);
  const rdb::Slice filter = b->Finish(&buf);
  EXPECT_TRUE(b->MaybePostVerify(filter).IsCorruption());

  // And the builder is usable again afterwards.
  AddKeys(b.get(), 2);
  const rdb::Slice good = b->Finish(&buf, &s);
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(b->MaybePostVerify(good).ok());
}

TEST_P(ConstructionCheckTest, OffByDefault) {
  const auto policy = MakePolicy(GetParam());
  auto b = MakeBuilder(*policy, /*detect=*/false);
  AddKeys(b.get(), 0);
  std::unique_ptr<const char[]> buf;
  rdb::Status s;
  const rdb::Slice filter = b->Finish(&buf, &s);
  ASSERT_TRUE(s.ok());
  std::string zeroed = filter.ToString();
  std::memset(&zeroed[0], 0, zeroed.size() - kTrailerBytes);
  EXPECT_TRUE(b->MaybePostVerify(zeroed).ok()) << "no check, no kept hashes";
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, ConstructionCheckTest, ::testing::ValuesIn(PolicyIds()),
                         [](const auto& info) {
                           std::string name = info.param.substr(info.param.find('.') + 1);
                           return name;
                         });

// ---- End to end: a flush whose filter is damaged between Finish and write.

// Wraps the real builder and swaps what it produced for a filter of the
// same kind and size built from other keys: a construction gone wrong (a bad
// memory write, a bug in a kind's builder) that RocksDB would otherwise write
// silently. Every kind misses nearly all real keys in it, so the damage is
// the same for every kind (zeroing bytes is not: Ribbon reads a zeroed
// payload conservatively).
class DamagingBuilder : public rdb::FilterBitsBuilder {
 public:
  DamagingBuilder(rdb::FilterBitsBuilder* inner, rdb::FilterBitsBuilder* shadow)
      : inner_(inner), shadow_(shadow) {}
  void AddKey(const rdb::Slice& key) override {
    inner_->AddKey(key);
    shadow_->AddKey(key.ToString() + "~");
  }
  size_t EstimateEntriesAdded() override { return inner_->EstimateEntriesAdded(); }
  rdb::Slice Finish(std::unique_ptr<const char[]>* buf) override {
    rdb::Status ignored;
    return Finish(buf, &ignored);
  }
  rdb::Slice Finish(std::unique_ptr<const char[]>* buf, rdb::Status* status) override {
    std::unique_ptr<const char[]> real;
    inner_->Finish(&real, status);
    rdb::Status shadow_status;
    return shadow_->Finish(buf, &shadow_status);
  }
  rdb::Status MaybePostVerify(const rdb::Slice& filter_content) override {
    shadow_->MaybePostVerify(filter_content).PermitUncheckedError();
    return inner_->MaybePostVerify(filter_content);
  }
  size_t ApproximateNumEntries(size_t bytes) override {
    return inner_->ApproximateNumEntries(bytes);
  }
#if SSTF_HAS_ADD_KEY_AND_ALT
  void AddKeyAndAlt(const rdb::Slice& key, const rdb::Slice& alt) override {
    inner_->AddKeyAndAlt(key, alt);
    shadow_->AddKeyAndAlt(key.ToString() + "~", alt.ToString() + "~");
  }
#endif
  size_t CalculateSpace(size_t num_entries) SSTF_OVERRIDE_SPACE_METHODS {
    return compat::WithSpaceModel(inner_.get()) != nullptr
               ? compat::WithSpaceModel(inner_.get())->CalculateSpace(num_entries)
               : 0;
  }
  double EstimatedFpRate(size_t num_entries, size_t bytes) SSTF_OVERRIDE_SPACE_METHODS {
    return compat::WithSpaceModel(inner_.get()) != nullptr
               ? compat::WithSpaceModel(inner_.get())->EstimatedFpRate(num_entries, bytes)
               : 1.0;
  }

 private:
  std::unique_ptr<rdb::FilterBitsBuilder> inner_, shadow_;
};

class DamagingPolicy : public rdb::FilterPolicy {
 public:
  explicit DamagingPolicy(std::shared_ptr<const rdb::FilterPolicy> inner)
      : inner_(std::move(inner)) {}
  const char* Name() const override { return inner_->Name(); }
  const char* CompatibilityName() const override { return inner_->CompatibilityName(); }
  rdb::FilterBitsBuilder* GetBuilderWithContext(
      const rdb::FilterBuildingContext& context) const override {
    return new DamagingBuilder(inner_->GetBuilderWithContext(context),
                               inner_->GetBuilderWithContext(context));
  }
  rdb::FilterBitsReader* GetFilterBitsReader(const rdb::Slice& contents) const override {
    return inner_->GetFilterBitsReader(contents);
  }

 private:
  std::shared_ptr<const rdb::FilterPolicy> inner_;
};

class ConstructionCheckDbTest : public ::testing::TestWithParam<std::string> {
 protected:
  rdb::Status WriteAndFlush(std::shared_ptr<const rdb::FilterPolicy> policy, bool detect) {
    rdb::BlockBasedTableOptions table_options;
    table_options.filter_policy = std::move(policy);
    table_options.detect_filter_construct_corruption = detect;
    rdb::Options options;
    options.create_if_missing = true;
    options.table_factory.reset(rdb::NewBlockBasedTableFactory(table_options));
    rdb::Status s = compat::OpenDB(options, dir_, &db_);
    if (!s.ok()) return s;
    for (int i = 0; i < kKeys; ++i) {
      s = db_->Put(rdb::WriteOptions(), test::Key(2 * i), "v");
      if (!s.ok()) return s;
    }
    return db_->Flush(rdb::FlushOptions());
  }
  int CountMissing() {
    int missing = 0;
    std::string value;
    for (int i = 0; i < kKeys; ++i) {
      if (db_->Get(rdb::ReadOptions(), test::Key(2 * i), &value).IsNotFound()) ++missing;
    }
    return missing;
  }
  // Declared before db_, so the database is closed before its directory goes.
  test::TempDir tmp_{"sstfilter_construct_test"};
  const std::string dir_ = tmp_.path();
  std::unique_ptr<rdb::DB> db_;
};

TEST_P(ConstructionCheckDbTest, IntactFlushPasses) {
  ASSERT_TRUE(WriteAndFlush(MakePolicy(GetParam()), /*detect=*/true).ok());
  EXPECT_EQ(CountMissing(), 0);
}

TEST_P(ConstructionCheckDbTest, DamagedFilterFailsTheFlush) {
  const auto damaging = std::make_shared<DamagingPolicy>(MakePolicy(GetParam()));
  const rdb::Status s = WriteAndFlush(damaging, /*detect=*/true);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

// Why the check exists: without it the same damage is written silently and
// present keys go missing.
TEST_P(ConstructionCheckDbTest, WithoutTheCheckTheDamageIsWritten) {
  const auto damaging = std::make_shared<DamagingPolicy>(MakePolicy(GetParam()));
  ASSERT_TRUE(WriteAndFlush(damaging, /*detect=*/false).ok());
  EXPECT_GT(CountMissing(), kKeys / 2);
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, ConstructionCheckDbTest, ::testing::ValuesIn(PolicyIds()),
                         [](const auto& info) {
                           std::string name = info.param.substr(info.param.find('.') + 1);
                           return name;
                         });

}  // namespace
}  // namespace sstfilter
