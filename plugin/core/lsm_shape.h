// The shape of an LSM from its files: keys per level, and how many filters
// of each level a lookup of an absent key consults. Pure; the RocksDB
// adapter and the tools feed it the live files.
#pragma once

#include <string>
#include <vector>

#include "plugin/core/level_allocation.h"

namespace sstfilter {

struct ShapeFile {
  int level = 0;
  double entries = 0;
  bool has_range = false;         // else the file is taken to cover every key
  std::string smallest, largest;  // user keys, bytewise order
};

// Absent keys are taken to be spread like the stored keys of every level
// together: a file's share of lookups is the share of all keys (duplicates
// across levels included) inside its key range, read off the files'
// boundaries (entries inside a file spread by the keys' leading bytes). An
// L0 file adds its share to L0's checks; a deeper level's files do not
// overlap, so its checks are the sum, at most 1. Files without a range,
// or with its ends swapped (damaged metadata), count as covering every key.
LsmShape ShapeOfFiles(const std::vector<ShapeFile>& files);

// Per file, in the order given: the share of absent-key lookups that
// consult its filter, as ShapeOfFiles counts them (a deeper level's shares
// scaled down to sum to at most 1). 0 for files of an unknown level (< 0).
std::vector<double> CheckShares(const std::vector<ShapeFile>& files);

// ShapeOfFiles with the files' CheckShares already at hand.
LsmShape ShapeOfFiles(const std::vector<ShapeFile>& files, const std::vector<double>& shares);

}  // namespace sstfilter
