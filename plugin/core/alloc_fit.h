// Filter lengths chosen for the allocator (RocksDB's
// optimize_filters_for_memory).
//
// What a filter really costs is the allocation that holds it: RocksDB reads
// a filter block back from disk into one allocation of its length plus the
// 5-byte block trailer and charges the block cache the allocator's usable
// size of it. jemalloc rounds a request up to its next size class (four
// classes per power of two, e.g. 1024, 1280, 1536, 1792, 2048), which leaves
// 9-11% slack on average over filter-sized blocks (measured over 400
// filters of 1K-200K keys at 10 bits/key); glibc malloc leaves under 0.1%.
//
// FitLength picks, for each filter, a length whose allocation is exactly a
// size class: the class just below the length the budget asks for or the
// one just above. It rounds down only while the filters so far are at or
// better than the budget's FP rate on average: a balance of predicted FP
// rates shared by a policy's filters (RocksDB's aggregate rounding balance,
// PR 6427), which never goes positive. So the FP rate averaged over a
// policy's filters stays at the configured budget's, and the memory near
// it: the FP rate is convex in the length, so rounding costs a little of
// either. RocksDB's builders try 3/4, 13/16, 7/8 and 15/16 of the length
// before rounding up; here only the two neighbouring classes are
// candidates, the smallest deviations.
//
// Which filters round down is priced: a filter whose class above buys more
// FP rate per byte than its FP curve's slope at the budget (the class above
// is near, or the curve is steep there) rounds down only with more credit
// in the balance (alloc_fit.cc), so the balance's credit goes to the
// filters where rounding down costs least. On a stream of filters of two
// sizes, one just above a class and one just below, plain balance rounding
// (price_weight 0) does not tell them apart; priced rounding rounds the
// near-up ones down less and pays less FP rate per byte saved
// (tests/alloc_fit_test.cc, AllocFitPricing). The balance stays the bound:
// pricing only decides which filters spend its credit, so over many
// filters that all sit alike it rounds down as often as RocksDB's rule.
// Where the credit goes also weighs how often a filter is checked: an L0
// file's filter is checked by every lookup, a deeper file's by those in
// its key range, a last-level file's by the fewest per key
// (AllocatorFit::reserve, AllocFitReserve).
//
// Pure: the allocator is a function given by the caller
// (block_allocation.h probes malloc_usable_size).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace sstfilter {

// BlockBasedTable's block trailer: a type byte and a 4-byte checksum.
// RocksDB holds a block read from disk in one allocation of its length plus
// these bytes (block_allocation.h).
constexpr size_t kBlockTrailerBytes = 5;

struct AllocatorFit {
  // Usable size of an allocation of `request` bytes (>= request, monotone).
  size_t (*usable_size)(size_t request) = nullptr;
  // Bytes allocated along with the block: RocksDB's block trailer.
  size_t extra_bytes = kBlockTrailerBytes;
  // Sum over a policy's filters of (chosen - budgeted) FP rate, in units
  // of 2^-32; shared by every builder of one policy. Races only skew one
  // decision: updates are atomic and relative.
  std::atomic<int64_t>* balance = nullptr;
  // A filter whose class above buys e times the FP rate per byte of its
  // curve's slope at the budget rounds down only once the balance holds
  // this many of its budget FP rates in credit (twice that at e^2, ...);
  // 0 rounds as RocksDB does, on the balance alone.
  double price_weight = 2.0;
  // A filter that lookups check far more often per key than most adds its
  // FP rate to far more misses: an L0 file's is checked by every lookup,
  // a file above the last level by about ten times the lookups per key of a
  // last-level file (levels grow tenfold). Such a filter rounds down only
  // once the balance holds what rounding it down costs (its FP rate there
  // minus the budget's), plus reserve times what it gives up (its FP rate
  // at the class below minus at the class above), plus its price, in
  // credit: a length just above a class boundary costs almost nothing to
  // round down, yet gives up the whole class above. Other filters spend
  // the credit as soon as it covers their own cost once, so it rounds up
  // while they are built and its credit pays for their rounding down.
  // Where nearly every filter is such a filter (a FIFO database's), the
  // balance settles lower and they take turns as the others do.
  double reserve = 0;
};

// The reserve of a filter checked far more often than a last-level file's
// (an L0 file's, or one above the last level): 10 times what rounding down
// gives up, about what it weighs against a file of a level ten times
// larger. In a FIFO database the balance then settles ~10 filters' gains
// lower, once.
constexpr double kOftenCheckedReserve = 10.0;

// The reserve of a filter written at `level` (RocksDB's level_at_creation;
// -1 when unknown, as for SstFileWriter's files) that is `bottommost` when
// no data lies below it in its key range: kOftenCheckedReserve for L0 and
// for files above the last level, none for the last level's or unknown.
inline double OftenCheckedReserve(int level, bool bottommost) {
  return level == 0 || (level > 0 && !bottommost) ? kOftenCheckedReserve : 0.0;
}

// Candidate lengths: `valid_length(max_len)` returns the largest length the
// kind can write that is <= max_len (0 if none); `fp_rate(len)` is the
// predicted FP rate at that length. Returns the chosen length: `target_len`
// itself if its allocation has no slack.
size_t FitLength(const AllocatorFit& fit, size_t target_len,
                 const std::function<size_t(size_t)>& valid_length,
                 const std::function<double(size_t)>& fp_rate);

}  // namespace sstfilter
