#include "plugin/core/alloc_fit.h"

#include <algorithm>
#include <cmath>

#include "plugin/core/bisect.h"

namespace sstfilter {
namespace {

constexpr double kBalanceUnit = 4294967296.0;  // 2^32, as RocksDB's balance

// The largest usable size below `cls` among requests >= `floor`, or 0.
size_t ClassBelow(size_t (*usable)(size_t), size_t cls, size_t floor) {
  if (floor == 0 || usable(floor) >= cls) return 0;
  return usable(LastWhere(floor, cls - 1, [&](size_t n) { return usable(n) < cls; }));
}

// How much more FP rate a byte buys between the two candidate lengths than
// it does at the target length: (FP saved per byte from `down_len` to
// `up_len`) / (the FP curve's slope at `target_len`, taken over +-1/16 of
// the length). Above 1, rounding up is the cheaper way to the budget's FP
// rate for this filter; below 1, rounding down. 1 where the curve is flat.
double PriceRatio(size_t target_len, size_t down_len, double down_fp, size_t up_len, double up_fp,
                  const std::function<size_t(size_t)>& valid_length,
                  const std::function<double(size_t)>& fp_rate) {
  const size_t step = std::max<size_t>(target_len / 16, 1);
  const size_t lo = valid_length(target_len - std::min(step, target_len - 1));
  const size_t hi = valid_length(target_len + step);
  if (up_len <= down_len || lo == 0 || hi <= lo) return 1;
  const double slope = (fp_rate(lo) - fp_rate(hi)) / static_cast<double>(hi - lo);
  const double chord = (down_fp - up_fp) / static_cast<double>(up_len - down_len);
  if (!(slope > 0) || !(chord > 0)) return 1;
  return std::min(chord / slope, 8.0);
}

}  // namespace

size_t FitLength(const AllocatorFit& fit, size_t target_len,
                 const std::function<size_t(size_t)>& valid_length,
                 const std::function<double(size_t)>& fp_rate) {
  if (fit.usable_size == nullptr || target_len == 0) return target_len;
  const size_t request = target_len + fit.extra_bytes;
  const size_t up_class = fit.usable_size(request);
  // No slack to recover; or a usable size this far above the request,
  // which says malloc_usable_size is not the allocator's (mislinked).
  if (up_class == request || up_class / 2 > request) return target_len;
  const size_t up_len = valid_length(up_class - fit.extra_bytes);
  const size_t down_class = ClassBelow(fit.usable_size, up_class, request - request / 4);
  const size_t down_len =
      down_class > fit.extra_bytes ? valid_length(down_class - fit.extra_bytes) : 0;

  size_t chosen = up_len >= target_len ? up_len : target_len;
  if (fit.balance == nullptr) return chosen;
  const double target_fp = fp_rate(target_len);
  double chosen_fp = fp_rate(chosen);
  if (down_len > 0 && down_len < target_len) {
    const double down_fp = fp_rate(down_len);
    const double balance = static_cast<double>(fit.balance->load(std::memory_order_relaxed));
    const double ratio = PriceRatio(target_len, down_len, down_fp, chosen, chosen_fp,
                                    valid_length, fp_rate);
    // Never positive, so the balance never goes positive either. The
    // reserve weighs what rounding down forgoes, the class above's FP rate
    // against the class below's: a length just above a class boundary
    // costs little to round down but gives up the whole class above.
    const double allowance = -(std::max(fit.price_weight, 0.0) * target_fp *
                                   std::log(std::max(ratio, 1.0)) +
                               std::max(fit.reserve, 0.0) * std::max(down_fp - chosen_fp, 0.0)) *
                             kBalanceUnit;
    if (down_fp < 1 && balance + (down_fp - target_fp) * kBalanceUnit <= allowance) {
      chosen = down_len;
      chosen_fp = down_fp;
    }
  }
  const double diff = (chosen_fp - target_fp) * kBalanceUnit;
  fit.balance->fetch_add(static_cast<int64_t>(std::llround(diff)), std::memory_order_relaxed);
  return chosen;
}

}  // namespace sstfilter
