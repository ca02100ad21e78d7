// `sstfilter inspect`'s findings: every SST file's filter, the totals per
// level and column family, and the warnings, gathered from database
// directories (with levels from the MANIFEST and policies from OPTIONS) and
// from SST files named directly.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "plugin/tools/db_listing.h"
#include "plugin/tools/progress_bar.h"
#include "plugin/tools/sst_filter_reader.h"

namespace sstfilter::tools {

struct InspectedFile {
  DbFile where;  // column family and level, where known
  std::string display_name;  // file name within a database, else the path given
  SstFilterReport sst;
  // What a lookup of an absent key pays here: the predicted FP rate if
  // RocksDB uses the filter, 1 if it cannot (no filter, unusable, ignored),
  // NaN if unknown (a filter no model here describes).
  double effective_fp_rate = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::string> warnings;  // short, per file
};

// Totals over some files: one level of a column family, a column family
// (level == kAllLevels) or everything.
constexpr int kAllLevels = -2;
struct Totals {
  std::string column_family;
  int level = kAllLevels;  // -1: unknown
  uint64_t files = 0;
  uint64_t files_without_usable_filter = 0;
  uint64_t entries = 0;
  uint64_t filter_bytes = 0;
  double fp_weighted = 0;  // sum of effective FP rate x entries over files with a known rate
  uint64_t fp_entries = 0;
  // Column families, for absent keys spread like the stored keys: the
  // filters a lookup consults (the files whose key range holds the key:
  // L0's that span it, at most one per deeper level; a file with no known
  // range, every key), and the wasted reads per miss their FP rates give.
  double checks_per_miss = std::numeric_limits<double>::quiet_NaN();
  double wasted_reads_per_miss = std::numeric_limits<double>::quiet_NaN();
  // Column families, the same lookups: the same filter memory (BitsPerKey)
  // spread uniformly as Ribbon, and split optimally by level with filters
  // at the information-theoretic bound (Monkey); how well the split is spent.
  double uniform_ribbon_wasted_reads = std::numeric_limits<double>::quiet_NaN();
  double optimal_wasted_reads = std::numeric_limits<double>::quiet_NaN();

  void Add(const InspectedFile& f);
  // Filter bytes x 8 / filter entries over all files, as lsm_bench computes it.
  double BitsPerKey() const;
  double MeanFpRate() const;  // entries-weighted
};

struct InspectedSource {
  std::string path;
  bool is_database = false;
  DbListing listing;
  OptionsReport options;  // databases only
};

// One warning and the files it concerns (empty for database-wide ones).
struct Warning {
  std::string message;
  std::vector<std::string> files;
};

struct Inspection {
  std::vector<InspectedSource> sources;
  std::vector<InspectedFile> files;
  std::vector<Totals> levels;            // by column family, then level
  std::vector<Totals> column_families;
  Totals total;
  std::vector<Warning> warnings;
  bool multiple_column_families = false;
};

struct InspectOptions {
  std::vector<std::string> paths;
  bool json = false;
  bool verify_checksums = true;
  ProgressMode progress = ProgressMode::kAuto;
};

// Gathers everything. False with *error (and nothing else done) if a path
// does not exist, is neither a file nor a directory, is a directory that
// is neither a database nor holds SST files, or is a file that is not a
// readable SST file.
bool Inspect(const InspectOptions& options, std::ostream& progress_out, bool progress_tty,
             Inspection* inspection, std::string* error);

}  // namespace sstfilter::tools
