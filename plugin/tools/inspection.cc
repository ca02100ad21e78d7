#include "plugin/tools/inspection.h"

#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <set>
#include <utility>

#include "plugin/core/level_allocation.h"
#include "plugin/core/lsm_shape.h"
#include "plugin/rocksdb/policy.h"

namespace sstfilter::tools {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;
namespace fs = std::filesystem;

// Warnings in first-seen order, each with the files it concerns.
class WarningList {
 public:
  void Add(const std::string& message, const std::string& file) {
    auto [it, inserted] = index_.emplace(message, list_.size());
    if (inserted) list_.push_back({message, {}});
    if (!file.empty()) list_[it->second].files.push_back(file);
  }
  std::vector<Warning> Take() { return std::move(list_); }

 private:
  std::vector<Warning> list_;
  std::map<std::string, size_t> index_;
};

bool ReadsFamily(const std::string& compatibility_name, const std::string& family) {
  return compatibility_name == family ||
         (compatibility_name == "rocksdb.BuiltinBloomFilter" && IsBuiltinFamily(family));
}

// True if some policy loaded in this process reads filters of `family`: the
// sstfilter and built-in families, or the policy the file names, if this
// process can create it (e.g. a library loaded with LD_PRELOAD).
bool LoadedPolicyReads(const std::string& policy_name, const std::string& family) {
  // Format-1 sstfilter files ("sstfilter") are read by no policy now.
  if (IsBuiltinFamily(family)) return true;
  static std::map<std::pair<std::string, std::string>, bool> cache;
  const auto key = std::make_pair(policy_name, family);
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  rdb::ConfigOptions config;
  config.ignore_unsupported_options = false;
  std::shared_ptr<const rdb::FilterPolicy> policy;
  const rdb::Status s = rdb::FilterPolicy::CreateFromString(config, policy_name, &policy);
  const bool reads = s.ok() && policy != nullptr && ReadsFamily(policy->CompatibilityName(), family);
  cache[key] = reads;
  return reads;
}

// Decides what a lookup pays in `f` and records what is wrong with it.
void CheckFile(const OptionsFilterPolicy* configured, InspectedFile* f, WarningList* warnings) {
  const SstFilterReport& s = f->sst;
  auto warn = [&](const std::string& short_text, const std::string& message,
                  const std::string& detail) {
    f->warnings.push_back(short_text);
    warnings->Add(message, f->display_name + (detail.empty() ? "" : ": " + detail));
  };
  f->effective_fp_rate = 1.0;
  if (f->where.manifest_bytes != 0 && f->where.manifest_bytes != s.file_bytes) {
    warn("size differs from MANIFEST", "SST files whose size differs from the MANIFEST's (truncated or overwritten)",
         std::to_string(s.file_bytes) + " bytes, MANIFEST says " +
             std::to_string(f->where.manifest_bytes));
  }
  if (!s.readable) {
    warn("unreadable", "SST files that cannot be read (damaged, truncated or not SST files): lookups in them fail",
         s.error);
    return;
  }
  if (!s.problems.empty()) {
    warn("damaged filter", "damaged filters: RocksDB reports Corruption when it reads them",
         s.problems[0]);
    return;
  }
  if (!s.point_keys) {
    // Range deletions only: no filter is written, no data block is read.
    f->effective_fp_rate = 0;
    return;
  }
  const std::string configured_note =
      configured != nullptr && configured->configured
          ? " although OPTIONS configure filter_policy=" + configured->value
          : "";
  switch (s.layout) {
    case FilterLayout::kNone:
      warn("no filter",
           "SST files without a filter" + configured_note +
               ": every lookup of an absent key in their range reads a data block",
           "");
      return;
    case FilterLayout::kObsolete:
      warn("obsolete filter",
           "obsolete block-based filters, which RocksDB 7+ ignores: rewrite the files (compact them)",
           "");
      return;
    default:
      break;
  }
  if (!LoadedPolicyReads(s.policy_name, s.family)) {
    f->effective_fp_rate = std::numeric_limits<double>::quiet_NaN();
    warn("unknown filter family",
         "filters that no policy loaded here reads: a RocksDB without the library that wrote "
         "them silently ignores them",
         "family '" + s.family + "', policy '" + s.policy_name + "'");
    return;
  }
  if (configured != nullptr && configured->registered &&
      !ReadsFamily(configured->compatibility_name, s.family)) {
    warn("ignored by the configured policy",
         "filters the OPTIONS' policy " + configured->value +
             " cannot read: RocksDB ignores them until the files are rewritten",
         "written by '" + s.policy_name + "'");
    return;
  }
  if (s.described && !s.block.usable) {
    warn("filter matches everything", "filters that answer \"may match\" for every key",
         s.block.problem);
    return;
  }
  f->effective_fp_rate = s.described ? s.predicted_fp_rate : std::numeric_limits<double>::quiet_NaN();
}

std::string FileName(const std::string& path) { return fs::path(path).filename().string(); }

// Adds the files of one command-line path. False with *error if the path
// is not something to inspect.
bool AddSource(const std::string& path, Inspection* in, std::string* error) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    *error = path + ": no such file or directory";
    return false;
  }
  InspectedSource source;
  source.path = path;
  std::vector<DbFile> files;
  if (fs::is_directory(status)) {
    if (IsDbDirectory(path)) {
      source.is_database = true;
      if (!ListDbFiles(path, &source.listing, error)) {
        *error = path + ": " + *error;
        return false;
      }
      source.options = ReadOptionsFilterPolicies(path);
    } else {
      std::vector<std::string> names;
      if (!ListSstFiles(path, &names, error)) {
        *error = path + ": " + *error;
        return false;
      }
      if (names.empty()) {
        *error = path + ": not a RocksDB database directory (no CURRENT file) and no *.sst files in it";
        return false;
      }
      source.listing.notes.push_back("not a database directory (no CURRENT file): its *.sst files, levels unknown");
      for (const std::string& name : names) {
        source.listing.files.push_back(DbFile::AtPath(path + "/" + name));
      }
    }
  } else if (fs::is_regular_file(status)) {
    source.listing.files.push_back(DbFile::AtPath(path));
  } else {
    *error = path + ": neither a file nor a directory";
    return false;
  }
  in->sources.push_back(std::move(source));
  return true;
}

