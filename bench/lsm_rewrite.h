// lsm_bench --switch_to: rewriting a database's files in place, a share
// of each level at a time, as compaction does after a policy switch.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <rocksdb/db.h>

namespace sstfilter::bench {

// --rewrite_steps: increasing percentages in (0, 100]; exits (Fatal) on a
// bad list.
std::vector<double> ParseRewriteSteps(const std::string& list);

// The files of each level as they were when the policy was switched, by
// file name; RewriteFiles takes them in this order.
using FilesByLevel = std::vector<std::vector<std::string>>;
FilesByLevel LiveFiles(ROCKSDB_NAMESPACE::DB* db);

// Rewrites, in every level, the first `percent` of that level's files as
// they were at the switch (those not rewritten yet), each file on its own
// into its own level (CompactFiles, no size limit: one file in, one out),
// so the files per level and their key ranges stay as they were and only
// the filters change. `done` counts, per level, the files rewritten so far.
void RewriteFiles(ROCKSDB_NAMESPACE::DB* db, const FilesByLevel& original, double percent,
                  std::vector<size_t>* done);

}  // namespace sstfilter::bench
