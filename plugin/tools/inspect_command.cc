#include "plugin/tools/inspect_command.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "plugin/tools/json_writer.h"
#include "plugin/tools/text_output.h"

namespace sstfilter::tools {
namespace {

constexpr size_t kFilesListed = 5;  // per warning, in the text output

std::string LevelName(int level) {
  if (level == kAllLevels) return "total";
  return level < 0 ? "?" : "L" + std::to_string(level);
}

const char* LayoutName(FilterLayout layout) {
  switch (layout) {
    case FilterLayout::kNone: return "none";
    case FilterLayout::kFull: return "full";
    case FilterLayout::kPartitioned: return "partitioned";
    case FilterLayout::kObsolete: return "obsolete";
  }
  return "?";
}

std::string KindText(const SstFilterReport& s) {
  if (!s.readable) return "unreadable";
  if (s.layout == FilterLayout::kNone) return "none";
  std::string kind = s.block.kind.empty() ? "?" : s.block.kind;
  if (s.layout == FilterLayout::kPartitioned) kind += ", " + std::to_string(s.partitions) + " partitions";
  return kind;
}

// Bloom kinds: probes per key ("6+6": per line, two lines). Ribbons: the
// fingerprint bits a query compares, log2(1/FP).
std::string ProbesText(const SstFilterReport& s) {
  if (!s.described || !s.block.usable) return "-";
  if (s.block.probes > 0) {
    const std::string k = std::to_string(s.block.probes);
    return s.block.lines_per_key == 2 ? k + "+" + k : k;
  }
  if (s.block.kind.find("Ribbon") != std::string::npos && s.predicted_fp_rate > 0) {
    return "r=" + FormatNumber(std::log2(1 / s.predicted_fp_rate), "%.1f");
  }
  return "-";
}

double FileBitsPerKey(const SstFilterReport& s) {
  return s.entries ? 8.0 * static_cast<double>(s.filter_bytes) / static_cast<double>(s.entries) : 0;
}

std::string Join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

void PrintSources(const Inspection& in, std::ostream& out) {
  for (const InspectedSource& s : in.sources) {
    if (s.is_database) {
      out << "database " << s.path << ": " << s.listing.files.size() << " live SST files"
          << (s.listing.from_manifest ? " (levels from the MANIFEST)" : "") << "\n";
      if (!s.options.file.empty()) {
        for (const OptionsFilterPolicy& p : s.options.policies) {
          out << "  " << s.options.file << " [" << p.column_family << "]: filter_policy=" << p.value;
          if (p.registered) out << "  (" << p.name << ")";
          if (p.configured && !p.registered) out << "  (NOT REGISTERED here)";
          out << "\n";
        }
      } else {
        out << "  " << s.options.error << "\n";
      }
    } else if (s.listing.files.size() != 1 || s.listing.files[0].path != s.path) {
      out << "directory " << s.path << ": " << s.listing.files.size() << " SST files\n";
    }
    for (const std::string& note : s.listing.notes) out << "  note: " << note << "\n";
  }
}

void AddTotalsRow(const Totals& t, bool with_cf, TextTable* table) {
  std::vector<std::string> row;
  if (with_cf) row.push_back(t.column_family);
  row.push_back(LevelName(t.level));
  for (const std::string& cell :
       {GroupedCount(t.files), GroupedCount(t.files_without_usable_filter), GroupedCount(t.entries),
        GroupedCount(t.filter_bytes), FormatNumber(t.BitsPerKey(), "%.3f"),
        FormatNumber(t.MeanFpRate(), "%.4g")}) {
    row.push_back(cell);
  }
  table->AddRow(row);
}

}  // namespace

void PrintInspectionText(const Inspection& in, std::ostream& out) {
  const bool cf = in.multiple_column_families;
  PrintSources(in, out);
  out << "\n";
  std::vector<std::string> header = {"level", "file", "policy", "kind", "entries",
                                     "filter_bytes", "bits/key", "probes", "predicted_fp", "note"};
  if (cf) header.insert(header.begin(), "cf");
  TextTable files(header, cf ? 5 : 4);
  for (const InspectedFile& f : in.files) {
    const SstFilterReport& s = f.sst;
    std::vector<std::string> row = {LevelName(f.where.level), f.display_name,
                                    s.policy_name.empty() ? "-" : s.policy_name, KindText(s),
                                    GroupedCount(s.entries), GroupedCount(s.filter_bytes),
                                    FormatNumber(FileBitsPerKey(s), "%.3f"), ProbesText(s),
                                    FormatNumber(f.effective_fp_rate, "%.4g"), Join(f.warnings, "; ")};
    if (cf) row.insert(row.begin(), f.where.column_family);
    files.AddRow(row);
  }
  files.Print(out);

  out << "\n";
  std::vector<std::string> level_header = {"level", "files", "no_usable_filter", "entries",
                                           "filter_bytes", "bits/key", "predicted_fp"};
  if (cf) level_header.insert(level_header.begin(), "cf");
  TextTable levels(level_header, cf ? 2 : 1);
  for (const Totals& t : in.levels) AddTotalsRow(t, cf, &levels);
  for (const Totals& t : in.column_families) AddTotalsRow(t, cf, &levels);
  if (cf) AddTotalsRow(in.total, cf, &levels);
  levels.Print(out);
  out << "bits/key = filter bytes x 8 / filter entries; predicted_fp: entries-weighted mean, 1 "
         "for files whose filter RocksDB cannot use.\n";
  for (const Totals& t : in.column_families) {
    if (std::isnan(t.wasted_reads_per_miss)) continue;
    out << "wasted reads per miss" << (cf ? " in " + t.column_family : "") << ": "
        << FormatNumber(t.wasted_reads_per_miss, "%.4g") << " over "
        << FormatNumber(t.checks_per_miss, "%.2f")
        << " filter checks per miss (absent keys spread like the stored keys)\n";
    if (std::isnan(t.optimal_wasted_reads)) continue;
    out << "  the same " << FormatNumber(t.BitsPerKey(), "%.3f")
        << " bits/key spread uniformly as Ribbon: " << FormatNumber(t.uniform_ribbon_wasted_reads, "%.4g")
        << "; split optimally by level with filters at log2(1/fp) bits (Monkey): "
        << FormatNumber(t.optimal_wasted_reads, "%.4g");
    if (t.optimal_wasted_reads > 0) {  // 0: e.g. a budget so large every filter is exact
      out << " (these filters: "
          << FormatNumber(t.wasted_reads_per_miss / t.optimal_wasted_reads, "%.2f")
          << "x the optimum)";
    }
    out << "\n";
  }

  out << "\n";
  if (in.warnings.empty()) {
    out << "no warnings\n";
    return;
  }
  out << "warnings:\n";
  for (const Warning& w : in.warnings) {
    out << "  - " << w.message;
    if (!w.files.empty()) {
      out << " (" << w.files.size() << (w.files.size() == 1 ? " file" : " files") << ": ";
      for (size_t i = 0; i < w.files.size() && i < kFilesListed; ++i) {
        out << (i ? ", " : "") << w.files[i];
      }
      if (w.files.size() > kFilesListed) out << ", and " << w.files.size() - kFilesListed << " more";
      out << ")";
    }
    out << "\n";
  }
}

namespace {

void TotalsJson(const Totals& t, JsonWriter* j) {
  j->BeginObject();
  j->Key("column_family").String(t.column_family);
  if (t.level >= 0) {
    j->Key("level").Int(static_cast<uint64_t>(t.level));
  } else if (t.level == -1) {
    j->Key("level").Null();
  }
  j->Key("files").Int(t.files);
  j->Key("files_without_usable_filter").Int(t.files_without_usable_filter);
  j->Key("entries").Int(t.entries);
  j->Key("filter_bytes").Int(t.filter_bytes);
  j->Key("bits_per_key").Number(t.BitsPerKey());
  j->Key("predicted_fp_rate").Number(t.MeanFpRate());
  if (t.level == kAllLevels) {
    j->Key("filter_checks_per_miss").Number(t.checks_per_miss);
    j->Key("wasted_reads_per_miss").Number(t.wasted_reads_per_miss);
    j->Key("uniform_ribbon_wasted_reads_per_miss").Number(t.uniform_ribbon_wasted_reads);
    j->Key("optimal_wasted_reads_per_miss").Number(t.optimal_wasted_reads);
  }
  j->EndObject();
}

void FileJson(const InspectedFile& f, JsonWriter* j) {
  const SstFilterReport& s = f.sst;
  j->BeginObject();
  j->Key("path").String(s.path);
  j->Key("column_family").String(f.where.column_family);
  if (f.where.level >= 0) {
    j->Key("level").Int(static_cast<uint64_t>(f.where.level));
  } else {
    j->Key("level").Null();
  }
  j->Key("file_bytes").Int(s.file_bytes);
  j->Key("readable").Bool(s.readable);
  if (!s.error.empty()) j->Key("error").String(s.error);
  j->Key("filter_policy").String(s.policy_name);
  j->Key("layout").String(LayoutName(s.layout));
  j->Key("family").String(s.family);
  if (s.layout == FilterLayout::kPartitioned) j->Key("partitions").Int(static_cast<uint64_t>(s.partitions));
  j->Key("kind").String(KindText(s));
  j->Key("usable").Bool(f.effective_fp_rate < 1);
  j->Key("probes").String(ProbesText(s));
  j->Key("entries").Int(s.entries);
  j->Key("filter_bytes").Int(s.filter_bytes);
  j->Key("bits_per_key").Number(FileBitsPerKey(s));
  j->Key("predicted_fp_rate").Number(f.effective_fp_rate);
  j->Key("warnings").BeginArray();
  for (const std::string& w : f.warnings) j->String(w);
  j->EndArray();
  j->EndObject();
}

}  // namespace

void PrintInspectionJson(const Inspection& in, std::ostream& out) {
  JsonWriter j(out);
  j.BeginObject();
  j.Key("sources").BeginArray();
  for (const InspectedSource& s : in.sources) {
    j.BeginObject();
    j.Key("path").String(s.path);
    j.Key("database").Bool(s.is_database);
    j.Key("levels_from_manifest").Bool(s.listing.from_manifest);
    j.Key("notes").BeginArray();
    for (const std::string& n : s.listing.notes) j.String(n);
    j.EndArray();
    if (s.is_database) {
      j.Key("options_file").String(s.options.file);
      if (!s.options.error.empty()) j.Key("options_error").String(s.options.error);
      j.Key("filter_policies").BeginArray();
      for (const OptionsFilterPolicy& p : s.options.policies) {
        j.BeginObject();
        j.Key("column_family").String(p.column_family);
        j.Key("value").String(p.value);
        j.Key("configured").Bool(p.configured);
        j.Key("registered").Bool(p.registered);
        j.Key("name").String(p.name);
        j.Key("compatibility_name").String(p.compatibility_name);
        if (!p.error.empty()) j.Key("error").String(p.error);
        j.EndObject();
      }
      j.EndArray();
    }
    j.EndObject();
  }
  j.EndArray();
  j.Key("files").BeginArray();
  for (const InspectedFile& f : in.files) FileJson(f, &j);
  j.EndArray();
  j.Key("levels").BeginArray();
  for (const Totals& t : in.levels) TotalsJson(t, &j);
  j.EndArray();
  j.Key("column_families").BeginArray();
  for (const Totals& t : in.column_families) TotalsJson(t, &j);
  j.EndArray();
  j.Key("total");
  TotalsJson(in.total, &j);
  j.Key("warnings").BeginArray();
  for (const Warning& w : in.warnings) {
    j.BeginObject();
    j.Key("message").String(w.message);
    j.Key("files").BeginArray();
    for (const std::string& file : w.files) j.String(file);
    j.EndArray();
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();
}

int RunInspect(const InspectOptions& options, std::ostream& out, std::ostream& err) {
  Inspection inspection;
  std::string error;
  if (!Inspect(options, err, isatty(STDERR_FILENO) != 0, &inspection, &error)) {
    err << "sstfilter inspect: " << error << "\n";
    return 2;
  }
  if (options.json) {
    PrintInspectionJson(inspection, out);
  } else {
    PrintInspectionText(inspection, out);
  }
  return inspection.warnings.empty() ? 0 : 1;
}

}  // namespace sstfilter::tools
