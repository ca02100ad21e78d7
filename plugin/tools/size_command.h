// `sstfilter size`: memory and predicted FP rate of every filter kind for a
// number of keys and a target FP rate or memory budget, from the same
// sizing code the builders use (plugin/core: FilterBuilder, bloom_math) and,
// for RocksDB's built-ins, RocksDB's own (builtin_predictor.h). With
// --variants, also the published sizing of filter designs sstfilter does not
// build (plugin/tools/variant_math.h) beside sstfilter's kinds.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace sstfilter::tools {

struct SizeOptions {
  uint64_t keys = 0;
  // Exactly one of the two is set.
  std::optional<double> fp_rate;
  std::optional<double> bits_per_key;
  int levels = 5;          // filters a lookup of an absent key consults
  bool verify = false;     // build each filter and measure its FP rate
  uint64_t verify_max_keys = 1000000;
  uint64_t verify_queries = 0;  // 0: enough for ~2000 false positives, 1M..100M
  bool json = false;
  bool variants = false;  // also the table of filter designs (needs fp_rate)
};

// Empty if `options` are valid, else what is wrong, for the user.
std::string ValidateSizeOptions(const SizeOptions& options);

// The filter kinds `size` reports, in order: every sstfilter kind (and
// BlockedBloom's high-accuracy mode), then RocksDB's Bloom and Ribbon.
struct SizeRow {
  std::string filter;   // "sstfilter.Ribbon", "sstfilter.BlockedBloom/lines_per_key=2", ...
  std::string setting;  // how to configure it for this budget
  double setting_value = 0;  // sstfilter: configured bits per key; rocksdb.*: the setting
  bool reachable = true;  // false: the target needs more than 100 bits/key
  bool above_target = false;  // reachable, but its predicted FP rate is above --fp_rate
  bool written_as_bloom = false;  // sstfilter.Ribbon whose builder writes StandardBloom here
  double bits_per_key = 0;  // actual: bytes * 8 / keys
  std::string probes;   // Bloom: probes per key ("6+6": per line, 2 lines); Ribbon: "r=6.6" bits
  double predicted_fp_rate = 1;
  uint64_t bytes = 0;   // one filter of all the keys
  double wasted_reads_per_miss = 0;  // levels * predicted_fp_rate
  // Filled by VerifySizeRows.
  bool verified = false;
  uint64_t verify_keys = 0;
  uint64_t verify_queries = 0;
  uint64_t false_positives = 0;
  uint64_t false_negatives = 0;
  double verify_predicted_fp_rate = std::numeric_limits<double>::quiet_NaN();
  double verify_bits_per_key = 0;
  double MeasuredFpRate() const;
  double FpZ() const;  // (measured - predicted) in Poisson standard deviations
};

// Keys above this are computed as one filter of this many keys, scaled:
// per-key figures no longer change at that size.
constexpr uint64_t kMaxModelKeys = 100000000;
// Beyond this --keys is refused (a million billion keys: 1.2 PB of filter).
constexpr uint64_t kMaxSizeKeys = 1000000000000000;
// --verify builds filters in memory and queries them: at most this many
// keys (~1.7 GB of hashes and filter) and queries (minutes per filter).
constexpr uint64_t kMaxVerifyKeys = 100000000;
constexpr uint64_t kMaxVerifyQueries = 1000000000;

std::vector<SizeRow> ComputeSizeRows(const SizeOptions& options);

// Builds each reachable row's filter at min(keys, verify_max_keys) keys
// through RocksDB's FilterPolicy API and measures its FP rate. Returns
// false if any filter lost a key (a false negative).
bool VerifySizeRows(const SizeOptions& options, std::vector<SizeRow>* rows);

// One filter design for the same keys and target FP rate (--variants):
// the papers' formulas for designs sstfilter does not build, the rows above
// for sstfilter's own kinds.
struct VariantRow {
  std::string filter;  // "Cuckoo/b=4,load=95.5%", ..., "sstfilter.Ribbon"
  bool formula = true;  // false: sstfilter's kind, from its builders' sizing
  bool reachable = true;
  double bits_per_key = 0;
  uint64_t bytes = 0;      // one filter of all the keys
  std::string probes;      // bit probes or memory accesses per negative query
  std::string fingerprint;  // "f=10", "4-bit counters", "r=6.6", "-"
  double fp_rate = 1;       // what the sizing gives, at most the target
  double over_bound = 0;    // bits_per_key / log2(1/target) - 1
  std::string adds;         // what the design offers beyond a static filter
  std::string sizing;       // the formula and its parameters ("" for sstfilter's)
  std::string reason;       // why it is or is not an SST filter kind here ("" for sstfilter's)
};

// The variants for options.keys and *options.fp_rate, then the sstfilter
// rows of `rows` (ComputeSizeRows of the same options).
std::vector<VariantRow> ComputeVariantRows(const SizeOptions& options,
                                           const std::vector<SizeRow>& rows);

void PrintSizeText(const SizeOptions& options, const std::vector<SizeRow>& rows,
                   std::ostream& out);
void PrintVariantsText(const SizeOptions& options, const std::vector<VariantRow>& variants,
                       std::ostream& out);
// With options.variants, the object also holds "variants": one object per row.
void PrintSizeJson(const SizeOptions& options, const std::vector<SizeRow>& rows,
                   std::ostream& out, const std::vector<VariantRow>& variants = {});

// The whole subcommand; returns the exit status (0 ok, 1 false negative in
// --verify, 2 bad options).
int RunSize(const SizeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace sstfilter::tools
