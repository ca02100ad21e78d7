#include "plugin/tools/size_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "plugin/core/bloom_math.h"
#include "plugin/core/filter_builder.h"
#include "plugin/core/format.h"
#include "plugin/core/kind_ops.h"
#include "plugin/tools/builtin_predictor.h"
#include "plugin/tools/json_writer.h"
#include "plugin/tools/text_output.h"

namespace sstfilter::tools {
namespace {

struct OurKind {
  const char* filter;
  FilterKind kind;
  int lines_per_key;
};
// filter_bench's names: "/opt=v" adds a policy option.
constexpr OurKind kOurKinds[] = {
    {"sstfilter.StandardBloom", FilterKind::kStandardBloom, 1},
    {"sstfilter.BlockedBloom", FilterKind::kBlockedBloom, 1},
    {"sstfilter.BlockedBloom/lines_per_key=2", FilterKind::kBlockedBloom, 2},
    {"sstfilter.Ribbon", FilterKind::kRibbon, 1},
};

bool FpMode(const SizeOptions& o) { return o.fp_rate.has_value(); }


// A Ribbon's "probes": the fingerprint bits a query compares, log2(1/FP).
std::string RibbonBits(double fp_rate) { return "r=" + FormatNumber(std::log2(1.0 / fp_rate), "%.1f"); }

// The policy string that gives this row: the fp_rate form resolves through
// the same BitsPerKeyForFpRate as here, so it is exact.
std::string OurSetting(const OurKind& k, const SizeOptions& o) {
  std::string filter = k.filter;
  std::string extra;
  if (const size_t slash = filter.find('/'); slash != std::string::npos) {
    extra = ";" + filter.substr(slash + 1);
    filter.resize(slash);
  }
  const std::string budget = FpMode(o) ? "fp_rate=" + FormatNumber(*o.fp_rate, "%.6g")
                                       : "bits_per_key=" + FormatNumber(*o.bits_per_key, "%.6g");
  return "filter_policy={id=" + filter + ";" + budget + extra + "}";
}

SizeRow OurRow(const OurKind& k, const SizeOptions& o, uint64_t model_keys) {
  SizeRow row;
  row.filter = k.filter;
  row.setting = OurSetting(k, o);
  FilterConfig config;
  config.kind = k.kind;
  config.lines_per_key = k.lines_per_key;
  const double bpk = FpMode(o) ? BitsPerKeyForFpRate(config, *o.fp_rate) : *o.bits_per_key;
  if (!(bpk <= kMaxBitsPerKey)) {
    row.reachable = false;
    return row;
  }
  config.bits_per_key = bpk;
  row.setting_value = bpk;
  const FilterBuilder builder(config);
  const size_t bytes = builder.BytesForKeys(model_keys);
  row.bits_per_key = 8.0 * static_cast<double>(bytes) / static_cast<double>(model_keys);
  row.predicted_fp_rate = builder.PredictedFpRate(model_keys, bytes);
  row.bytes = bytes;
  // The probe counts the builders choose for the actual payload (their
  // *_builder.cc call these same functions).
  const double payload_bits_per_key =
      8.0 * static_cast<double>(bytes - TrailerBytes(WrittenVersion(config))) /
      static_cast<double>(model_keys);
  // A Ribbon filter that would not beat a StandardBloom filter of its
  // length is written as one (FORMAT.md, Writing).
  const KindOps* bloom = OpsFor(FilterKind::kStandardBloom);
  row.written_as_bloom =
      k.kind == FilterKind::kRibbon &&
      !(row.predicted_fp_rate <
        bloom->predicted_fp_rate(config, model_keys, bytes - TrailerBytes(WrittenVersion(config))));
  row.above_target = FpMode(o) && row.predicted_fp_rate > *o.fp_rate * 1.001;
  if (row.written_as_bloom) {
    row.probes = std::to_string(OptimalStandardBloomProbes(payload_bits_per_key)) + " (Bloom)";
  } else if (k.kind == FilterKind::kStandardBloom) {
    row.probes = std::to_string(OptimalStandardBloomProbes(payload_bits_per_key));
  } else if (k.kind == FilterKind::kBlockedBloom) {
    const std::string per_line =
        std::to_string(OptimalBlockedBloomProbes(payload_bits_per_key, k.lines_per_key));
    row.probes = k.lines_per_key == 2 ? per_line + "+" + per_line : per_line;
  } else {
    row.probes = RibbonBits(row.predicted_fp_rate);
  }
  return row;
}

SizeRow BuiltinRow(BuiltinFilter filter, const SizeOptions& o, uint64_t model_keys) {
  const BuiltinSizing s = FpMode(o) ? SizeBuiltinForFpRate(filter, model_keys, *o.fp_rate)
                                    : SizeBuiltinForBitsPerKey(filter, model_keys, *o.bits_per_key);
  SizeRow row;
  const bool bloom = filter == BuiltinFilter::kBloom;
  row.filter = bloom ? "rocksdb.Bloom" : "rocksdb.Ribbon";
  row.setting_value = s.setting;
  row.setting = bloom ? "NewBloomFilterPolicy(" + FormatNumber(s.setting, "%.4g") + ")"
                      : "NewRibbonFilterPolicy(" + FormatNumber(s.setting, "%.4g") +
                            ", -1)  (Bloom-equivalent setting)";
  row.reachable = !FpMode(o) || s.fp_rate <= *o.fp_rate;
  row.bytes = s.bytes;
  row.bits_per_key = 8.0 * static_cast<double>(s.bytes) / static_cast<double>(model_keys);
  row.predicted_fp_rate = s.fp_rate;
  row.probes = bloom ? std::to_string(s.probes) : RibbonBits(s.fp_rate);
  return row;
}

}  // namespace

double SizeRow::MeasuredFpRate() const {
  return verify_queries ? static_cast<double>(false_positives) / verify_queries : NAN;
}

double SizeRow::FpZ() const {
  const double expected = verify_predicted_fp_rate * static_cast<double>(verify_queries);
  if (!(expected > 0)) return NAN;
  return (static_cast<double>(false_positives) - expected) / std::sqrt(expected);
}

std::string ValidateSizeOptions(const SizeOptions& o) {
  if (o.keys == 0) return "--keys must be a positive number of keys";
  if (o.keys > kMaxSizeKeys) return "--keys must be at most " + GroupedCount(kMaxSizeKeys);
  if (FpMode(o) == o.bits_per_key.has_value()) return "give exactly one of --fp_rate and --bits_per_key";
  if (FpMode(o) && !(*o.fp_rate > 0 && *o.fp_rate < 1)) {
    return "--fp_rate must be a number in (0, 1), e.g. 0.01 for 1%";
  }
  if (!FpMode(o) && !(*o.bits_per_key >= kMinBitsPerKey && *o.bits_per_key <= kMaxBitsPerKey)) {
    return "--bits_per_key must be a number in [1, 100]";
  }
  if (o.levels < 1 || o.levels > 1000) return "--levels must be in [1, 1000]";
  if (o.variants && !FpMode(o)) {
    return "--variants needs --fp_rate: the designs are sized for a target FP rate";
  }
  if (o.verify && (o.verify_max_keys == 0 || o.verify_max_keys > kMaxVerifyKeys)) {
    return "--verify_keys must be in [1, " + GroupedCount(kMaxVerifyKeys) + "]";
  }
  if (o.verify && o.verify_queries > kMaxVerifyQueries) {
    return "--verify_queries must be at most " + GroupedCount(kMaxVerifyQueries) +
           " (0: automatic)";
  }
  return "";
}

std::vector<SizeRow> ComputeSizeRows(const SizeOptions& o) {
  const uint64_t model_keys = std::min(o.keys, kMaxModelKeys);
  std::vector<SizeRow> rows;
  for (const OurKind& k : kOurKinds) rows.push_back(OurRow(k, o, model_keys));
  rows.push_back(BuiltinRow(BuiltinFilter::kBloom, o, model_keys));
  rows.push_back(BuiltinRow(BuiltinFilter::kRibbon, o, model_keys));
  const double scale = static_cast<double>(o.keys) / static_cast<double>(model_keys);
  for (SizeRow& row : rows) {
    row.bytes = static_cast<uint64_t>(std::llround(static_cast<double>(row.bytes) * scale));
    row.wasted_reads_per_miss = o.levels * row.predicted_fp_rate;
  }
  return rows;
}

void PrintSizeText(const SizeOptions& o, const std::vector<SizeRow>& rows, std::ostream& out) {
  out << "sstfilter size: one filter of " << GroupedCount(o.keys) << " keys, "
      << (FpMode(o) ? "target FP rate " + FormatNumber(*o.fp_rate, "%.6g")
                    : "budget " + FormatNumber(*o.bits_per_key, "%.6g") + " bits per key")
      << "\n";
  if (o.keys > kMaxModelKeys) {
    out << "(computed for " << GroupedCount(kMaxModelKeys)
        << " keys, memory scaled: per-key figures no longer change at that size)\n";
  }
  out << "\n";
  std::vector<std::string> header = {"filter", "bits/key", "probes", "predicted_fp", "memory",
                                     "wasted_reads/miss"};
  if (o.verify) {
    for (const char* h : {"verify_keys", "verify_bits/key", "verify_predicted", "measured_fp", "fp_z"}) {
      header.push_back(h);
    }
  }
  TextTable table(header, 1);
  for (const SizeRow& r : rows) {
    if (!r.reachable) {
      table.AddRow({r.filter, "-", "-", "needs > 100 bits/key"});
      continue;
    }
    std::vector<std::string> cells = {r.filter,
                                      FormatNumber(r.bits_per_key, "%.2f"),
                                      r.probes,
                                      FormatNumber(r.predicted_fp_rate, "%.4g") +
                                          (r.above_target ? " (above the target)" : ""),
                                      HumanBytes(r.bytes),
                                      FormatNumber(r.wasted_reads_per_miss, "%.4g")};
    if (r.verified) {
      cells.push_back(GroupedCount(r.verify_keys));
      cells.push_back(FormatNumber(r.verify_bits_per_key, "%.2f"));
      cells.push_back(FormatNumber(r.verify_predicted_fp_rate, "%.4g"));
      cells.push_back(FormatNumber(r.MeasuredFpRate(), "%.4g"));
      cells.push_back(FormatNumber(r.FpZ(), "%.2f"));
    }
    table.AddRow(cells);
  }
  table.Print(out);
  out << "\nbits/key: filter memory per key, metadata included. memory: decimal units "
         "(1 MB = 10^6 bytes).\n"
      << "probes: probes per key; BlockedBloom per 64-byte line (\"6+6\": two lines); "
         "Ribbon: r = log2(1/FP), the fingerprint bits a query compares.\n"
      << (std::any_of(rows.begin(), rows.end(),
                      [](const SizeRow& r) { return r.written_as_bloom; })
              ? "\"(Bloom)\": here a Ribbon filter would not beat a StandardBloom filter of "
                "its length (too few keys, or 32+ bits per key); its builder writes that.\n"
              : "")
      << (std::any_of(rows.begin(), rows.end(), [](const SizeRow& r) { return r.above_target; })
              ? "\"(above the target)\": at so few keys this filter cannot reach --fp_rate.\n"
              : "")
      << "wasted_reads/miss: " << o.levels
      << " filters consulted by a lookup of an absent key (--levels) x predicted FP rate.\n";
  if (FpMode(o)) {
    const double textbook = -std::log(*o.fp_rate) / (std::log(2.0) * std::log(2.0));
    out << "textbook standard Bloom: -ln(p)/ln(2)^2 = " << FormatNumber(textbook, "%.2f")
        << " bits/key at k = log2(1/p) = " << FormatNumber(std::log2(1 / *o.fp_rate), "%.1f")
        << " probes; sstfilter.StandardBloom uses the best whole number of probes.\n";
  }
  if (o.verify) {
    out << "verify: each filter built from verify_keys keys through RocksDB's FilterPolicy API; "
           "measured_fp over absent keys, fp_z in Poisson standard deviations from "
           "verify_predicted.\n";
  }
  out << "\n";
  TextTable settings({"filter", "setting"}, 2);
  for (const SizeRow& r : rows) settings.AddRow({r.filter, r.setting});
  settings.Print(out);
}

void PrintSizeJson(const SizeOptions& o, const std::vector<SizeRow>& rows, std::ostream& out,
                   const std::vector<VariantRow>& variants) {
  JsonWriter j(out);
  j.BeginObject();
  j.Key("keys").Int(o.keys);
  j.Key("fp_rate").Number(o.fp_rate.value_or(NAN));
  j.Key("bits_per_key").Number(o.bits_per_key.value_or(NAN));
  j.Key("levels").Int(static_cast<uint64_t>(o.levels));
  j.Key("filters").BeginArray();
  for (const SizeRow& r : rows) {
    j.BeginObject();
    j.Key("filter").String(r.filter);
    j.Key("setting").String(r.setting);
    j.Key("reachable").Bool(r.reachable);
    if (r.reachable) {
      j.Key("above_target").Bool(r.above_target);
      j.Key("bits_per_key").Number(r.bits_per_key);
      j.Key("probes").String(r.probes);
      j.Key("predicted_fp_rate").Number(r.predicted_fp_rate);
      j.Key("bytes").Int(r.bytes);
      j.Key("wasted_reads_per_miss").Number(r.wasted_reads_per_miss);
    }
    if (r.verified) {
      j.Key("verify").BeginObject();
      j.Key("keys").Int(r.verify_keys);
      j.Key("bits_per_key").Number(r.verify_bits_per_key);
      j.Key("queries").Int(r.verify_queries);
      j.Key("false_positives").Int(r.false_positives);
      j.Key("false_negatives").Int(r.false_negatives);
      j.Key("predicted_fp_rate").Number(r.verify_predicted_fp_rate);
      j.Key("measured_fp_rate").Number(r.MeasuredFpRate());
      j.Key("fp_z").Number(r.FpZ());
      j.EndObject();
    }
    j.EndObject();
  }
  j.EndArray();
  if (o.variants) {
    j.Key("variants").BeginArray();
    for (const VariantRow& v : variants) {
      j.BeginObject();
      j.Key("filter").String(v.filter);
      j.Key("from").String(v.formula ? "formula" : "sstfilter");
      j.Key("reachable").Bool(v.reachable);
      if (v.reachable) {
        j.Key("bits_per_key").Number(v.bits_per_key);
        j.Key("bytes").Int(v.bytes);
        j.Key("probes").String(v.probes);
        j.Key("fingerprint").String(v.fingerprint);
        j.Key("fp_rate").Number(v.fp_rate);
        j.Key("over_bound").Number(v.over_bound);
      }
      j.Key("adds").String(v.adds);
      if (v.formula) {
        j.Key("sizing").String(v.sizing);
        j.Key("reason").String(v.reason);
      }
      j.EndObject();
    }
    j.EndArray();
  }
  j.EndObject();
}

int RunSize(const SizeOptions& options, std::ostream& out, std::ostream& err) {
  if (const std::string error = ValidateSizeOptions(options); !error.empty()) {
    err << "sstfilter size: " << error << "\n";
    return 2;
  }
  std::vector<SizeRow> rows = ComputeSizeRows(options);
  bool ok = true;
  if (options.verify) ok = VerifySizeRows(options, &rows);
  std::vector<VariantRow> variants;
  if (options.variants) variants = ComputeVariantRows(options, rows);
  if (options.json) {
    PrintSizeJson(options, rows, out, variants);
  } else {
    PrintSizeText(options, rows, out);
    if (options.variants) {
      out << "\n";
      PrintVariantsText(options, variants, out);
    }
  }
  if (!ok) err << "sstfilter size: FALSE NEGATIVES in --verify: a filter lost keys\n";
  return ok ? 0 : 1;
}

}  // namespace sstfilter::tools
