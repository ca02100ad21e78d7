// Damaged SST files: the filter block of every SST file on disk is damaged
// (inverted payload bytes, a zeroed or saturated payload, flipped trailer
// bits, a file truncated inside the filter block) and every present key is
// looked up with Get and MultiGet, with paranoid_checks on. Every registered
// policy is covered (PolicyIds()).
//
// Two ways the damaged bytes can be read:
// - preloaded (cache_index_and_filter_blocks=false): the files are damaged,
//   then the database is reopened; RocksDB reads each filter when it opens
//   the table;
// - on demand (cache_index_and_filter_blocks=true, a block cache of
//   capacity 0): the files are damaged in place under the open database, so
//   every lookup reads the filter from disk again.
// Three checksum settings: block checksums written (the default, CRC32c)
// and ReadOptions::verify_checksums on; the same with verify_checksums off;
// and files written with BlockBasedTableOptions::checksum = kNoChecksum.
//
// Up to RocksDB 8.1, filter blocks are always read with checksum
// verification, whatever ReadOptions::verify_checksums says
// (FilterBlockReaderCommon::GetOrReadFilterBlock builds its own
// ReadOptions; table open ignores it too). From 8.2 on, a filter block read
// on demand honours the lookup's verify_checksums = false, so damaged bytes
// reach the filter reader there too, as from files written without
// checksums, and the test asserts for that case what it asserts for those.
//
// What is asserted, and why:
// - Files with checksums: no damaged filter block ever reaches our reader
//   (counted by a wrapping policy), and no present key is reported missing:
//   RocksDB drops the filter (the lookup then reads the data) or reports
//   the damage (Corruption / IOError from Open or the lookup).
// - Files without checksums: the damaged blocks do reach our reader (so the
//   test is not vacuous). Damage to the trailer must be caught by our check:
//   the block reads as "may match" for every key, so nothing goes missing
//   and the filter rejects no absent key. Damage to the payload is
//   undetectable by design (docs/FORMAT.md: payload integrity is RocksDB's block
//   checksum): clearing bits can remove keys from any kind, and setting bits
//   can from Ribbon, whose answers are XORs of payload bits. For those the
//   test asserts only "no crash, no error" and prints how many keys went
//   missing; setting every payload bit of a Bloom kind must lose none.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>

#include "plugin/rocksdb/api_compat.h"
#include "plugin/core/format.h"
#include "plugin/rocksdb/policy.h"
#include "plugin/rocksdb/register.h"
#include "tests/db_lookup.h"
#include "tests/temp_dir.h"

