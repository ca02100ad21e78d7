// Shared helpers for the sstfilter tests: deterministic keys and the
// statistical bounds used by every FP-rate test.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "plugin/core/filter_config.h"
#include "plugin/core/filter_reader.h"
#include "plugin/core/format.h"

namespace sstfilter {
namespace test {

// A block parsed once for many queries. FilterMayMatch parses (and in
// version 3 checks every byte of) the block on each call: fine for one
// query, quadratic in a loop over a large filter's keys.
class BlockReader {
 public:
  BlockReader(const char* data, size_t len) {
    VisitFilter(data, len, [&](const auto& r) { query_ = [r](uint64_t h) { return r.MayMatch(h); }; });
  }
  template <class Bytes>
  explicit BlockReader(const Bytes& block) : BlockReader(block.data(), block.size()) {}
  bool MayMatch(uint64_t key_hash) const { return query_(key_hash); }

 private:
  std::function<bool(uint64_t)> query_;
};

// Every filter kind the core can build, at a typical budget. Typed tests run
// over this list, so a new kind is covered by adding it here.
inline std::vector<FilterConfig> AllConfigs() {
  std::vector<FilterConfig> configs;
  for (double bpk : {6.0, 10.0, 16.0}) {
    configs.push_back(FilterConfig{FilterKind::kStandardBloom, bpk});
  }
  for (double bpk : {6.0, 10.0, 20.0}) {
    configs.push_back(FilterConfig{FilterKind::kBlockedBloom, bpk, 1});
  }
  configs.push_back(FilterConfig{FilterKind::kBlockedBloom, 20.0, 2});
  // Ribbon: integer and fractional budgets (6.5 and 7.3 mix column counts).
  for (double bpk : {4.0, 6.5, 7.3, 10.0, 16.0}) {
    configs.push_back(FilterConfig{FilterKind::kRibbon, bpk});
  }
  return configs;
}

inline std::string ConfigName(const FilterConfig& c) {
  std::string bpk = std::to_string(c.bits_per_key);
  bpk = bpk.substr(0, bpk.find('.'));
  // Fractional budgets get their tenths ("6p5"), so 6 and 6.5 stay distinct.
  const int tenths = static_cast<int>(std::lround(c.bits_per_key * 10)) % 10;
  if (tenths != 0) bpk += "p" + std::to_string(tenths);
  return std::string(KindName(c.kind)) + "_" + bpk +
         (c.lines_per_key > 1 ? "_lines" + std::to_string(c.lines_per_key) : "");
}

constexpr size_t kKeyBytes = 16;  // every Key's length

// Key i of a family: 8 bytes of family tag then the index little-endian,
// so keys of different families never collide and keys differ only in
// their last bytes.
inline std::string Key(uint64_t i, uint64_t family = 0) {
  std::string k(kKeyBytes, '\0');
  for (int b = 0; b < 8; ++b) {
    k[b] = static_cast<char>(family >> (8 * b));
    k[8 + b] = static_cast<char>(i >> (8 * b));
  }
  return k;
}

// Two-sided acceptance interval for a Poisson count with mean `expected`,
// normal approximation with continuity: expected +- (z sqrt(expected) + 1).
// z = 5 gives a false-alarm probability of 5.7e-7 per check, so the suite
// as a whole (well under 100 checks) fails by chance less than once in
// 10^4 runs. Valid when expected >= ~50, which the tests arrange.
struct PoissonInterval {
  double lo, hi;
};
inline PoissonInterval PoissonBounds(double expected, double z = 5.0) {
  const double half = z * std::sqrt(expected) + 1.0;
  return {expected - half, expected + half};
}

}  // namespace test
}  // namespace sstfilter
