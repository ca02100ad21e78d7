#include "plugin/tools/progress_bar.h"

#include <algorithm>

namespace sstfilter::tools {

namespace {
bool Enabled(bool tty, ProgressMode mode, size_t total) {
  switch (mode) {
    case ProgressMode::kNever: return false;
    case ProgressMode::kAlways: return true;
    case ProgressMode::kAuto: return tty ? total >= kTtyProgressItems : total >= kLogProgressItems;
  }
  return false;
}
}  // namespace

ProgressBar::ProgressBar(std::ostream& err, bool tty, ProgressMode mode, size_t total,
                         std::string what)
    : err_(err), tty_(tty), enabled_(Enabled(tty, mode, total)), total_(total),
      what_(std::move(what)) {
  if (enabled_) Draw();
}

ProgressBar::~ProgressBar() {
  if (enabled_ && tty_) err_ << "\r" << std::string(60 + what_.size(), ' ') << "\r" << std::flush;
}

void ProgressBar::Advance() {
  ++done_;
  if (enabled_) Draw();
}

void ProgressBar::Draw() {
  const double fraction = total_ ? static_cast<double>(done_) / static_cast<double>(total_) : 1.0;
  if (tty_) {
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(fraction * kWidth);
    err_ << "\r[" << std::string(filled, '#') << std::string(kWidth - filled, ' ') << "] "
         << done_ << "/" << total_ << " " << what_ << std::flush;
    return;
  }
  const int tenth = static_cast<int>(fraction * 10);
  if (done_ == 0 || tenth > last_tenth_) {
    last_tenth_ = tenth;
    err_ << "[sstfilter] " << done_ << "/" << total_ << " " << what_ << " (" << tenth * 10
         << "%)\n" << std::flush;
  }
}

}  // namespace sstfilter::tools
