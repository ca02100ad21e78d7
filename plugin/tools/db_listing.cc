#include "plugin/tools/db_listing.h"

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/options_util.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <tuple>

#include "plugin/rocksdb/api_compat.h"

namespace sstfilter::tools {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
namespace fs = std::filesystem;

// Opening a database read-only would otherwise start a new LOG file in its
// directory (and rename the old one): inspecting must not change it.
class SilentLogger : public rdb::Logger {
 public:
  using rdb::Logger::Logv;
  void Logv(const char* /*format*/, va_list /*ap*/) override {}
};

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

OptionsFilterPolicy EvaluatePolicy(const std::string& column_family, const std::string& value) {
  OptionsFilterPolicy p;
  p.column_family = column_family;
  p.value = value;
  p.configured = !value.empty() && value != "nullptr";
  if (!p.configured) return p;
  rdb::ConfigOptions config;
  // Otherwise an unknown id is "OK" with no policy: the very trap.
  config.ignore_unsupported_options = false;
  config.ignore_unknown_options = false;
  std::shared_ptr<const rdb::FilterPolicy> policy;
  const rdb::Status s = rdb::FilterPolicy::CreateFromString(config, value, &policy);
  if (s.ok() && policy != nullptr) {
    p.registered = true;
    p.name = policy->Name();
    p.compatibility_name = policy->CompatibilityName();
  } else {
    p.error = s.ok() ? "no such policy" : s.ToString();
  }
  return p;
}

}  // namespace

bool ListSstFiles(const std::string& dir, std::vector<std::string>* names, std::string* error) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.extension() == ".sst") names->push_back(p.filename().string());
  }
  if (ec) {
    *error = ec.message();
    return false;
  }
  std::sort(names->begin(), names->end());
  return true;
}

bool IsDbDirectory(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "CURRENT", ec);
}

bool ListDbFiles(const std::string& dir, DbListing* listing, std::string* error) {
  std::vector<std::string> sst_names;
  if (!ListSstFiles(dir, &sst_names, error)) return false;
  rdb::Options options;
  options.info_log = std::make_shared<SilentLogger>();
  options.max_open_files = 64;  // do not open (and read) every table at open
  compat::SkipSstFileSizeCheckAtOpen(&options);  // we report them
  options.paranoid_checks = false;
  std::vector<std::string> cf_names;
  rdb::Status s = rdb::DB::ListColumnFamilies(options, dir, &cf_names);
  std::vector<rdb::ColumnFamilyDescriptor> descriptors;
  for (const std::string& name : cf_names) descriptors.emplace_back(name, options);
  std::vector<rdb::ColumnFamilyHandle*> handles;
  std::unique_ptr<rdb::DB> db;
  if (s.ok()) s = compat::OpenDBForReadOnly(options, dir, descriptors, &handles, &db);
  if (!s.ok()) {
    listing->notes.push_back("cannot open the database read-only (" + s.ToString() +
                             "): inspecting every *.sst file of the directory, levels unknown");
    for (const std::string& name : sst_names) {
      listing->files.push_back(DbFile::AtPath(dir + "/" + name));
    }
    return true;
  }

  std::vector<rdb::LiveFileMetaData> metas;
  db->GetLiveFilesMetaData(&metas);
  for (rdb::ColumnFamilyHandle* h : handles) db->DestroyColumnFamilyHandle(h);
  db.reset();
  listing->from_manifest = true;
  std::set<std::string> live;
  for (const rdb::LiveFileMetaData& m : metas) {
    listing->files.push_back({m.db_path + m.name, m.column_family_name, m.level, m.size, true,
                              m.smallestkey, m.largestkey});
    live.insert(fs::path(m.name).filename().string());
  }
  std::sort(listing->files.begin(), listing->files.end(), [](const DbFile& a, const DbFile& b) {
    return std::tie(a.column_family, a.level, a.path) < std::tie(b.column_family, b.level, b.path);
  });
  std::vector<std::string> stray;
  for (const std::string& name : sst_names) {
    if (!live.count(name)) stray.push_back(name);
  }
  if (!stray.empty()) {
    listing->notes.push_back(std::to_string(stray.size()) +
                             " *.sst file(s) in the directory are not live in the MANIFEST "
                             "and are not inspected (first: " + stray[0] + ")");
  }
  return true;
}

OptionsReport ReadOptionsFilterPolicies(const std::string& dir) {
  OptionsReport report;
  const rdb::Status s = rdb::GetLatestOptionsFileName(dir, rdb::Env::Default(), &report.file);
  if (!s.ok()) {
    report.error = "no OPTIONS file (" + s.ToString() + ")";
    report.file.clear();
    return report;
  }
  std::ifstream in(dir + "/" + report.file);
  if (!in) {
    report.error = "cannot read " + report.file;
    return report;
  }
  // [TableOptions/BlockBasedTable "<column family>"] sections hold
  // filter_policy=<value>; RocksDB writes one per column family.
  std::string line, column_family;
  bool in_table_section = false;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (!line.empty() && line[0] == '[') {
      in_table_section = line.rfind("[TableOptions/BlockBasedTable ", 0) == 0;
      const size_t open = line.find('"'), close = line.rfind('"');
      column_family = open != close ? line.substr(open + 1, close - open - 1) : "";
    } else if (in_table_section && line.rfind("filter_policy=", 0) == 0) {
      report.policies.push_back(EvaluatePolicy(column_family, Trim(line.substr(14))));
    }
  }
  return report;
}

}  // namespace sstfilter::tools