const OptionsFilterPolicy* ConfiguredPolicy(const InspectedSource& source, const std::string& cf) {
  for (const OptionsFilterPolicy& p : source.options.policies) {
    if (p.column_family == cf) return &p;
  }
  return nullptr;
}

void ComputeTotals(Inspection* in) {
  std::map<std::pair<std::string, int>, Totals> levels;
  std::map<std::string, Totals> cfs;
  // Per column family, its files of known level: the shape lookups see.
  std::map<std::string, std::vector<ShapeFile>> shape_files;
  std::map<std::string, std::vector<double>> fp_rates;
  for (const InspectedFile& f : in->files) {
    Totals& level = levels[{f.where.column_family, f.where.level}];
    level.column_family = f.where.column_family;
    level.level = f.where.level;
    level.Add(f);
    Totals& cf = cfs[f.where.column_family];
    cf.column_family = f.where.column_family;
    cf.Add(f);
    in->total.Add(f);
    if (f.where.level < 0 || !f.sst.point_keys) continue;  // no lookup reads it
    shape_files[f.where.column_family].push_back(
        ShapeFile{f.where.level, static_cast<double>(f.sst.entries), f.where.has_range,
                  f.where.smallest, f.where.largest});
    fp_rates[f.where.column_family].push_back(f.effective_fp_rate);
  }
  for (auto& [key, level] : levels) in->levels.push_back(level);
  for (auto& [name, cf] : cfs) {
    const auto files = shape_files.find(name);
    if (files != shape_files.end()) {
      // A lookup of an absent key consults the files whose key range holds
      // it: every L0 file that spans the keys, at most one per deeper level.
      const std::vector<double> shares = CheckShares(files->second);
      const std::vector<double>& fp = fp_rates[name];
      double wasted = 0, checks = 0;
      bool any = false;
      for (size_t i = 0; i < shares.size(); ++i) {
        checks += shares[i];
        if (!std::isfinite(fp[i])) continue;
        wasted += shares[i] * fp[i];
        any = true;
      }
      if (any) {
        const LsmShape shape = ShapeOfFiles(files->second, shares);
        cf.wasted_reads_per_miss = wasted;
        cf.checks_per_miss = checks;
        // Without keys in the shape (no file readable) there is nothing to
        // spread: no comparison.
        double shape_keys = 0;
        for (const LevelLoad& load : shape) shape_keys += load.keys;
        if (shape_keys > 0) {
          cf.uniform_ribbon_wasted_reads = UniformRibbonWastedReads(shape, cf.BitsPerKey());
          cf.optimal_wasted_reads = OptimalWastedReads(shape, cf.BitsPerKey());
        }
      }
    }
    in->column_families.push_back(cf);
  }
  in->multiple_column_families = cfs.size() > 1;
}

}  // namespace

