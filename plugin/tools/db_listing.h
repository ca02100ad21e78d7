// The SST files of a database directory and what its OPTIONS file asks of
// their filters, read through RocksDB's public API without changing the
// directory: the MANIFEST (DB::OpenForReadOnly, GetLiveFilesMetaData) gives
// each live file's column family and level; the newest OPTIONS file gives
// each column family's filter_policy.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sstfilter::tools {

struct DbFile {
  std::string path;
  std::string column_family;  // empty: unknown
  int level = -1;             // -1: unknown
  uint64_t manifest_bytes = 0;  // size the MANIFEST records; 0 if unknown
  bool has_range = false;       // from the MANIFEST: smallest and largest user keys
  std::string smallest, largest;

  // A file known by its path alone: no column family, level or range.
  static DbFile AtPath(std::string file_path) {
    DbFile f;
    f.path = std::move(file_path);
    return f;
  }
};

struct DbListing {
  std::vector<DbFile> files;       // live files, by column family, level, name
  std::vector<std::string> notes;  // e.g. SST files that are not live
  // False if the database could not be opened; `files` then holds every
  // *.sst of the directory with unknown levels, and notes say why.
  bool from_manifest = false;
};

// The names of the *.sst files in `dir`, sorted.
bool ListSstFiles(const std::string& dir, std::vector<std::string>* names, std::string* error);

// True if `dir` looks like a RocksDB database directory (has CURRENT).
bool IsDbDirectory(const std::string& dir);

// Lists a database directory. False (and *error) only if the directory
// cannot be listed at all.
bool ListDbFiles(const std::string& dir, DbListing* listing, std::string* error);

// A column family's filter_policy in the newest OPTIONS file.
struct OptionsFilterPolicy {
  std::string column_family;
  std::string value;           // as written, e.g. "bloomfilter:10:false"
  bool configured = false;     // neither empty nor "nullptr"
  bool registered = false;     // this process can create it
  std::string name;            // its Name(): what SST files record
  std::string compatibility_name;  // the filter blocks it reads
  std::string error;           // why it could not be created
};

struct OptionsReport {
  std::string file;  // e.g. "OPTIONS-000239"; empty: none found
  std::vector<OptionsFilterPolicy> policies;
  std::string error;
};

OptionsReport ReadOptionsFilterPolicies(const std::string& dir);

}  // namespace sstfilter::tools
