// Helpers shared by the fuzz targets: a bounds-safe reader over the fuzz
// input, and the list of filter configurations the builder can build.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "plugin/core/filter_config.h"
#include "plugin/core/kind_ops.h"
#include "tests/test_util.h"

namespace sstfilter {
namespace fuzz {

// Consumes the fuzz input front to back; past the end it yields zeros, so a
// short input is still a valid (small) test case.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16() { return static_cast<uint16_t>(Byte() | (Byte() << 8)); }
  uint64_t U64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(Byte()) << (8 * i);
    return v;
  }
  size_t Remaining() const { return size_ - std::min(pos_, size_); }
  const uint8_t* Rest() const { return data_ + std::min(pos_, size_); }
  void Skip(size_t n) { pos_ = std::min(size_, pos_ + n); }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Every configuration the typed tests use (tests/test_util.h AllConfigs(),
// which carries each kind's own settings), plus a default configuration of
// any kind the core can build that AllConfigs() does not mention yet: a new
// kind is fuzzed as soon as OpsFor() knows it.
inline const std::vector<FilterConfig>& BuildableConfigs() {
  static const auto* configs = [] {
    auto* v = new std::vector<FilterConfig>(test::AllConfigs());
    for (int k = 0; k < 256; ++k) {
      const auto kind = static_cast<FilterKind>(k);
      if (OpsFor(kind) == nullptr) continue;
      const bool listed = std::any_of(v->begin(), v->end(),
                                      [&](const FilterConfig& c) { return c.kind == kind; });
      if (!listed) {
        FilterConfig c;
        c.kind = kind;
        v->push_back(c);
      }
    }
    return v;
  }();
  return *configs;
}

}  // namespace fuzz
}  // namespace sstfilter