namespace sstfilter {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

constexpr int kKeys = 6000;  // present: even indexes; absent: odd ones

std::string DbKey(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%09d", i);
  return buf;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Where a full filter block sits in an SST file: BlockBasedTableBuilder
// writes it right after the last data block, so it starts at the table
// property data_size and is filter_size bytes long (then RocksDB's 5-byte
// block trailer). The location is confirmed by our own trailer check, which
// covers the block length: a wrong offset or size fails it.
struct FilterLocation {
  size_t offset, len;
};

bool LocateFilter(const std::string& sst, const rdb::TableProperties& props,
                  FilterLocation* out) {
  const size_t offset = props.data_size, len = props.filter_size;
  if (len < kTrailerBytes || offset + len > sst.size()) return false;
  ParsedBlock parsed;
  if (!ParseBlock(sst.data() + offset, len, &parsed)) return false;
  *out = {offset, len};
  return true;
}

struct Damage {
  const char* name;
  // Changes block[0..len) in place, len = filter block size.
  std::function<void(char* block, size_t len)> apply_to_filter;
  bool trailer_only = false;   // our check must catch it
  bool sets_bits_only = false; // harmless to a Bloom filter
  bool truncate_file = false;  // cut the SST file inside the filter instead
};

std::vector<Damage> Damages() {
  constexpr size_t t = kTrailerBytes;
  return {
      {"PayloadBytesInverted",
       [](char* b, size_t len) {
         for (size_t i = 0; i + t < len; i += 97) b[i] = static_cast<char>(~b[i]);
       }},
      {"PayloadZeroed", [](char* b, size_t len) { std::fill(b, b + len - t, '\0'); }},
      {"PayloadSaturated", [](char* b, size_t len) { std::fill(b, b + len - t, '\xff'); },
       false, true},
      // Version 3's trailer: kind | seed << 4, params u16, marker, check.
      {"TrailerKindBitFlipped", [](char* b, size_t len) { b[len - t] ^= 0x01; }, true},
      {"TrailerParamsBitFlipped", [](char* b, size_t len) { b[len - t + 1] ^= 0x02; }, true},
      {"TrailerSeedBitFlipped", [](char* b, size_t len) { b[len - t] ^= 0x40; }, true},
      {"TrailerCheckBitFlipped", [](char* b, size_t len) { b[len - 1] ^= 0x80; }, true},
      {"FileTruncatedInFilter", nullptr, false, false, true},
  };
}

// Delegates to the real policy and records what RocksDB hands the reader:
// blocks that are not among the intact filters were damaged on disk.
class ObservingPolicy : public rdb::FilterPolicy {
 public:
  ObservingPolicy(std::shared_ptr<const rdb::FilterPolicy> inner, std::set<std::string> intact)
      : inner_(std::move(inner)), intact_(std::move(intact)) {}
  const char* Name() const override { return inner_->Name(); }
  const char* CompatibilityName() const override { return inner_->CompatibilityName(); }
  rdb::FilterBitsBuilder* GetBuilderWithContext(
      const rdb::FilterBuildingContext& context) const override {
    return inner_->GetBuilderWithContext(context);
  }
  rdb::FilterBitsReader* GetFilterBitsReader(const rdb::Slice& contents) const override {
    if (intact_.count(contents.ToString()) == 0) ++damaged_blocks_read;
    return inner_->GetFilterBitsReader(contents);
  }
  mutable std::atomic<int> damaged_blocks_read{0};

 private:
  std::shared_ptr<const rdb::FilterPolicy> inner_;
  std::set<std::string> intact_;
};

struct Lookups {
  int found = 0, missing = 0, reported = 0, other = 0;
};

enum class Checksums { kVerified, kNotVerified, kNotWritten };

const char* ChecksumsName(Checksums c) {
  switch (c) {
    case Checksums::kVerified: return "checksums";
    case Checksums::kNotVerified: return "checksums,verify_checksums=false";
    case Checksums::kNotWritten: return "no checksums";
  }
  return "";
}

class DamagedSstTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(rdb::FilterPolicy::CreateFromString(rdb::ConfigOptions(), GetParam() + ":10",
                                                    &policy_)
                    .ok());
  }

  rdb::Options MakeOptions(std::shared_ptr<const rdb::FilterPolicy> policy, bool on_demand,
                           bool with_checksums) {
    rdb::BlockBasedTableOptions table;
    table.filter_policy = std::move(policy);
    table.checksum = with_checksums ? rdb::kCRC32c : rdb::kNoChecksum;
    table.cache_index_and_filter_blocks = on_demand;
    // Capacity 0: a block leaves the cache as soon as its reader releases
    // it, so every on-demand lookup reads the filter from disk.
    table.block_cache = rdb::NewLRUCache(on_demand ? 0 : 8 << 20);
    rdb::Options options;
    options.create_if_missing = true;
    options.paranoid_checks = true;
    options.write_buffer_size = 64 << 10;
    options.target_file_size_base = 64 << 10;  // compaction output: several files
    options.compression = rdb::kNoCompression;
    options.table_factory.reset(rdb::NewBlockBasedTableFactory(table));
    options.statistics = rdb::CreateDBStatistics();
    return options;
  }

