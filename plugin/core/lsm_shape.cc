#include "plugin/core/lsm_shape.h"

#include <algorithm>
#include <cstdint>
#include <map>

namespace sstfilter {
namespace {

// The position of `key` between `lo` and `hi` (lo <= hi) in [0, 1], from
// the 8 bytes after their common prefix read as a number: in base 10 where
// all three bytes are ASCII digits (decimal keys), else base 256.
double Between(const std::string& lo, const std::string& hi, const std::string& key) {
  size_t common = 0;
  while (common < lo.size() && common < hi.size() && lo[common] == hi[common]) ++common;
  auto byte = [common](const std::string& s, size_t i) {
    return common + i < s.size() ? static_cast<unsigned char>(s[common + i]) : 0u;
  };
  auto is_digit = [](unsigned c) { return c >= '0' && c <= '9'; };
  double a = 0, b = 0, k = 0;
  for (size_t i = 0; i < 8; ++i) {
    const unsigned x = byte(lo, i), y = byte(hi, i), z = byte(key, i);
    const bool decimal = is_digit(x) && is_digit(y) && is_digit(z);
    const double radix = decimal ? 10 : 256;
    const unsigned offset = decimal ? '0' : 0;
    a = a * radix + (x - offset);
    b = b * radix + (y - offset);
    k = k * radix + (z - offset);
  }
  if (!(b > a)) return 0.5;
  return std::clamp((k - a) / (b - a), 0.0, 1.0);
}

// Fraction of the reference level's keys at or below `key`.
class KeyCdf {
 public:
  explicit KeyCdf(std::vector<const ShapeFile*> files) : files_(std::move(files)) {
    std::sort(files_.begin(), files_.end(),
              [](const ShapeFile* a, const ShapeFile* b) { return a->smallest < b->smallest; });
    for (const ShapeFile* f : files_) {
      before_.push_back(total_);
      total_ += f->entries;
    }
  }
  bool empty() const { return !(total_ > 0); }

  double At(const std::string& key) const {
    // The first file whose largest key is >= key.
    const auto it = std::lower_bound(
        files_.begin(), files_.end(), key,
        [](const ShapeFile* f, const std::string& k) { return f->largest < k; });
    if (it == files_.end()) return 1.0;
    const size_t i = static_cast<size_t>(it - files_.begin());
    const ShapeFile& f = **it;
    const double inside = key < f.smallest ? 0.0 : Between(f.smallest, f.largest, key);
    return (before_[i] + inside * f.entries) / total_;
  }

 private:
  std::vector<const ShapeFile*> files_;
  std::vector<double> before_;
  double total_ = 0;
};

}  // namespace

LsmShape ShapeOfFiles(const std::vector<ShapeFile>& files) {
  std::map<int, double> keys_by_level;
  for (const ShapeFile& f : files) {
    if (f.level >= 0) keys_by_level[f.level] += std::max(f.entries, 0.0);
  }
  if (keys_by_level.empty()) return {};
  // The reference: the level with the most keys (ties: the deeper), its
  // files with a range; L0 files overlap, so a deeper level when one has keys.
  int reference = -1;
  for (const auto& [level, keys] : keys_by_level) {
    if (level > 0 && (reference < 0 || keys >= keys_by_level[reference])) reference = level;
  }
  std::vector<const ShapeFile*> reference_files;
  for (const ShapeFile& f : files) {
    if (f.level == reference && f.has_range && f.entries > 0) reference_files.push_back(&f);
  }
  const KeyCdf cdf(reference_files);
  LsmShape shape(static_cast<size_t>(keys_by_level.rbegin()->first) + 1);
  for (const ShapeFile& f : files) {
    if (f.level < 0) continue;
    double share = 1.0;
    if (f.has_range && !cdf.empty()) {
      share = f.level == reference && reference_files.size() > 0
                  ? f.entries / keys_by_level[reference]
                  : cdf.At(f.largest) - cdf.At(f.smallest);
    }
    LevelLoad& load = shape[static_cast<size_t>(f.level)];
    load.keys += std::max(f.entries, 0.0);
    load.checks += share;
  }
  for (size_t level = 1; level < shape.size(); ++level) {
    shape[level].checks = std::min(shape[level].checks, 1.0);
  }
  return shape;
}

}  // namespace sstfilter
