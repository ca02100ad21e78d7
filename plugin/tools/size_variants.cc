// `sstfilter size --variants`: filter designs sstfilter does not build,
// sized by their papers' formulas (plugin/tools/variant_math.h) for the same
// keys and target FP rate, beside sstfilter's own rows of ComputeSizeRows.
#include <cmath>
#include <string>
#include <utility>

#include "plugin/tools/variant_math.h"
#include "plugin/tools/size_command.h"
#include "plugin/tools/text_output.h"

namespace sstfilter::tools {
namespace {

std::string Percent(double fraction) { return FormatNumber(100 * fraction, "%+.1f") + "%"; }
std::string Number(double value) { return FormatNumber(value, "%.6g"); }

double BoundBits(const SizeOptions& o) { return std::log2(1.0 / *o.fp_rate); }

VariantRow FormulaRow(const SizeOptions& o, std::string filter, const VariantSizing& s) {
  VariantRow row;
  row.filter = std::move(filter);
  row.reachable = s.reachable;
  row.bits_per_key = s.bits_per_key;
  row.bytes = static_cast<uint64_t>(std::llround(s.bits_per_key * static_cast<double>(o.keys) / 8));
  row.probes = std::to_string(s.probes);
  row.fingerprint = s.fingerprint_bits > 0 ? "f=" + std::to_string(s.fingerprint_bits) : "-";
  row.fp_rate = s.fp_rate;
  row.over_bound = s.bits_per_key / BoundBits(o) - 1;
  return row;
}

// Xor and binary fuse filters are static like Ribbon: only their size
// speaks against them.
VariantRow StaticRow(const SizeOptions& o, std::string filter, const VariantSizing& s,
                     const std::string& slots, const char* paper, double ribbon_over_bound) {
  VariantRow row = FormulaRow(o, std::move(filter), s);
  row.adds = "none (static)";
  row.sizing = slots + " slots of f = ceil(log2(1/p)) bits, FP rate 2^-f (" + paper + ")";
  row.reason = "static like Ribbon, but with whole-bit fingerprints: " +
               Percent(s.bits_per_key / s.fingerprint_bits - 1) + " over log2(1/FP) at its FP 2^-" +
               std::to_string(s.fingerprint_bits) + ", " + Percent(row.over_bound) +
               " over log2(1/" + Number(*o.fp_rate) + ") here";
  if (!std::isnan(ribbon_over_bound)) {
    row.reason += ", where sstfilter.Ribbon is " + Percent(ribbon_over_bound);
  }
  return row;
}

VariantRow SstFilterRow(const SizeOptions& o, const SizeRow& r) {
  VariantRow row;
  row.filter = r.filter;
  row.formula = false;
  row.reachable = r.reachable;
  row.bits_per_key = r.bits_per_key;
  row.bytes = r.bytes;
  const bool ribbon = r.filter == "sstfilter.Ribbon";
  row.probes = ribbon ? "code+2 blocks" : r.probes;
  row.fingerprint = ribbon ? r.probes : "-";
  row.fp_rate = r.predicted_fp_rate;
  row.over_bound = r.bits_per_key / BoundBits(o) - 1;
  row.adds = "-";
  return row;
}

VariantRow ScalableBloomRow(const SizeOptions& o) {
  const ScalableBloomChain chain = ScalableBloomSizing(static_cast<double>(o.keys), *o.fp_rate);
  VariantRow row = FormulaRow(o,
                              "ScalableBloom/s=" + Number(kScalableGrowth) +
                                  ",r=" + Number(kScalableTightening),
                              chain.total);
  std::string capacities, probes;
  for (size_t i = 0; i < chain.probes.size(); ++i) {
    capacities += (i ? " + " : "") +
                  GroupedCount(static_cast<uint64_t>(std::llround(chain.capacity_keys[i])));
    probes += (i ? "+" : "") + std::to_string(chain.probes[i]);
  }
  row.adds = "growth";
  row.sizing = "growth s = " + Number(kScalableGrowth) + ", tightening r = " +
               Number(kScalableTightening) + ", the first filter for a tenth of the keys: " +
               capacities + " keys at P_i = " + Number(chain.fp_rates[0]) + " x " +
               Number(kScalableTightening) + "^i, k_i = " + probes +
               " (Almeida et al. 2007)";
  row.reason = "grows a chain of filters when the key count is not known in advance, and a "
               "query probes them all; an SST filter is built when its keys are all known";
  return row;
}

}  // namespace

std::vector<VariantRow> ComputeVariantRows(const SizeOptions& o, const std::vector<SizeRow>& rows) {
  const double n = static_cast<double>(o.keys);
  const double p = *o.fp_rate;
  std::vector<VariantRow> ours;
  double ribbon_over_bound = NAN;
  for (const SizeRow& r : rows) {
    if (r.filter.rfind("sstfilter.", 0) != 0) continue;
    ours.push_back(SstFilterRow(o, r));
    if (r.filter == "sstfilter.Ribbon" && r.reachable) ribbon_over_bound = ours.back().over_bound;
  }

  std::vector<VariantRow> out;
  const std::string counter_bits = std::to_string(kCountingBloomCounterBits);
  out.push_back(FormulaRow(o, "CountingBloom/counter_bits=" + counter_bits, CountingBloomSizing(p)));
  out.back().fingerprint = counter_bits + "-bit counters";
  out.back().adds = "inserts+deletes";
  out.back().sizing = "sstfilter.StandardBloom with a " + counter_bits +
                      "-bit counter for every bit (Fan et al. 2000)";
  out.back().reason = "its counters allow deletes at " + counter_bits +
                      "x a Bloom filter's memory; an SST file never deletes a key";

  const std::string slots = std::to_string(kCuckooBucketSlots);
  out.push_back(FormulaRow(o, "Cuckoo/b=" + slots + ",load=" + Number(100 * kCuckooLoad) + "%",
                           CuckooSizing(p)));
  out.back().probes += " buckets";
  out.back().adds = "inserts+deletes";
  out.back().sizing = "f = ceil(log2(2b/p)) = ceil(log2(1/p) + 3) bits in buckets of b = " +
                      slots + " slots, " + Number(100 * kCuckooLoad) +
                      "% full (Fan et al. 2014)";
  out.back().reason = "pays 3 fingerprint bits and 1/load slots per key for deletes and later "
                      "inserts; an SST file needs neither";

  out.push_back(ScalableBloomRow(o));
  out.push_back(StaticRow(o, "Xor", XorSizing(n, p),
                          "floor(" + Number(kXorSlotsPerKey) + " n) + " + Number(kXorExtraSlots),
                          "Graf, Lemire 2020", ribbon_over_bound));
  for (int arity : {3, 4}) {
    out.push_back(StaticRow(o, "BinaryFuse/" + std::to_string(arity) + "-wise",
                            BinaryFuseSizing(n, p, arity),
                            "n x " + FormatNumber(BinaryFuseSizeFactor(n, arity), "%.4g"),
                            "Graf, Lemire 2022", ribbon_over_bound));
  }
  out.insert(out.end(), ours.begin(), ours.end());
  return out;
}

void PrintVariantsText(const SizeOptions& o, const std::vector<VariantRow>& variants,
                       std::ostream& out) {
  out << "filter designs for the same keys and target FP rate: \"formula\" rows are the "
         "papers' sizing formulas, not measurements; \"sstfilter\" rows are the table above.\n\n";
  TextTable table({"filter", "from", "adds", "bits/key", "memory", "probes", "fingerprint", "fp",
                   "over_bound"},
                  3);
  for (const VariantRow& v : variants) {
    const std::string from = v.formula ? "formula" : "sstfilter";
    if (!v.reachable) {
      table.AddRow({v.filter, from, v.adds, "-", "-", "-", "-", "-", "-"});
      continue;
    }
    table.AddRow({v.filter, from, v.adds, FormatNumber(v.bits_per_key, "%.2f"),
                  HumanBytes(v.bytes), v.probes, v.fingerprint, FormatNumber(v.fp_rate, "%.4g"),
                  Percent(v.over_bound)});
  }
  table.Print(out);
  out << "\nfp: the FP rate each sizing gives (whole-bit fingerprints and probe counts reach at "
         "most the target). over_bound: bits/key over log2(1/p) = "
      << FormatNumber(BoundBits(o), "%.2f") << ", the least any filter with FP rate p needs.\n"
      << "probes per negative query: bits (Bloom kinds), buckets (Cuckoo), fingerprint slots "
         "(Xor, BinaryFuse), a 2-bit code and two adjacent 64-slot blocks (Ribbon).\n";
  for (const VariantRow& v : variants) {
    if (v.formula) out << v.filter << ": " << v.sizing << ".\n";
  }
  out << "\nWhy these are not sstfilter kinds: an SST file's filter is built once from all its "
         "keys, and the file never deletes a key or grows.\n";
  for (const VariantRow& v : variants) {
    if (v.formula) out << "  " << v.filter << ": " << v.reason << ".\n";
  }
}

}  // namespace sstfilter::tools
