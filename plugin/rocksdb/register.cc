// Registration of every sstfilter policy with RocksDB's object registry.
//
// - In a RocksDB plugin build, RocksDB calls RegisterSstFilter (named by
//   sstfilter_FUNC in sstfilter.mk) through ObjectRegistry::Default().
// - In the standalone libsstfilter.so (SSTFILTER_STANDALONE), a static
//   initializer registers into ObjectLibrary::Default() when the library is
//   loaded, which is what makes `LD_PRELOAD=libsstfilter.so db_bench` work.
#include "plugin/rocksdb/register.h"

#include <memory>
#include <string>

#include <rocksdb/utilities/object_registry.h>

#include "plugin/rocksdb/level_aware_policy.h"
#include "plugin/rocksdb/policy.h"

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

#ifdef SSTFILTER_STANDALONE
namespace {
[[maybe_unused]] const int kRegisteredAtLoad =
    RegisterPolicies(*ROCKSDB_NAMESPACE::ObjectLibrary::Default());
}  // namespace
#endif

}  // namespace sstfilter

extern "C" int RegisterSstFilter(ROCKSDB_NAMESPACE::ObjectLibrary& library,
                                 const std::string& /*arg*/) {
  return sstfilter::RegisterPolicies(library);
}
