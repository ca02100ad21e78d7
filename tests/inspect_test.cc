// `sstfilter inspect` on databases made here: every policy (sstfilter's and
// RocksDB's built-ins, full and partitioned), no filter, a truncated SST, a
// damaged filter block, a policy no process registered, filters the
// configured policy cannot read; and the program's exit statuses.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>

#include "plugin/core/level_allocation.h"
#include "plugin/rocksdb/api_compat.h"
#include "plugin/rocksdb/filter_bits.h"
#include "plugin/tools/inspect_command.h"
#include "plugin/tools/sst_format.h"
#include "tests/tool_test_util.h"

namespace sstfilter::tools {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
namespace fs = std::filesystem;
using test::TempDir;

Inspection InspectPaths(const std::vector<std::string>& paths, bool* ok = nullptr,
                        std::string* error = nullptr) {
  InspectOptions options;
  options.paths = paths;
  options.progress = ProgressMode::kNever;
  Inspection in;
  std::string e;
  std::ostringstream progress;
  const bool result = Inspect(options, progress, false, &in, &e);
  if (ok != nullptr) *ok = result;
  if (error != nullptr) *error = e;
  if (ok == nullptr) {
    EXPECT_TRUE(result) << e;
  }
  return in;
}

bool HasWarning(const Inspection& in, const std::string& text) {
  for (const Warning& w : in.warnings) {
    if (w.message.find(text) != std::string::npos) return true;
  }
  return false;
}

// Levels and properties as RocksDB itself reports them.
struct DbFacts {
  std::map<std::string, int> level_of;  // file name -> level
  uint64_t entries = 0, filter_bytes = 0;
};
DbFacts FactsOf(const std::string& dir, const rdb::Options& options) {
  DbFacts facts;
  std::unique_ptr<rdb::DB> db;
  EXPECT_TRUE(compat::OpenDBForReadOnly(options, dir, &db).ok());
  std::vector<rdb::LiveFileMetaData> metas;
  db->GetLiveFilesMetaData(&metas);
  for (const auto& m : metas) facts.level_of[fs::path(m.name).filename().string()] = m.level;
  rdb::TablePropertiesCollection props;
  EXPECT_TRUE(db->GetPropertiesOfAllTables(&props).ok());
  for (const auto& [file, p] : props) {
    facts.entries += p->num_filter_entries ? p->num_filter_entries : p->num_entries;
    facts.filter_bytes += p->filter_size;
  }
  return facts;
}

// The FP rate the writing policy's own builder predicts for a block of
// `bytes` holding `entries` keys: what inspect must report.
double BuilderPrediction(const rdb::FilterPolicy& policy, uint64_t entries, uint64_t bytes) {
  const rdb::BlockBasedTableOptions table_options;
  bits::Builder b(policy, rdb::FilterBuildingContext(table_options));
  return b ? b.EstimatedFpRate(entries, bytes) : NAN;
}

struct PolicyCase {
  const char* table_options;
  const char* policy_name;  // rocksdb.filter.policy
  const char* kind;
  int lines_per_key;
  double budget;            // bits per key
};

class InspectPolicyTest : public ::testing::TestWithParam<PolicyCase> {};

TEST_P(InspectPolicyTest, ListsEveryFileWithItsLevelAndFilter) {
  const PolicyCase& c = GetParam();
  TempDir dir;
  const rdb::Options options = test::OptionsFor(c.table_options);
  test::MakeDb(dir.path(), options, 3, 4000, /*compact=*/true);
  const DbFacts facts = FactsOf(dir.path(), options);
  const Inspection in = InspectPaths({dir.path()});
  EXPECT_TRUE(in.warnings.empty()) << in.warnings[0].message;
  ASSERT_EQ(in.files.size(), facts.level_of.size());
  std::set<int> levels;
  for (const InspectedFile& f : in.files) {
    const SstFilterReport& s = f.sst;
    EXPECT_EQ(f.where.level, facts.level_of.at(f.display_name)) << f.display_name;
    levels.insert(f.where.level);
    EXPECT_EQ(f.where.column_family, "default");
    EXPECT_TRUE(s.readable) << s.error;
    EXPECT_EQ(s.policy_name, c.policy_name);
    EXPECT_EQ(s.layout, FilterLayout::kFull);
    EXPECT_EQ(s.block.kind, c.kind) << f.display_name;
    EXPECT_TRUE(s.block.usable) << s.block.problem;
    if (c.lines_per_key) {
      EXPECT_EQ(s.block.lines_per_key, c.lines_per_key);
    }
    EXPECT_GT(s.entries, 0u);
    const double bits_per_key = 8.0 * s.filter_bytes / s.entries;
    EXPECT_NEAR(bits_per_key, c.budget, 0.05 * c.budget) << f.display_name;
    EXPECT_TRUE(f.warnings.empty());
    // The writing policy's own prediction for this very block.
    std::shared_ptr<const rdb::FilterPolicy> policy = test::OptionsFor(c.table_options)
        .table_factory->GetOptions<rdb::BlockBasedTableOptions>()->filter_policy;
    EXPECT_NEAR(f.effective_fp_rate, BuilderPrediction(*policy, s.entries, s.filter_bytes),
                1e-4 * f.effective_fp_rate)
        << f.display_name;
  }
  // L0 and where compaction put the rest: L1 with static level sizing
  // (RocksDB 7.x's default), the last level with dynamic sizing (8.4 on).
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(*levels.begin(), 0);
  // The database's bits per key as lsm_bench computes it from the same properties.
  EXPECT_EQ(in.total.entries, facts.entries);
  EXPECT_EQ(in.total.filter_bytes, facts.filter_bytes);
  ASSERT_EQ(in.levels.size(), 2u);
  EXPECT_EQ(in.levels[0].level, 0);
  EXPECT_EQ(in.levels[0].files, 2u);
  // The keys grow, so the two L0 files hold the newest keys, beyond the
  // deeper level's range: an absent key spread like the stored ones checks
  // one filter, each file in proportion to its keys.
  const Totals& cf = in.column_families[0];
  EXPECT_NEAR(cf.checks_per_miss, 1.0, 0.001);
  double wasted = 0;
  for (const InspectedFile& f : in.files) {
    wasted += f.effective_fp_rate * static_cast<double>(f.sst.entries) / in.total.entries;
  }
  EXPECT_GT(cf.wasted_reads_per_miss, 0);
  EXPECT_NEAR(cf.wasted_reads_per_miss, wasted, 0.001 * wasted);
  // Beside it, the same memory spread uniformly as Ribbon and Monkey's
  // optimum, which no real filter reaches.
  EXPECT_NEAR(cf.uniform_ribbon_wasted_reads,
              cf.checks_per_miss * PlannedFpRate(FilterKind::kRibbon, cf.BitsPerKey()), 1e-12);
  EXPECT_LT(cf.optimal_wasted_reads, cf.uniform_ribbon_wasted_reads);
  EXPECT_LT(cf.optimal_wasted_reads, cf.wasted_reads_per_miss);
  std::ostringstream out, err;
  InspectOptions options_text;
  options_text.paths = {dir.path()};
  options_text.progress = ProgressMode::kNever;
  EXPECT_EQ(RunInspect(options_text, out, err), 0);
  EXPECT_NE(out.str().find("no warnings"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find(c.policy_name), std::string::npos);
  EXPECT_NE(out.str().find("x the optimum"), std::string::npos) << out.str();
}

INSTANTIATE_TEST_SUITE_P(
    AllPolicies, InspectPolicyTest,
    ::testing::Values(
        PolicyCase{"filter_policy=sstfilter.StandardBloom:10", "sstfilter.StandardBloom",
                   "StandardBloom", 0, 10},
        PolicyCase{"filter_policy=sstfilter.BlockedBloom:10", "sstfilter.BlockedBloom",
                   "BlockedBloom", 1, 10},
        PolicyCase{"filter_policy={id=sstfilter.BlockedBloom;bits_per_key=20;lines_per_key=2}",
                   "sstfilter.BlockedBloom", "BlockedBloom", 2, 20},
        PolicyCase{"filter_policy=sstfilter.Ribbon:10", "sstfilter.Ribbon", "Ribbon", 0, 10},
        PolicyCase{"filter_policy=bloomfilter:10:false", "bloomfilter", "FastLocalBloom", 0, 10},
        PolicyCase{"filter_policy=ribbonfilter:14.6:-1", "ribbonfilter", "Standard128Ribbon", 0, 10}),
    [](const auto& info) { return std::to_string(info.index) + "_" + info.param.kind; });

// Partitioned filters: every partition read; the kind and a prediction
// close to the full filter's at the same budget.
TEST(InspectTest, PartitionedFilters) {
  for (const char* policy : {"sstfilter.BlockedBloom:10", "bloomfilter:10:false"}) {
    TempDir dir;
    test::MakeDb(dir.path(),
                 test::OptionsFor(std::string("filter_policy=") + policy +
                                  ";partition_filters=true;index_type=kTwoLevelIndexSearch;"
                                  "metadata_block_size=512"),
                 2, 20000, false);
    const Inspection in = InspectPaths({dir.path()});
    EXPECT_TRUE(in.warnings.empty()) << policy << ": " << in.warnings[0].message;
    ASSERT_EQ(in.files.size(), 2u);
    for (const InspectedFile& f : in.files) {
      EXPECT_EQ(f.sst.layout, FilterLayout::kPartitioned) << policy;
      EXPECT_GT(f.sst.partitions, 10) << policy;
      EXPECT_EQ(f.sst.block.kind, std::string(policy)[0] == 's' ? "BlockedBloom" : "FastLocalBloom");
      EXPECT_GT(f.effective_fp_rate, 0.007) << policy;
      EXPECT_LT(f.effective_fp_rate, 0.013) << policy;
    }
  }
}

TEST(InspectTest, NoFilterIsAWarning) {
  TempDir dir;
  test::MakeDb(dir.path(), test::OptionsFor(""), 2, 1000, false);
  const Inspection in = InspectPaths({dir.path()});
  ASSERT_EQ(in.files.size(), 2u);
  for (const InspectedFile& f : in.files) {
    EXPECT_EQ(f.sst.layout, FilterLayout::kNone);
    EXPECT_EQ(f.effective_fp_rate, 1.0);
  }
  EXPECT_TRUE(HasWarning(in, "without a filter"));
  EXPECT_EQ(in.total.files_without_usable_filter, 2u);
  std::ostringstream out, err;
  InspectOptions options;
  options.paths = {dir.path()};
  options.progress = ProgressMode::kNever;
  EXPECT_EQ(RunInspect(options, out, err), 1);
  EXPECT_NE(out.str().find("SST files without a filter"), std::string::npos) << out.str();
}

// A truncated SST inside a database: reported with its cause, the other
// files still inspected; named directly, it is an error.
TEST(InspectTest, TruncatedSst) {
  TempDir dir;
  test::MakeDb(dir.path(), test::OptionsFor("filter_policy=sstfilter.Ribbon:10"), 3, 2000, false);
  std::vector<std::string> names;
  std::string error;
  ASSERT_TRUE(ListSstFiles(dir.path(), &names, &error));
  ASSERT_EQ(names.size(), 3u);
  const std::string victim = dir.path() + "/" + names[1];
  fs::resize_file(victim, fs::file_size(victim) / 2);
  const Inspection in = InspectPaths({dir.path()});
  ASSERT_EQ(in.files.size(), 3u);
  for (const InspectedFile& f : in.files) {
    EXPECT_EQ(f.sst.readable, f.display_name != names[1]) << f.display_name;
  }
  EXPECT_TRUE(HasWarning(in, "cannot be read"));
  EXPECT_TRUE(HasWarning(in, "differs from the MANIFEST"));
  bool ok = true;
  InspectPaths({victim}, &ok, &error);
  EXPECT_FALSE(ok);
  EXPECT_NE(error.find("not a readable RocksDB SST file"), std::string::npos) << error;
}

// One damaged byte in a filter block: its checksum says so.
TEST(InspectTest, DamagedFilterBlock) {
  TempDir dir;
  const std::string path = dir.path() + "/x.sst";
  test::WriteSst(path, test::OptionsFor("filter_policy=sstfilter.StandardBloom:10"), 0, 3000);
  std::string file;
  {
    std::ifstream in(path, std::ios::binary);
    file.assign(std::istreambuf_iterator<char>(in), {});
  }
  // The filter block follows the data blocks (table property data_size).
  const Inspection before = InspectPaths({path});
  ASSERT_EQ(before.files.size(), 1u);
  EXPECT_TRUE(before.warnings.empty());
  rdb::Options options;
  rdb::SstFileReader reader(options);
  ASSERT_TRUE(reader.Open(path).ok());
  const uint64_t filter_offset = reader.GetTableProperties()->data_size;
  file[filter_offset + 10] ^= 0x01;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << file;
  const Inspection after = InspectPaths({path});
  EXPECT_TRUE(HasWarning(after, "damaged filters"));
  EXPECT_EQ(after.files[0].effective_fp_rate, 1.0);
  EXPECT_NE(after.files[0].sst.problems.at(0).find("checksum mismatch"), std::string::npos);
}

// A policy the writing process had and this one has not: the filters of
// an unknown family and the OPTIONS naming an unregistered policy.
class UnregisteredPolicy : public rdb::FilterPolicy {
 public:
  const char* Name() const override { return "test.UnregisteredFilter"; }
  const char* CompatibilityName() const override { return Name(); }
  rdb::FilterBitsBuilder* GetBuilderWithContext(
      const rdb::FilterBuildingContext& context) const override {
    return inner_->GetBuilderWithContext(context);
  }
  rdb::FilterBitsReader* GetFilterBitsReader(const rdb::Slice& contents) const override {
    return inner_->GetFilterBitsReader(contents);
  }

 private:
  std::unique_ptr<const rdb::FilterPolicy> inner_{rdb::NewBloomFilterPolicy(10)};
};

TEST(InspectTest, UnregisteredPolicy) {
  TempDir dir;
  rdb::Options options = test::OptionsFor("");
  options.table_factory->GetOptions<rdb::BlockBasedTableOptions>()->filter_policy =
      std::make_shared<UnregisteredPolicy>();
  test::MakeDb(dir.path(), options, 2, 1000, false);
  const Inspection in = InspectPaths({dir.path()});
  ASSERT_EQ(in.sources.size(), 1u);
  ASSERT_EQ(in.sources[0].options.policies.size(), 1u);
  EXPECT_FALSE(in.sources[0].options.policies[0].registered);
  EXPECT_TRUE(HasWarning(in, "not registered in this process"));
  EXPECT_TRUE(HasWarning(in, "no policy loaded here reads"));
  for (const InspectedFile& f : in.files) {
    EXPECT_EQ(f.sst.family, "test.UnregisteredFilter");
    EXPECT_TRUE(std::isnan(f.effective_fp_rate));
  }
}

// Switching a database from RocksDB's Bloom to an sstfilter policy: the
// old files' filters are of the other family, which RocksDB ignores.
// A database switched from RocksDB's Bloom to an sstfilter policy: the
// built-in files keep a filter the configured policy reads (they share the
// family name), so inspect counts them at their own FP rate, no warning.
TEST(InspectTest, BuiltinFiltersStayReadAfterASwitch) {
  TempDir dir;
  test::MakeDb(dir.path(), test::OptionsFor("filter_policy=bloomfilter:10:false"), 2, 1000, false);
  test::MakeDb(dir.path(), test::OptionsFor("filter_policy=sstfilter.Ribbon:10"), 1, 1000, false);
  const Inspection in = InspectPaths({dir.path()});
  ASSERT_EQ(in.files.size(), 3u);
  int builtin = 0;
  for (const InspectedFile& f : in.files) {
    if (f.sst.policy_name == "bloomfilter") {
      ++builtin;
      EXPECT_EQ(f.sst.block.kind, "FastLocalBloom");
      EXPECT_LT(f.effective_fp_rate, 0.02);  // FastLocalBloom at 10 bits/key: ~0.9%
    } else {
      EXPECT_EQ(f.sst.block.kind, "Ribbon");
      EXPECT_LT(f.effective_fp_rate, 0.002);
    }
  }
  EXPECT_EQ(builtin, 2);
  EXPECT_FALSE(HasWarning(in, "cannot read"));
}

TEST(InspectTest, JsonOutput) {
  TempDir dir;
  test::MakeDb(dir.path(), test::OptionsFor("filter_policy=sstfilter.BlockedBloom:10"), 2, 1000,
               false);
  InspectOptions options;
  options.paths = {dir.path()};
  options.json = true;
  options.progress = ProgressMode::kNever;
  std::ostringstream out, err;
  EXPECT_EQ(RunInspect(options, out, err), 0);
  const std::string json = out.str();
  for (const char* key : {"\"files\"", "\"levels\"", "\"total\"", "\"warnings\": []",
                          "\"kind\": \"BlockedBloom\"", "\"level\": 0"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json;
  }
  EXPECT_EQ(std::count(json.begin(), json.end(), '{'), std::count(json.begin(), json.end(), '}'));
}

// The program itself: exit statuses and clear errors.
struct ToolRun {
  int status;
  std::string output;  // stdout and stderr
};
ToolRun RunTool(const std::string& args) {
  ToolRun r{-1, ""};
  FILE* p = popen((std::string(SSTFILTER_TOOL) + " " + args + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(ToolTest, SizeAcceptance) {
  const ToolRun r = RunTool("size --keys=100000000 --fp_rate=0.01");
  ASSERT_EQ(r.status, 0) << r.output;
  std::istringstream lines(r.output);
  std::string line;
  bool found = false;
  while (std::getline(lines, line)) {
    if (line.rfind("sstfilter.StandardBloom ", 0) != 0) continue;
    found = true;
    std::istringstream cells(line);
    std::string name, bits, probes, fp, mb, unit;
    cells >> name >> bits >> probes >> fp >> mb >> unit;
    EXPECT_NEAR(std::stod(bits), 9.6, 0.05) << line;
    EXPECT_EQ(probes, "7") << line;
    EXPECT_NEAR(std::stod(mb), 120, 1) << line;
    EXPECT_EQ(unit, "MB") << line;
    break;  // the settings list below names the filter again
  }
  EXPECT_TRUE(found) << r.output;
}

// --variants: every design in a row of its own, bits/key and MB, beside
// sstfilter's kinds, and a line on why each design is not a kind here.
TEST(ToolTest, SizeVariantsAcceptance) {
  const ToolRun r = RunTool("size --keys=100000000 --fp_rate=0.01 --variants");
  ASSERT_EQ(r.status, 0) << r.output;
  // "<filter>  <from>  <adds>  <bits/key>  <memory> MB  ...".
  const std::regex figures(" ([0-9]+\\.[0-9]+) +[0-9]+(\\.[0-9]+)? MB ");
  auto has_row = [&](const std::string& filter, const std::string& from) {
    std::istringstream lines(r.output);
    std::string line;
    while (std::getline(lines, line)) {
      std::istringstream cells(line);
      std::string name, source;
      cells >> name >> source;
      std::smatch m;
      if (name == filter && source == from && std::regex_search(line, m, figures) &&
          std::stod(m[1]) > 0) {
        return true;
      }
    }
    return false;
  };
  for (const char* design : {"CountingBloom/counter_bits=4", "Cuckoo/b=4,load=95.5%",
                             "ScalableBloom/s=2,r=0.9", "Xor", "BinaryFuse/3-wise",
                             "BinaryFuse/4-wise"}) {
    EXPECT_TRUE(has_row(design, "formula")) << design << "\n" << r.output;
    EXPECT_NE(r.output.find(std::string("\n  ") + design + ": "), std::string::npos) << design;
  }
  for (const char* kind : {"sstfilter.StandardBloom", "sstfilter.BlockedBloom",
                           "sstfilter.BlockedBloom/lines_per_key=2", "sstfilter.Ribbon"}) {
    EXPECT_TRUE(has_row(kind, "sstfilter")) << kind << "\n" << r.output;
  }
}

// Directories a user may point inspect at besides a quiet, healthy
// database: a file of range deletions only (no filter, none needed), a
// FIFO named *.sst (no hang), a MANIFEST RocksDB cannot read (a warning,
// not a silent fallback), every file unreadable (no comparison against an
// optimum of nothing), and several databases at once (refused: the totals
// and the lookups' model are one database's).
TEST(InspectTest, UnusualDirectories) {
  TempDir dir;
  {
    std::unique_ptr<rdb::DB> db;
    const rdb::Options options = test::OptionsFor("filter_policy=sstfilter.Ribbon:10");
    ASSERT_TRUE(compat::OpenDB(options, dir.path(), &db).ok());
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE(db->Put(rdb::WriteOptions(), test::SortedKey(i), "v").ok());
    }
    ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
    ASSERT_TRUE(db->DeleteRange(rdb::WriteOptions(), db->DefaultColumnFamily(),
                                test::SortedKey(0), test::SortedKey(500))
                    .ok());
    ASSERT_TRUE(db->Flush(rdb::FlushOptions()).ok());
    ASSERT_TRUE(db->Close().ok());
  }
  Inspection in = InspectPaths({dir.path()});
  ASSERT_EQ(in.files.size(), 2u);
  EXPECT_TRUE(in.warnings.empty()) << in.warnings[0].message;
  EXPECT_EQ(in.total.files_without_usable_filter, 0u);
  ASSERT_EQ(in.column_families.size(), 1u);
  EXPECT_NEAR(in.column_families[0].checks_per_miss, 1.0, 1e-9);
  EXPECT_LT(in.column_families[0].wasted_reads_per_miss, 0.01);

  bool ok = true;
  std::string error;
  TempDir other;
  test::MakeDb(other.path(), test::OptionsFor("filter_policy=sstfilter.Ribbon:10"), 1, 100, false);
  InspectPaths({dir.path(), other.path()}, &ok, &error);
  EXPECT_FALSE(ok);
  EXPECT_NE(error.find("one database directory at a time"), std::string::npos) << error;
  const std::string sst = dir.path() + "/x.sst";
  test::WriteSst(sst, test::OptionsFor("filter_policy=sstfilter.Ribbon:10"), 0, 100);
  InspectPaths({sst, dir.path() + "/./x.sst"}, &ok, &error);
  EXPECT_FALSE(ok);
  EXPECT_NE(error.find("named twice"), std::string::npos) << error;

  TempDir loose;
  test::WriteSst(loose.path() + "/a.sst", test::OptionsFor("filter_policy=sstfilter.Ribbon:10"),
                 0, 100);
  ASSERT_EQ(::mkfifo((loose.path() + "/fifo.sst").c_str(), 0600), 0);
  in = InspectPaths({loose.path()});
  EXPECT_TRUE(HasWarning(in, "cannot be read"));

  std::vector<std::string> names;
  ASSERT_TRUE(ListSstFiles(other.path(), &names, &error));
  for (const std::string& name : names) fs::resize_file(other.path() + "/" + name, 0);
  in = InspectPaths({other.path()});
  ASSERT_EQ(in.column_families.size(), 1u);
  EXPECT_EQ(in.column_families[0].wasted_reads_per_miss, 1.0);
  EXPECT_TRUE(std::isnan(in.column_families[0].optimal_wasted_reads));
  for (const auto& entry : fs::directory_iterator(other.path())) {
    if (entry.path().filename().string().rfind("MANIFEST-", 0) == 0) {
      std::fstream manifest(entry.path(), std::ios::in | std::ios::out | std::ios::binary);
      manifest.seekp(20);
      manifest.write(std::string(40, '\xff').data(), 40);
    }
  }
  in = InspectPaths({other.path()});
  EXPECT_TRUE(HasWarning(in, "RocksDB cannot open this database")) << in.warnings.size();
}

// What `size` prints is what a builder writes: a Ribbon filter too small
// to beat a StandardBloom filter of its length is written as one, and a
// row that cannot meet --fp_rate at these few keys says so.
TEST(ToolTest, SizeSaysWhatTheFiltersAre) {
  const ToolRun few = RunTool("size --keys=10 --fp_rate=0.01");
  EXPECT_EQ(few.status, 0) << few.output;
  std::istringstream lines(few.output);
  std::string line;
  int ribbon_rows = 0;
  while (std::getline(lines, line)) {
    // The figures' row, not the settings' one.
    if (line.rfind("sstfilter.Ribbon ", 0) != 0 || line.find("filter_policy") != line.npos) {
      continue;
    }
    ++ribbon_rows;
    EXPECT_NE(line.find("(Bloom)"), std::string::npos) << line;
    EXPECT_NE(line.find("(above the target)"), std::string::npos) << line;
  }
  EXPECT_EQ(ribbon_rows, 1) << few.output;
  const ToolRun many = RunTool("size --keys=1000000 --fp_rate=0.01");
  EXPECT_EQ(many.status, 0) << many.output;
  EXPECT_EQ(many.output.find("(Bloom)"), std::string::npos) << many.output;
  EXPECT_EQ(many.output.find("above the target"), std::string::npos) << many.output;
}

TEST(ToolTest, ErrorsAndExitStatuses) {
  TempDir dir;
  const std::string not_sst = dir.path() + "/notes.txt";
  std::ofstream(not_sst) << "not an SST file at all, but long enough to have a footer's worth of bytes";
  struct Case {
    std::string args;
    int status;
    const char* message;
  };
  for (const Case& c : {Case{"", 2, "sstfilter size"}, Case{"help", 0, "sstfilter inspect"},
                        Case{"size --help", 0, "--fp_rate"}, Case{"frobnicate", 2, "unknown command"},
                        Case{"size --keys=abc --fp_rate=0.01", 2, "bad value 'abc'"},
                        Case{"size --keys=-3 --fp_rate=0.01", 2, "bad value '-3'"},
                        Case{"size --keys=1000 --fp_rate=1.5", 2, "--fp_rate must be"},
                        Case{"size --keys=1000 --bits_per_key=0", 2, "--bits_per_key must be"},
                        Case{"size --keys=1000", 2, "exactly one"},
                        Case{"size --keys=1000 --bits_per_key=10 --variants", 2,
                             "--variants needs --fp_rate"},
                        Case{"size --keys=1000 --fp_rate=0.01 --progress=never", 2, "unknown flag"},
                        Case{"size --keys=100 --fp_rate=0.01 --verify --verify_keys=200000000", 2,
                             "--verify_keys must be in"},
                        Case{"size --keys=100 --fp_rate=0.01 --verify --verify_queries=2000000000",
                             2, "--verify_queries must be at most"},
                        Case{"inspect", 2, "give a database"},
                        Case{"inspect " + dir.path() + "/missing", 2, "no such file"},
                        Case{"inspect " + not_sst, 2, "not a readable RocksDB SST file"},
                        Case{"inspect " + dir.path(), 2, "not a RocksDB database directory"}}) {
    const ToolRun r = RunTool(c.args);
    EXPECT_EQ(r.status, c.status) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
}

}  // namespace
}  // namespace sstfilter::tools
