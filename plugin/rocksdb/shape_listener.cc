#include "plugin/rocksdb/shape_listener.h"

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/metadata.h>

#include "include/sstfilter/sstfilter.h"
#include "plugin/core/lsm_shape.h"

namespace sstfilter {

using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Logger;

namespace {

// The published shapes, by (info log, column family), and there by DB
// name: one DB per info log, unless the application shares its own Logger.
// The weak pointers tell a live DB's info log from a dead one's that a new
// DB's info log happens to reuse the address of, and an open DB from a
// closed one under a shared Logger.
struct Publisher {
  std::weak_ptr<ROCKSDB_NAMESPACE::SstFileManager> alive;
  bool tracked = false;
  std::shared_ptr<const LiveShape> shape;

  bool Closed() const { return tracked && alive.expired(); }
};
struct Published {
  std::weak_ptr<Logger> info_log;
  std::map<std::string, Publisher> by_db;
};

std::mutex& RegistryMutex() {
  static auto* mu = new std::mutex;
  return *mu;
}

std::map<std::pair<const Logger*, std::string>, Published>& Registry() {
  static auto* registry = new std::map<std::pair<const Logger*, std::string>, Published>;
  return *registry;
}

// Flushes whose L0 and memory the plans average over: a few fill-and-drain
// cycles of L0 at RocksDB's default level0_file_num_compaction_trigger of 4.
constexpr size_t kSamples = 8;

// "…/000123.sst" -> 123; 0 if the name has no number.
uint64_t FileNumber(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return std::strtoull(name.c_str(), nullptr, 10);
}

}  // namespace

void FilterMemory::Add(double entries, double filter_bits) {
  keys += entries;
  if (filter_bits >= 0) {
    known_keys += entries;
    known_filter_bits += filter_bits;
  }
}

void FilterMemory::Add(const FilterMemory& other) {
  keys += other.keys;
  known_keys += other.known_keys;
  known_filter_bits += other.known_filter_bits;
}

// Every ShapeListener alive, so that ObserveLsmShape can tell one from a
// listener of another type that reports the same Name() without RTTI
// (RocksDB's own release build compiles the plugin with -fno-rtti).
// Never destroyed, as the registry: a listener held by a static object
// made before the first listener is destroyed after any function-local
// static would be.
std::mutex& ListenersMutex() {
  static auto* mu = new std::mutex;
  return *mu;
}
// By the EventListener pointer a DB's options hold.
std::map<const ROCKSDB_NAMESPACE::EventListener*, ShapeListener*>& Listeners() {
  static auto* listeners = new std::map<const ROCKSDB_NAMESPACE::EventListener*, ShapeListener*>;
  return *listeners;
}

ShapeListener::ShapeListener() {
  std::lock_guard<std::mutex> lock(ListenersMutex());
  Listeners()[this] = this;
}

ShapeListener::~ShapeListener() {
  std::lock_guard<std::mutex> lock(ListenersMutex());
  Listeners().erase(this);
}

ROCKSDB_NAMESPACE::Status ObserveLsmShape(DB* db) {
  if (db == nullptr) return ROCKSDB_NAMESPACE::Status::InvalidArgument("ObserveLsmShape: no DB");
  const ROCKSDB_NAMESPACE::DBOptions options = db->GetDBOptions();  // holds the listeners
  for (const auto& listener : options.listeners) {
    ShapeListener* shape = nullptr;
    {
      std::lock_guard<std::mutex> lock(ListenersMutex());
      const auto it = Listeners().find(listener.get());
      if (it != Listeners().end()) shape = it->second;
    }
    if (shape != nullptr) {
      shape->Observe(db);
      return ROCKSDB_NAMESPACE::Status::OK();
    }
  }
  return ROCKSDB_NAMESPACE::Status::NotFound(
      "ObserveLsmShape: the DB has no sstfilter.LsmShape listener (DBOptions "
      "listeners={sstfilter.LsmShape})");
}

std::shared_ptr<const LiveShape> FindLiveShape(const Logger* info_log, const std::string& cf_name,
                                               bool* shared) {
  if (shared != nullptr) *shared = false;
  if (info_log == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto& registry = Registry();
  const auto it = registry.find({info_log, cf_name});
  if (it == registry.end()) return nullptr;
  auto& by_db = it->second.by_db;
  for (auto db = by_db.begin(); db != by_db.end();) {
    db = db->second.Closed() ? by_db.erase(db) : std::next(db);
  }
  if (it->second.info_log.expired() || by_db.empty()) {
    registry.erase(it);
    return nullptr;
  }
  if (by_db.size() > 1) {
    if (shared != nullptr) *shared = true;
    return nullptr;
  }
  return by_db.begin()->second.shape;
}

ShapeListener::Db& ShapeListener::Refresh(DB* db) {
  Db& state = dbs_[db->GetName()];
  const ROCKSDB_NAMESPACE::DBOptions options = db->GetDBOptions();
  std::string session;
  if (!db->GetDbSessionId(session).ok()) session.clear();
  if (state.info_log_key != options.info_log.get() || state.info_log.expired() ||
      state.session != session) {
    state = Db();  // a new DB under the same name: nothing carries over
    state.name = db->GetName();
    state.session = session;
    state.info_log = options.info_log;
    state.info_log_key = options.info_log.get();
    state.alive = options.sst_file_manager;
    state.tracked = options.sst_file_manager != nullptr;
  }
  std::vector<ROCKSDB_NAMESPACE::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  std::map<std::string, std::set<uint64_t>> seen;
  for (const auto& meta : live) {
    ColumnFamily& cf = state.column_families[meta.column_family_name];
    File& f = cf.files[meta.file_number];
    f.level = meta.level;
    f.entries = static_cast<double>(meta.num_entries);
    f.has_range = true;
    f.smallest = meta.smallestkey;
    f.largest = meta.largestkey;
    f.output_of_job = -1;  // installed
    seen[meta.column_family_name].insert(meta.file_number);
  }
  for (auto& [name, cf] : state.column_families) {
    const std::set<uint64_t>& live_numbers = seen[name];
    for (auto it = cf.files.begin(); it != cf.files.end();) {
      const bool running_output = cf.jobs.count(it->second.output_of_job) > 0;
      it = live_numbers.count(it->first) || running_output ? std::next(it) : cf.files.erase(it);
    }
  }
  return state;
}

void ShapeListener::Publish(const Db& db, const std::string& cf_name,
                            const ColumnFamily& cf) const {
  if (db.info_log_key == nullptr) return;  // no DB callback yet: the info log is unknown
  std::map<uint64_t, int> moved;  // inputs of jobs under way -> their output level
  for (const auto& [id, job] : cf.jobs) {
    for (uint64_t number : job.inputs) moved[number] = job.output_level;
  }
  auto shape = std::make_shared<LiveShape>();
  std::vector<ShapeFile> files;
  for (const auto& [number, f] : cf.files) {
    if (f.output_of_job >= 0) continue;  // part of a job's output: counted as its inputs
    const auto it = moved.find(number);
    files.push_back(ShapeFile{it == moved.end() ? f.level : it->second, f.entries, f.has_range,
                              f.smallest, f.largest});
    shape->live.Add(f.entries, f.filter_bits);
    if (f.level == 0) shape->l0_files.Add(f.entries, f.filter_bits);
  }
  for (const auto& [id, job] : cf.jobs) {
    if (job.is_flush && cf.last_flush_entries > 0) {
      files.push_back(ShapeFile{0, cf.last_flush_entries, false, "", ""});
    }
  }
  shape->levels = ShapeOfFiles(files);
  if (!shape->levels.empty()) shape->l0_keys_now = shape->levels[0].keys;
  if (!cf.samples.empty()) {
    // Plan for L0 as large as it has been on average: files written while
    // it is small then leave room for the L0 files to come, and those
    // written while it is large do not take the room of the levels below.
    LevelLoad mean;
    double fullest = 0;
    for (const ColumnFamily::Sample& sample : cf.samples) {
      fullest = std::max(fullest, sample.l0.keys);
      mean.keys += sample.l0.keys / static_cast<double>(cf.samples.size());
      mean.checks += sample.l0.checks / static_cast<double>(cf.samples.size());
      shape->sampled.Add(sample.memory);
    }
    // The flush that found L0 fullest, its own file, and one flush more.
    shape->l0_peak_keys = fullest + 2 * cf.last_flush_entries;
    if (shape->levels.empty()) shape->levels.resize(1);
    shape->levels[0] = mean;
  }
  for (const auto& [id, job] : cf.jobs) {
    if (job.is_flush) {
      shape->flushes.inputs.Add(cf.last_flush_entries, -1);
      shape->flushes.adds_keys = true;
      shape->flushes.files += 1;
      continue;
    }
    const size_t level = static_cast<size_t>(std::max(job.output_level, 0));
    if (shape->pending.size() <= level) shape->pending.resize(level + 1);
    PendingWrite& w = shape->pending[level];
    for (uint64_t number : job.inputs) {
      const auto it = cf.files.find(number);
      if (it == cf.files.end()) continue;
      w.inputs.Add(it->second.entries, it->second.filter_bits);
      w.files += 1;
    }
  }
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto& registry = Registry();
  for (auto it = registry.begin(); it != registry.end();) {  // DBs closed since
    it = it->second.info_log.expired() ? registry.erase(it) : std::next(it);
  }
  Published& published = registry[{db.info_log_key, cf_name}];
  published.info_log = db.info_log;
  published.by_db[db.name] = Publisher{db.alive, db.tracked, std::move(shape)};
}

void ShapeListener::DropEndedFlushes(DB* db, Db* state, uint64_t ending) {
  uint64_t running = 0;
  if (!db->GetIntProperty(DB::Properties::kNumRunningFlushes, &running)) return;
  running -= std::min(running, ending);
  std::set<int> flushes;  // job ids; an atomic flush has one for several column families
  for (const auto& [name, cf] : state->column_families) {
    for (const auto& [id, job] : cf.jobs) {
      if (job.is_flush) flushes.insert(id);
    }
  }
  // Job ids grow: the oldest are the ones that ended unseen.
  while (flushes.size() > running) {
    for (auto& [name, cf] : state->column_families) cf.jobs.erase(*flushes.begin());
    flushes.erase(flushes.begin());
  }
}

std::pair<ShapeListener::Db*, ShapeListener::ColumnFamily*> ShapeListener::FindByColumnFamily(
    const std::string& cf_name) {
  std::pair<Db*, ColumnFamily*> found{nullptr, nullptr};
  for (auto& [name, db] : dbs_) {
    const auto it = db.column_families.find(cf_name);
    if (it == db.column_families.end()) continue;
    if (found.first != nullptr) return {nullptr, nullptr};  // ambiguous
    found = {&db, &it->second};
  }
  return found;
}

void ShapeListener::Observe(DB* db) {
  std::lock_guard<std::mutex> lock(mu_);
  Db& state = Refresh(db);
  for (const auto& [name, cf] : state.column_families) Publish(state, name, cf);
}

void ShapeListener::OnFlushBegin(DB* db, const ROCKSDB_NAMESPACE::FlushJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  Db& state = Refresh(db);
  ColumnFamily& cf = state.column_families[info.cf_name];
  std::vector<ShapeFile> files;  // as lookups saw it while this memtable filled
  ColumnFamily::Sample sample;
  for (const auto& [number, f] : cf.files) {
    if (f.output_of_job >= 0) continue;
    files.push_back(ShapeFile{f.level, f.entries, f.has_range, f.smallest, f.largest});
    sample.memory.Add(f.entries, f.filter_bits);
  }
  const LsmShape now = ShapeOfFiles(files);
  sample.l0 = now.empty() ? LevelLoad{} : now[0];
  cf.samples.push_back(sample);
  if (cf.samples.size() > kSamples) cf.samples.pop_front();
  Job& job = cf.jobs[info.job_id];
  job.is_flush = true;
  job.db_callbacks = true;
  DropEndedFlushes(db, &state);
  for (const auto& [name, c] : state.column_families) Publish(state, name, c);
}

void ShapeListener::OnFlushCompleted(DB* db, const ROCKSDB_NAMESPACE::FlushJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  Db& state = dbs_[db->GetName()];
  ColumnFamily& cf = state.column_families[info.cf_name];
  cf.jobs.erase(info.job_id);
  if (info.table_properties.num_entries > 0) {
    cf.last_flush_entries = static_cast<double>(info.table_properties.num_entries);
  }
  Refresh(db);
  DropEndedFlushes(db, &state, /*ending=*/1);
  for (const auto& [name, c] : state.column_families) Publish(state, name, c);
}

void ShapeListener::OnCompactionBegin(DB* db, const ROCKSDB_NAMESPACE::CompactionJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  Db& state = Refresh(db);
  Job& job = state.column_families[info.cf_name].jobs[info.job_id];
  job.output_level = info.output_level;
  job.db_callbacks = true;
  for (const auto& input : info.input_file_infos) job.inputs.insert(input.file_number);
  DropEndedFlushes(db, &state);
  for (const auto& [name, c] : state.column_families) Publish(state, name, c);
}

void ShapeListener::OnCompactionCompleted(DB* db,
                                          const ROCKSDB_NAMESPACE::CompactionJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  Db& state = dbs_[db->GetName()];
  state.column_families[info.cf_name].jobs.erase(info.job_id);
  Refresh(db);
  DropEndedFlushes(db, &state);
  for (const auto& [name, c] : state.column_families) Publish(state, name, c);
}

void ShapeListener::OnExternalFileIngested(DB* db,
                                           const ROCKSDB_NAMESPACE::ExternalFileIngestionInfo&) {
  std::lock_guard<std::mutex> lock(mu_);
  Db& state = Refresh(db);
  for (const auto& [name, c] : state.column_families) Publish(state, name, c);
}

void ShapeListener::OnSubcompactionBegin(const ROCKSDB_NAMESPACE::SubcompactionJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [db, cf] = FindByColumnFamily(info.cf_name);
  if (cf == nullptr || cf->jobs.count(info.job_id)) return;  // unknown, or seen at its begin
  // DB::CompactFiles: no input list. Its L0 inputs are, as in every leveled
  // compaction out of L0 here, the L0 files; a deeper input is a small part
  // of its level and stays counted there.
  Job& job = cf->jobs[info.job_id];
  job.output_level = info.output_level;
  if (info.base_input_level == 0) {
    for (const auto& [number, f] : cf->files) {
      if (f.level == 0 && f.output_of_job < 0) job.inputs.insert(number);
    }
  }
  Publish(*db, info.cf_name, *cf);
}

void ShapeListener::OnSubcompactionCompleted(const ROCKSDB_NAMESPACE::SubcompactionJobInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [db, cf] = FindByColumnFamily(info.cf_name);
  if (cf == nullptr) return;
  const auto it = cf->jobs.find(info.job_id);
  if (it == cf->jobs.end() || it->second.db_callbacks) return;
  // The outputs are installed and the inputs about to be deleted
  // (OnTableFileDeleted): from now on each counts where it lies.
  for (auto& [number, f] : cf->files) {
    if (f.output_of_job == info.job_id) f.output_of_job = -1;
    if (it->second.inputs.count(number)) f.level = it->second.output_level;
  }
  cf->jobs.erase(it);
  Publish(*db, info.cf_name, *cf);
}

void ShapeListener::OnTableFileCreated(const ROCKSDB_NAMESPACE::TableFileCreationInfo& info) {
  if (!info.status.ok()) return;
  std::lock_guard<std::mutex> lock(mu_);
  Db& state = dbs_[info.db_name];
  ColumnFamily& cf = state.column_families[info.cf_name];
  const auto job = cf.jobs.find(info.job_id);
  File& f = cf.files[FileNumber(info.file_path)];
  f.entries = static_cast<double>(info.table_properties.num_entries);
  f.filter_bits = 8.0 * static_cast<double>(info.table_properties.filter_size);
  if (job != cf.jobs.end()) {
    f.level = job->second.output_level;
    f.output_of_job = info.job_id;
  } else {
    f.level = info.reason == ROCKSDB_NAMESPACE::TableFileCreationReason::kFlush ? 0 : f.level;
  }
  Publish(state, info.cf_name, cf);
}

void ShapeListener::OnTableFileDeleted(const ROCKSDB_NAMESPACE::TableFileDeletionInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto db = dbs_.find(info.db_name);
  if (db == dbs_.end()) return;
  const uint64_t number = FileNumber(info.file_path);
  for (auto& [name, cf] : db->second.column_families) {
    if (cf.files.erase(number)) Publish(db->second, name, cf);
  }
}

}  // namespace sstfilter
