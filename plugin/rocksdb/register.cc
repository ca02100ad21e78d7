// Registration of every sstfilter policy with RocksDB's object registry.
//
// - In a RocksDB plugin build, RocksDB calls RegisterSstFilter (named by
//   sstfilter_FUNC in sstfilter.mk) through ObjectRegistry::Default().
// - In the standalone libsstfilter.so (SSTFILTER_STANDALONE), a static
//   initializer registers into ObjectLibrary::Default() when the library is
//   loaded, which is what makes `LD_PRELOAD=libsstfilter.so db_bench` work.
// - Programs call sstfilter::RegisterAll() (include/sstfilter/sstfilter.h),
//   which references the library so no linker drops it; idempotent beside
//   the other two.
#include "plugin/rocksdb/register.h"

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include <rocksdb/convenience.h>
#include <rocksdb/utilities/object_registry.h>
#include <rocksdb/version.h>

#include "include/sstfilter/sstfilter.h"
#include "plugin/rocksdb/level_aware_policy.h"
#include "plugin/rocksdb/policy.h"
#include "plugin/rocksdb/shape_listener.h"

namespace sstfilter {
namespace {

// One policy per filter kind (scripts/build-in-rocksdb.sh reads this list),
// plus the policies that choose a kind per file (kLevelAwareId).
constexpr FilterKind kRegisteredKinds[] = {FilterKind::kStandardBloom,
                                           FilterKind::kBlockedBloom,
                                           FilterKind::kRibbon};

// Registers `id` and "<id>:<anything>"; `make` creates the policy. The
// factory parses <anything> itself, so a bad number gets a clear message
// (through a poisoned policy, see policy.h) instead of being dropped.
template <class Make>
void AddPolicyFactory(ROCKSDB_NAMESPACE::ObjectLibrary& library, const std::string& id,
                      Make make) {
  using ROCKSDB_NAMESPACE::FilterPolicy;
  library.AddFactory<const FilterPolicy>(
      ROCKSDB_NAMESPACE::ObjectLibrary::PatternEntry(id, true).AddSeparator(":", false),
      [id, make](const std::string& uri, std::unique_ptr<const FilterPolicy>* guard,
                 std::string*) -> const FilterPolicy* {
        std::unique_ptr<SstFilterPolicy> policy = make();
        if (uri.size() > id.size()) policy->SetBitsPerKey(uri.substr(id.size() + 1));
        guard->reset(policy.release());
        return guard->get();
      });
}

}  // namespace

int RegisterPolicies(ROCKSDB_NAMESPACE::ObjectLibrary& library) {
  using ROCKSDB_NAMESPACE::FilterPolicy;
  using ROCKSDB_NAMESPACE::ObjectLibrary;
  int count = 0;
  for (FilterKind kind : kRegisteredKinds) {
    AddPolicyFactory(library, PolicyId(kind),
                     [kind] { return std::make_unique<SstFilterPolicy>(kind); });
    ++count;
  }
  AddPolicyFactory(library, kLevelAwareId, [] { return std::make_unique<LevelAwarePolicy>(); });
  ++count;
  // LevelAware's eyes on the tree: `listeners={sstfilter.LsmShape}` in DBOptions.
  library.AddFactory<ROCKSDB_NAMESPACE::EventListener>(
      kShapeListenerId,
      [](const std::string&, std::unique_ptr<ROCKSDB_NAMESPACE::EventListener>* guard,
         std::string*) {
        guard->reset(new ShapeListener());
        return guard->get();
      });
  // Any other "sstfilter.*" id is a typo or a kind this build lacks. RocksDB
  // would treat it as "unsupported" and, by default, run with no filter;
  // registered last so it only sees ids no real policy matched.
  library.AddFactory<const FilterPolicy>(
      ObjectLibrary::PatternEntry("sstfilter", false).AddSeparator(".", true),
      [](const std::string& uri, std::unique_ptr<const FilterPolicy>* guard,
         std::string*) -> const FilterPolicy* {
        std::string known;
        for (const auto& id : PolicyIds()) known += (known.empty() ? "" : ", ") + id;
        auto policy = std::make_unique<SstFilterPolicy>(FilterKind::kAlwaysTrue);
        policy->Poison("unknown sstfilter policy '" + uri + "' (this build has: " +
                       known + "; a number follows ':')");
        guard->reset(policy.release());
        return guard->get();
      });
  return count;
}

const std::vector<std::string>& PolicyIds() {
  static const auto* ids = [] {
    auto* v = new std::vector<std::string>;
    for (FilterKind kind : kRegisteredKinds) v->push_back(PolicyId(kind));
    v->push_back(kLevelAwareId);
    return v;
  }();
  return *ids;
}

#define SSTF_STR2(x) #x
#define SSTF_STR(x) SSTF_STR2(x)
const char* RocksDBVersionBuiltAgainst() {
  return SSTF_STR(ROCKSDB_MAJOR) "." SSTF_STR(ROCKSDB_MINOR) "." SSTF_STR(ROCKSDB_PATCH);
}

namespace {

// Empty if the RocksDB running this process is the one the adapter was
// compiled against; else why not. Inside a RocksDB tree they are one build.
std::string VersionMismatch() {
  const std::string running = ROCKSDB_NAMESPACE::GetRocksVersionAsString(true);
  if (running == RocksDBVersionBuiltAgainst()) return "";
  return "sstfilter was built against RocksDB " + std::string(RocksDBVersionBuiltAgainst()) +
         " but this process runs RocksDB " + running +
         "; rebuild sstfilter against it (the filter interfaces differ between versions)";
}

bool AlreadyRegistered(const ROCKSDB_NAMESPACE::ObjectLibrary& library) {
  return library.FindFactory<const ROCKSDB_NAMESPACE::FilterPolicy>(PolicyIds().front()) !=
         nullptr;
}

}  // namespace

ROCKSDB_NAMESPACE::Status RegisterAll(ROCKSDB_NAMESPACE::ObjectLibrary& library) {
  if (const std::string why = VersionMismatch(); !why.empty()) {
    return ROCKSDB_NAMESPACE::Status::NotSupported(why);
  }
  // One lock for every library: two threads must not both see "not yet".
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (!AlreadyRegistered(library)) RegisterPolicies(library);
  return ROCKSDB_NAMESPACE::Status::OK();
}

ROCKSDB_NAMESPACE::Status RegisterAll() {
  return RegisterAll(*ROCKSDB_NAMESPACE::ObjectLibrary::Default());
}

ROCKSDB_NAMESPACE::Status NewFilterPolicy(
    const std::string& id, std::shared_ptr<const ROCKSDB_NAMESPACE::FilterPolicy>* policy) {
  policy->reset();
  ROCKSDB_NAMESPACE::Status s = RegisterAll();
  if (!s.ok()) return s;
  ROCKSDB_NAMESPACE::ConfigOptions config_options;
  config_options.ignore_unsupported_options = false;
  s = ROCKSDB_NAMESPACE::FilterPolicy::CreateFromString(config_options, id, policy);
  if (s.ok() && *policy == nullptr) {
    s = ROCKSDB_NAMESPACE::Status::InvalidArgument("no filter policy for '" + id + "'");
  }
  if (!s.ok()) policy->reset();
  return s;
}

#ifdef SSTFILTER_STANDALONE
namespace {
// At load, as for LD_PRELOAD; a version mismatch registers nothing, so
// every sstfilter id then fails loudly instead of misbehaving.
[[maybe_unused]] const bool kRegisteredAtLoad = [] {
  const ROCKSDB_NAMESPACE::Status s = RegisterAll();
  if (!s.ok()) std::fprintf(stderr, "sstfilter: %s\n", s.ToString().c_str());
  return s.ok();
}();
}  // namespace
#endif

}  // namespace sstfilter

extern "C" int RegisterSstFilter(ROCKSDB_NAMESPACE::ObjectLibrary& library,
                                 const std::string& /*arg*/) {
  return sstfilter::RegisterPolicies(library);
}
