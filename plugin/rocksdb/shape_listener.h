// sstfilter.LsmShape: an EventListener that tells sstfilter.LevelAware the
// shape its column family has now (keys and filter checks per level, and
// the filter memory the live files hold), so that each new file is planned
// for the tree as it is, not as a model expects it.
//
// Why a listener: a filter policy sees one file at a time (its level, not
// the tree), and RocksDB gives it no handle on the DB. A listener sees every
// flush and compaction, and `listeners` is a DBOptions entry that options
// strings and OPTIONS files carry, so a DB configured only by text (the
// stock db_bench) gets it too:
//
//   [DBOptions]
//     listeners={sstfilter.LsmShape}
//
// What it sees (RocksDB 7.8 to 11.x):
// - flushes and automatic compactions call back with the DB before and
//   after the job: the listener reads the live files (GetLiveFilesMetaData:
//   level, entries, key range) and, for a job about to run, moves its input
//   files to the output level, so the job's files are planned for the tree
//   it leaves behind;
// - DB::CompactFiles calls no DB callback, only OnSubcompactionBegin (input
//   and output level), OnTableFileCreated and OnTableFileDeleted: the ledger
//   follows them, moving every L0 file to the output level when L0 is the
//   input;
// - the filter bytes of each file it saw created (table properties): what
//   the live files really spend.
// Shapes are published by the DB's info log and column family name, the two
// things FilterBuildingContext names. A DB closed and reopened has a new
// info log, unless the application gives it its own Logger: then the DB's
// session id tells a reopened DB from the one before, and a shape is
// withdrawn once its DB's SstFileManager (RocksDB makes one per DB unless
// given one) is gone, so no shape outlives its DB. See docs/LEVEL_AWARE.md.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <rocksdb/env.h>
#include <rocksdb/listener.h>
#include <rocksdb/sst_file_manager.h>

#include "plugin/core/level_allocation.h"

namespace sstfilter {

constexpr const char* kShapeListenerId = "sstfilter.LsmShape";

// The filter memory of some files: their entries, and the filter bytes of
// those whose filter size the listener saw (the files it saw written).
struct FilterMemory {
  double keys = 0;
  double known_keys = 0;
  double known_filter_bits = 0;  // filter bytes * 8 of the known_keys' files

  void Add(double entries, double filter_bits);  // filter_bits < 0: unknown
  void Add(const FilterMemory& other);
  // Filter bits of all the files, the unknown ones counted at `budget`.
  double SpentBits(double budget) const {
    return known_filter_bits + (keys - known_keys) * budget;
  }
};

// What the flushes, or the compactions into one level, under way will
// write: their inputs (a flush: as many keys as the last flush, 0 when no
// flush of this DB session has completed yet); flushes add their keys.
struct PendingWrite {
  FilterMemory inputs;
  bool adds_keys = false;
  int files = 0;  // input files the listener knows (a flush: the one it writes)
};

// One column family as the listener last saw it.
struct LiveShape {
  LsmShape levels;            // keys and checks per level, jobs under way applied
  double l0_keys_now = 0;     // L0's keys now (levels[0] is its recent mean)
  // L0's most keys as the last flushes found it, theirs added, and one
  // flush more: a flush can begin while the compaction draining L0 still
  // runs, one file past any peak seen (db_bench's closing flush does).
  double l0_peak_keys = 0;
  FilterMemory l0_files;      // L0's live files, a job's inputs included
  FilterMemory live;          // the live files
  PendingWrite flushes;               // into L0
  std::vector<PendingWrite> pending;  // compactions, by output level
  // The live files as the last few flushes found them, summed (empty before
  // the first): the memory they hold on average.
  FilterMemory sampled;
};

// The shape last published for the DB writing to `info_log` and its column
// family `cf_name`; null if none (no listener, nothing flushed yet, or the
// DB is gone), and null with *shared = true when several open DBs write to
// this info log (an application's own Logger given to each): a builder,
// which knows only the info log, cannot tell which DB it writes for.
std::shared_ptr<const LiveShape> FindLiveShape(const ROCKSDB_NAMESPACE::Logger* info_log,
                                               const std::string& cf_name,
                                               bool* shared = nullptr);

class ShapeListener : public ROCKSDB_NAMESPACE::EventListener {
 public:
  ShapeListener();
  ~ShapeListener() override;
  static const char* kClassName() { return kShapeListenerId; }
  const char* Name() const override { return kClassName(); }

