// A progress bar on stderr for long runs over many files: redrawn in place
// on a terminal, one line per 10% otherwise (logs stay readable).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

namespace sstfilter::tools {

enum class ProgressMode { kAuto, kAlways, kNever };

// kAuto shows it on a terminal from this many items, anywhere from kLogItems.
constexpr size_t kTtyProgressItems = 20;
constexpr size_t kLogProgressItems = 1000;

class ProgressBar {
 public:
  ProgressBar(std::ostream& err, bool tty, ProgressMode mode, size_t total, std::string what);
  ~ProgressBar();  // clears an in-place bar
  void Advance();  // one more item done

 private:
  void Draw();

  std::ostream& err_;
  const bool tty_;
  const bool enabled_;
  const size_t total_;
  const std::string what_;
  size_t done_ = 0;
  int last_tenth_ = 0;
};

}  // namespace sstfilter::tools