void Totals::Add(const InspectedFile& f) {
  ++files;
  if (!(f.effective_fp_rate < 1)) ++files_without_usable_filter;
  entries += f.sst.entries;
  filter_bytes += f.sst.filter_bytes;
  if (std::isfinite(f.effective_fp_rate)) {
    fp_weighted += f.effective_fp_rate * static_cast<double>(f.sst.entries);
    fp_entries += f.sst.entries;
  }
}

double Totals::BitsPerKey() const {
  return entries ? 8.0 * static_cast<double>(filter_bytes) / static_cast<double>(entries) : 0.0;
}

double Totals::MeanFpRate() const {
  return fp_entries ? fp_weighted / static_cast<double>(fp_entries)
                    : std::numeric_limits<double>::quiet_NaN();
}

bool Inspect(const InspectOptions& options, std::ostream& progress_out, bool progress_tty,
             Inspection* in, std::string* error) {
  if (options.paths.empty()) {
    *error = "give a database directory or SST files";
    return false;
  }
  for (const std::string& path : options.paths) {
    if (!AddSource(path, in, error)) return false;
  }
  // The totals and the lookups' model are one database's.
  const auto databases = std::count_if(in->sources.begin(), in->sources.end(),
                                       [](const InspectedSource& s) { return s.is_database; });
  if (databases > 0 && in->sources.size() > 1) {
    *error = "inspect one database directory at a time (several SST files may be named together)";
    return false;
  }
  std::set<std::string> seen;
  for (const InspectedSource& s : in->sources) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(s.path, ec);
    if (!seen.insert(ec ? s.path : canonical.string()).second) {
      *error = s.path + ": named twice";
      return false;
    }
  }
  size_t total_files = 0;
  for (const InspectedSource& s : in->sources) total_files += s.listing.files.size();
  WarningList warnings;
  ProgressBar progress(progress_out, progress_tty, options.progress, total_files, "SST files read");
  for (InspectedSource& source : in->sources) {
    std::vector<std::string> vanished;
    for (const DbFile& where : source.listing.files) {
      InspectedFile f;
      f.where = where;
      const bool named = !source.is_database && source.path == where.path;
      f.display_name = named ? where.path : FileName(where.path);
      f.sst = ReadSstFilter(where.path, options.verify_checksums);
      if (source.listing.from_manifest && f.sst.missing) {
        // Live when the MANIFEST was read and not there now: a flush or
        // compaction replaced it since, or it is lost (the MANIFEST is read
        // without checking that its files exist).
        vanished.push_back(f.display_name);
        progress.Advance();
        continue;
      }
      if (named && !f.sst.readable) {
        *error = where.path + ": not a readable RocksDB SST file: " + f.sst.error;
        return false;
      }
      CheckFile(source.is_database ? ConfiguredPolicy(source, where.column_family) : nullptr, &f,
                &warnings);
      in->files.push_back(std::move(f));
      progress.Advance();
    }
    for (const std::string& name : vanished) {
      warnings.Add("live SST files missing when read: deleted while inspecting (the database "
                   "is being written: inspect it again, or while it is quiet) or lost (lookups in "
                   "their range then fail); the figures leave them out",
                   name);
    }
    if (source.is_database && !source.listing.from_manifest) {
      warnings.Add(source.path + ": RocksDB cannot open this database (see the note above), so "
                   "its live files, levels and column families are unknown: every *.sst file of "
                   "the directory is counted",
                   "");
    }
    for (const OptionsFilterPolicy& p : source.options.policies) {
      if (p.configured && !p.registered) {
        warnings.Add(source.options.file + " names filter_policy=" + p.value + " for column family '" +
                         p.column_family + "', which is not registered in this process (" + p.error +
                         "): RocksDB opens this database with NO filter unless the application "
                         "loads the library that provides it",
                     "");
      }
    }
  }
  ComputeTotals(in);
  in->warnings = warnings.Take();
  return true;
}

}  // namespace sstfilter::tools