  // Reads `db`'s live files now, as a flush or compaction would. For a
  // program that opens a DB and rewrites files with DB::CompactFiles before
  // any flush: that path calls nothing that names the DB, so until then
  // sstfilter.LevelAware has no shape and keeps to its budget uniformly.
  void Observe(ROCKSDB_NAMESPACE::DB* db);

  void OnFlushBegin(ROCKSDB_NAMESPACE::DB* db,
                    const ROCKSDB_NAMESPACE::FlushJobInfo& info) override;
  void OnFlushCompleted(ROCKSDB_NAMESPACE::DB* db,
                        const ROCKSDB_NAMESPACE::FlushJobInfo& info) override;
  void OnCompactionBegin(ROCKSDB_NAMESPACE::DB* db,
                         const ROCKSDB_NAMESPACE::CompactionJobInfo& info) override;
  void OnCompactionCompleted(ROCKSDB_NAMESPACE::DB* db,
                             const ROCKSDB_NAMESPACE::CompactionJobInfo& info) override;
  void OnExternalFileIngested(ROCKSDB_NAMESPACE::DB* db,
                              const ROCKSDB_NAMESPACE::ExternalFileIngestionInfo& info) override;
  void OnSubcompactionBegin(const ROCKSDB_NAMESPACE::SubcompactionJobInfo& info) override;
  void OnSubcompactionCompleted(const ROCKSDB_NAMESPACE::SubcompactionJobInfo& info) override;
  void OnTableFileCreated(const ROCKSDB_NAMESPACE::TableFileCreationInfo& info) override;
  void OnTableFileDeleted(const ROCKSDB_NAMESPACE::TableFileDeletionInfo& info) override;

 private:
  struct File {
    int level = 0;
    double entries = 0;
    double filter_bits = -1;  // unknown: written before the listener saw it
    bool has_range = false;
    std::string smallest, largest;  // user keys, with has_range
    int output_of_job = -1;         // written by a job still under way
  };
  // A flush or compaction under way: its inputs count at output_level, its
  // outputs not yet (they are not the whole of it). A flush has no inputs
  // and counts as one L0 file as large as the last flush.
  struct Job {
    int output_level = 0;
    std::set<uint64_t> inputs;
    bool is_flush = false;
    bool db_callbacks = false;  // begun with OnCompactionBegin: ends there too
  };
  struct ColumnFamily {
    std::map<uint64_t, File> files;  // by file number
    std::map<int, Job> jobs;         // by job id
    double last_flush_entries = 0;
    // The live files as the last flushes found them (kSamples): L0 fills
    // and drains every few flushes, and so does the memory the live files
    // hold; plans follow the average, not the moment.
    struct Sample {
      LevelLoad l0;
      FilterMemory memory;
    };
    std::deque<Sample> samples;
  };
  struct Db {
    std::string name;
    std::string session;  // DB::GetDbSessionId: a new one at every open
    std::weak_ptr<ROCKSDB_NAMESPACE::Logger> info_log;
    const ROCKSDB_NAMESPACE::Logger* info_log_key = nullptr;
    // Expires when this DB session is closed (if the application did not
    // give the DB an SstFileManager that outlives it); `tracked`: the DB
    // has one.
    std::weak_ptr<ROCKSDB_NAMESPACE::SstFileManager> alive;
    bool tracked = false;
    std::map<std::string, ColumnFamily> column_families;  // by name
  };

  // Re-reads every live file of `db` (mu_ held), then publishes each
  // column family.
  Db& Refresh(ROCKSDB_NAMESPACE::DB* db);
  // Forgets the flushes that begin and never complete (a mempurge, a flush
  // that found no memtable or failed): of the flush jobs it knows, keeps
  // only as many of the newest as the DB says are running. One that ended
  // so while an older flush still ran takes that one's place until the
  // next callback: the older one's file then misses from the shape's
  // flushes under way for a while, never from the live files.
  // `ending`: flushes RocksDB still counts as running that have ended here
  // (OnFlushCompleted runs before RocksDB counts its flush as ended).
  static void DropEndedFlushes(ROCKSDB_NAMESPACE::DB* db, Db* state, uint64_t ending = 0);
  void Publish(const Db& db, const std::string& cf_name, const ColumnFamily& cf) const;
  // The column family `cf_name` of the only DB that has one (callbacks
  // without a DB name); null if none or several.
  std::pair<Db*, ColumnFamily*> FindByColumnFamily(const std::string& cf_name);

  std::mutex mu_;
  std::map<std::string, Db> dbs_;  // by DB name
};

}  // namespace sstfilter