  // Writes a pristine database: several SST files, compacted below L0.
  void WritePristine(bool with_checksums) {
    const std::string dir = PristineDir(with_checksums);
    std::unique_ptr<rdb::DB> db;
    ASSERT_TRUE(compat::OpenDB(MakeOptions(policy_, false, with_checksums), dir, &db).ok());
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_TRUE(db->Put(rdb::WriteOptions(), DbKey(2 * i), std::string(50, 'v')).ok());
    }
    ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
    rdb::CompactRangeOptions cro;
    cro.bottommost_level_compaction = rdb::BottommostLevelCompaction::kForce;
    ASSERT_TRUE(db->CompactRange(cro, nullptr, nullptr).ok());
    rdb::TablePropertiesCollection props;
    ASSERT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
    ASSERT_GE(props.size(), 2u) << "want several SST files";
    for (const auto& [file, p] : props) {
      ASSERT_EQ(p->filter_policy_name, GetParam()) << file;
      const std::string sst = ReadFile(file);
      FilterLocation loc{0, 0};
      ASSERT_TRUE(LocateFilter(sst, *p, &loc)) << "filter block not found in " << file;
      intact_filters_.insert(sst.substr(loc.offset, loc.len));
      sst_props_[with_checksums][file.substr(dir.size())] = p;
    }
  }

  std::string PristineDir(bool with_checksums) const {
    return root_ + (with_checksums ? "/pristine" : "/pristine_nochecksum");
  }

  // Damages the filter block of every SST file in `dir` in place (same
  // inode, so an open table reader sees the new bytes).
  void Apply(const Damage& damage, const std::string& dir, bool with_checksums) {
    for (const auto& [rel, props] : sst_props_[with_checksums]) {
      const std::string path = dir + rel;
      const std::string sst = ReadFile(path);
      FilterLocation loc{0, 0};
      ASSERT_TRUE(LocateFilter(sst, *props, &loc)) << "filter block not found in " << path;
      if (damage.truncate_file) {
        ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(loc.offset + loc.len / 2)), 0);
        continue;
      }
      std::string block = sst.substr(loc.offset, loc.len);
      damage.apply_to_filter(&block[0], block.size());
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(loc.offset));
      f.write(block.data(), static_cast<std::streamsize>(block.size()));
      ASSERT_TRUE(f.good()) << path;
    }
  }

  static Lookups LookUpPresent(rdb::DB* db, const rdb::ReadOptions& ro) {
    Lookups r;
    auto count = [&](const rdb::Status& s) {
      if (s.ok()) {
        ++r.found;
      } else if (s.IsNotFound()) {
        ++r.missing;
      } else if (s.IsCorruption() || s.IsIOError()) {
        ++r.reported;
      } else {
        ++r.other;
      }
    };
    std::string value;
    for (int i = 0; i < kKeys; ++i) count(db->Get(ro, DbKey(2 * i), &value));
    std::vector<std::string> keys;
    for (int i = 0; i < kKeys; ++i) keys.push_back(DbKey(2 * i));
    test::MultiGetInBatches(db, ro, keys, [&](const std::string&, const rdb::Status& s,
                                              const auto&) {
      count(s);
      return true;
    });
    return r;
  }

  // One case on a fresh copy of the pristine database: damage it (before
  // opening for preloaded filters, after for on-demand ones), look up every
  // present key and some absent ones, check the header's assertions.
  void Check(const Damage* damage, bool on_demand, Checksums checksums) {
    const bool with_checksums = checksums != Checksums::kNotWritten;
    const std::string what = std::string(damage ? damage->name : "Intact") +
                             (on_demand ? ", on demand, " : ", preloaded, ") +
                             ChecksumsName(checksums);
    SCOPED_TRACE(what);
    const std::string dir = root_ + "/case" + std::to_string(cases_++);
    std::system(("cp -r '" + PristineDir(with_checksums) + "' '" + dir + "'").c_str());

    auto observer = std::make_shared<ObservingPolicy>(policy_, intact_filters_);
    const rdb::Options options = MakeOptions(observer, on_demand, with_checksums);
    if (damage != nullptr && !on_demand) Apply(*damage, dir, with_checksums);
    std::unique_ptr<rdb::DB> opened;
    const rdb::Status open = compat::OpenDB(options, dir, &opened);
    if (!open.ok()) {
      EXPECT_TRUE(damage != nullptr && (open.IsCorruption() || open.IsIOError()))
          << open.ToString();
      std::fprintf(stderr, "[damaged_sst] %s: Open reported %s\n", what.c_str(),
                   open.ToString().c_str());
      return;
    }
    std::unique_ptr<rdb::DB> db = std::move(opened);
    if (damage != nullptr && on_demand) Apply(*damage, dir, with_checksums);

    rdb::ReadOptions ro;
    ro.verify_checksums = checksums == Checksums::kVerified;
    auto* st = options.statistics.get();
    const Lookups r = LookUpPresent(db.get(), ro);
    const uint64_t useful_before = st->getTickerCount(rdb::BLOOM_FILTER_USEFUL);
    std::string value;
    for (int i = 0; i < 2000; ++i) {
      const rdb::Status s = db->Get(ro, DbKey(2 * i + 1), &value);
      EXPECT_TRUE(s.IsNotFound() || s.IsCorruption() || s.IsIOError())
          << DbKey(2 * i + 1) << " " << s.ToString();
    }
    const uint64_t rejected = st->getTickerCount(rdb::BLOOM_FILTER_USEFUL) - useful_before;
    const int damaged_read = observer->damaged_blocks_read.load();
    std::fprintf(stderr,
                 "[damaged_sst] %s: present keys found %d, missing %d, damage reported %d; "
                 "damaged filter blocks read %d; absent keys the filter rejected %llu/2000\n",
                 what.c_str(), r.found, r.missing, r.reported, damaged_read,
                 static_cast<unsigned long long>(rejected));
    EXPECT_EQ(r.other, 0);
    if (damage == nullptr) {
      EXPECT_EQ(r.found, 2 * kKeys);
      EXPECT_EQ(damaged_read, 0);
      EXPECT_GT(rejected, 1900u) << "the filter was not consulted";
      return;
    }
    const bool lookup_skips_checksums =
        SSTF_ROCKSDB_AT_LEAST(8, 2) && on_demand && checksums == Checksums::kNotVerified;
    if (with_checksums && !lookup_skips_checksums) {
      EXPECT_EQ(damaged_read, 0) << "RocksDB let a damaged filter through its checksum";
      EXPECT_EQ(r.missing, 0) << "a present key was reported missing";
      return;
    }
    if (damage->truncate_file) {
      EXPECT_EQ(r.missing, 0);
      return;
    }
    EXPECT_GT(damaged_read, 0) << "the damaged filter never reached the reader";
    const bool bloom = GetParam().find("Bloom") != std::string::npos;
    if (damage->trailer_only) {
      EXPECT_EQ(r.missing, 0);
      EXPECT_EQ(rejected, 0u) << "a damaged trailer was trusted";
    } else if (damage->sets_bits_only && bloom) {
      EXPECT_EQ(r.missing, 0);
    }
  }

  std::shared_ptr<const rdb::FilterPolicy> policy_;
  test::TempDir tmp_{"sstfilter_damaged_sst"};
  const std::string root_ = tmp_.path();
  int cases_ = 0;
  std::set<std::string> intact_filters_;
  std::map<bool, std::map<std::string, std::shared_ptr<const rdb::TableProperties>>> sst_props_;
};

TEST_P(DamagedSstTest, PresentKeysAreNeverMissing) {
  WritePristine(true);
  WritePristine(false);
  if (HasFatalFailure()) return;
  for (const Checksums checksums :
       {Checksums::kVerified, Checksums::kNotVerified, Checksums::kNotWritten}) {
    for (const bool on_demand : {false, true}) {
      Check(nullptr, on_demand, checksums);
      for (const Damage& damage : Damages()) Check(&damage, on_demand, checksums);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, DamagedSstTest, ::testing::ValuesIn(PolicyIds()),
                         [](const auto& info) {
                           return info.param.substr(info.param.find('.') + 1);
                         });

}  // namespace
}  // namespace sstfilter
