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

// Entries of one sorted run (a deeper level's files, or one L0 file) at or
// below a key.
class RunCdf {
 public:
  explicit RunCdf(std::vector<const ShapeFile*> files) : files_(std::move(files)) {
    std::sort(files_.begin(), files_.end(),
              [](const ShapeFile* a, const ShapeFile* b) { return a->smallest < b->smallest; });
    for (const ShapeFile* f : files_) {
      before_.push_back(total_);
      total_ += f->entries;
    }
  }
  double total() const { return total_; }

  double At(const std::string& key) const {
    // The first file whose largest key is >= key.
    const auto it = std::lower_bound(
        files_.begin(), files_.end(), key,
        [](const ShapeFile* f, const std::string& k) { return f->largest < k; });
    if (it == files_.end()) return total_;
    const size_t i = static_cast<size_t>(it - files_.begin());
    const ShapeFile& f = **it;
    const double inside = key < f.smallest ? 0.0 : Between(f.smallest, f.largest, key);
    return before_[i] + inside * f.entries;
  }

 private:
  std::vector<const ShapeFile*> files_;
  std::vector<double> before_;
  double total_ = 0;
};

bool HasRange(const ShapeFile& f) { return f.has_range && !(f.largest < f.smallest); }

// Fraction of all stored keys with a known range at or below a key: every
// level's sorted runs together, so that keys only L0 holds (the newest,
// when keys grow) count as much as the keys below them.
class KeyCdf {
 public:
  explicit KeyCdf(const std::vector<ShapeFile>& files) {
    std::map<int, std::vector<const ShapeFile*>> levels;
    for (const ShapeFile& f : files) {
      if (f.level < 0 || !HasRange(f) || !(f.entries > 0)) continue;
      levels[f.level].push_back(&f);
    }
    // A deeper level's files do not overlap, but the inputs of a job under
    // way are counted at its output level, beside files their ranges
    // overlap; L0's files overlap anyway. Each level is cut into runs that
    // do not overlap, each file into the first run it fits after.
    for (auto& [level, level_files] : levels) {
      std::sort(level_files.begin(), level_files.end(),
                [](const ShapeFile* a, const ShapeFile* b) { return a->smallest < b->smallest; });
      std::vector<std::vector<const ShapeFile*>> runs;
      for (const ShapeFile* f : level_files) {
        auto run = std::find_if(runs.begin(), runs.end(), [f](const auto& r) {
          return r.back()->largest < f->smallest;
        });
        if (run == runs.end()) {
          runs.push_back({f});
        } else {
          run->push_back(f);
        }
      }
      for (auto& run : runs) runs_.emplace_back(std::move(run));
    }
    for (const RunCdf& run : runs_) total_ += run.total();
  }
  bool empty() const { return !(total_ > 0); }

  double At(const std::string& key) const {
    double below = 0;
    for (const RunCdf& run : runs_) below += run.At(key);
    return below / total_;
  }

 private:
  std::vector<RunCdf> runs_;
  double total_ = 0;
};

}  // namespace

std::vector<double> CheckShares(const std::vector<ShapeFile>& files) {
  std::vector<double> shares(files.size(), 0.0);
  const KeyCdf cdf(files);
  std::map<int, double> level_checks;
  for (size_t i = 0; i < files.size(); ++i) {
    const ShapeFile& f = files[i];
    if (f.level < 0) continue;
    shares[i] = HasRange(f) && !cdf.empty()
                    ? std::clamp(cdf.At(f.largest) - cdf.At(f.smallest), 0.0, 1.0)
                    : 1.0;
    level_checks[f.level] += shares[i];
  }
  // A deeper level's files do not overlap: at most one check per lookup,
  // even when ranges (damaged metadata) say otherwise.
  for (size_t i = 0; i < files.size(); ++i) {
    const double checks = files[i].level > 0 ? level_checks[files[i].level] : 0.0;
    if (checks > 1.0) shares[i] /= checks;
  }
  return shares;
}

LsmShape ShapeOfFiles(const std::vector<ShapeFile>& files) {
  return ShapeOfFiles(files, CheckShares(files));
}

LsmShape ShapeOfFiles(const std::vector<ShapeFile>& files, const std::vector<double>& shares) {
  int deepest = -1;
  for (const ShapeFile& f : files) deepest = std::max(deepest, f.level);
  if (deepest < 0) return {};
  LsmShape shape(static_cast<size_t>(deepest) + 1);
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].level < 0) continue;
    LevelLoad& load = shape[static_cast<size_t>(files[i].level)];
    load.keys += std::max(files[i].entries, 0.0);
    load.checks += shares[i];
  }
  for (size_t level = 1; level < shape.size(); ++level) {
    shape[level].checks = std::min(shape[level].checks, 1.0);  // rounding
  }
  return shape;
}

}  // namespace sstfilter
