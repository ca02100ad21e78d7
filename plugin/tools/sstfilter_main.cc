// sstfilter: the command-line tool.
//
//   sstfilter size --keys=N (--fp_rate=P | --bits_per_key=B) [--levels=L] [--verify]
//                  [--variants] [--json]
//   sstfilter inspect PATH... [--json] [--progress=auto|always|never] [--nochecksums]
//   sstfilter help [COMMAND]
//
// The subcommand is argv[1]; the rest are gflags flags (the registry, types
// and help texts) and positional arguments. Flags are set one by one with
// gflags::SetCommandLineOption, so that a bad value or a flag of another
// subcommand is a clear error with exit status 2 rather than gflags' own
// exit(1).
#include <gflags/gflags.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "plugin/rocksdb/register.h"
#include "plugin/tools/inspect_command.h"
#include "plugin/tools/size_command.h"

DEFINE_uint64(keys, 0, "Number of keys the filter holds (size).");
DEFINE_double(fp_rate, 0, "Target false-positive rate in (0, 1), e.g. 0.01 (size).");
DEFINE_double(bits_per_key, 0,
              "Memory budget: actual filter bits per key in [1, 100] (size). For "
              "rocksdb.Ribbon, whose own setting is 'Bloom-equivalent', the setting "
              "with this much actual memory is found.");
DEFINE_int32(levels, 5,
             "Filters a lookup of an absent key consults: one per level, plus one per "
             "overlapping L0 file. wasted reads per miss = levels x FP rate (size).");
DEFINE_bool(verify, false,
            "Also build each filter at min(keys, --verify_keys) keys and measure its FP "
            "rate (size).");
DEFINE_uint64(verify_keys, 1000000, "Largest filter --verify builds, at most 100M (size).");
DEFINE_uint64(verify_queries, 0,
              "Absent keys --verify queries per filter, at most 1G; 0: enough for ~2000 false "
              "positives, between 1M and 100M (size).");
DEFINE_bool(variants, false,
            "Also size counting Bloom, cuckoo, scalable Bloom, xor and binary fuse filters "
            "by their papers' formulas beside sstfilter's kinds (size, with --fp_rate).");
DEFINE_bool(json, false, "Print JSON instead of tables (size, inspect).");
DEFINE_string(progress, "auto",
              "Progress bar on stderr: auto (from 20 files when stderr is a terminal, "
              "from 1000 files otherwise), always, never (inspect).");
DEFINE_bool(checksums, true,
            "Verify the block checksum of every filter block read; --nochecksums "
            "skips it (inspect).");

namespace {

using sstfilter::tools::InspectOptions;
using sstfilter::tools::SizeOptions;

struct Command {
  const char* name;
  const char* usage;
  std::vector<std::string> flags;
};

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"size",
       "sstfilter size --keys=N (--fp_rate=P | --bits_per_key=B) [--levels=L] [--verify] "
       "[--variants] [--json]\n"
       "  Memory, probes and predicted FP rate of every filter kind (sstfilter's and\n"
       "  RocksDB's Bloom and Ribbon) for one filter of N keys, from the builders' own\n"
       "  sizing code, and the wasted reads per miss of L such filters.",
       {"keys", "fp_rate", "bits_per_key", "levels", "verify", "verify_keys", "verify_queries",
        "variants", "json"}},
      {"inspect",
       "sstfilter inspect PATH... [--json] [--progress=auto|always|never] [--nochecksums]\n"
       "  The filter of every SST file of a database directory (with its level) or of\n"
       "  the given SST files: policy, kind, entries, bytes, bits per key, predicted FP\n"
       "  rate; totals per level and for the database; warnings for files without a\n"
       "  usable filter and for OPTIONS naming a policy this process does not know.\n"
       "  Exit status 1 if there is any warning.",
       {"json", "progress", "checksums"}},
  };
  return commands;
}

void PrintUsage(std::ostream& out) {
  out << "sstfilter: size and inspect RocksDB filters (sstfilter's and RocksDB's built-in).\n\n";
  for (const Command& c : Commands()) out << c.usage << "\n\n";
  out << "sstfilter help COMMAND shows a command's flags. Exit status: 0 ok, 1 a problem\n"
         "found (warnings in inspect, false negatives in size --verify), 2 usage error.\n";
}

void PrintHelp(const Command& c, std::ostream& out) {
  out << c.usage << "\n\nflags:\n";
  for (const std::string& name : c.flags) {
    gflags::CommandLineFlagInfo info;
    gflags::GetCommandLineFlagInfo(name.c_str(), &info);
    out << "  --" << name << " (" << info.type << ", default " << info.default_value << ")\n      "
        << info.description << "\n";
  }
}

const Command* FindCommand(const std::string& name) {
  for (const Command& c : Commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

// Sets the flags among args[first..] and returns the positional arguments.
// False with *error set on an unknown flag, a flag of another command or a
// bad value.
bool ParseArgs(const Command& command, const std::vector<std::string>& args,
               std::vector<std::string>* positional, std::set<std::string>* set_flags,
               std::string* error) {
  bool flags_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (flags_done || arg.size() < 2 || arg[0] != '-') {
      positional->push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1), value;
    const size_t eq = name.find('=');
    const bool has_value = eq != std::string::npos;
    if (has_value) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    gflags::CommandLineFlagInfo info;
    bool known = gflags::GetCommandLineFlagInfo(name.c_str(), &info);
    if (!known && !has_value && name.rfind("no", 0) == 0 &&
        gflags::GetCommandLineFlagInfo(name.substr(2).c_str(), &info) && info.type == "bool") {
      name = name.substr(2);
      value = "false";
      known = true;
    } else if (known && !has_value) {
      if (info.type == "bool") {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        *error = "--" + name + " needs a value";
        return false;
      }
    }
    bool ours = false;
    for (const std::string& f : command.flags) ours = ours || f == name;
    if (!known || !ours) {
      *error = "unknown flag " + arg + " for '" + command.name + "' (sstfilter help " +
               command.name + " lists its flags)";
      return false;
    }
    if (gflags::SetCommandLineOption(name.c_str(), value.c_str()).empty()) {
      *error = "bad value '" + value + "' for --" + name + " (" + info.type + ")";
      return false;
    }
    set_flags->insert(name);
  }
  return true;
}

int RunSize(const std::vector<std::string>& positional, const std::set<std::string>& set_flags) {
  if (!positional.empty()) {
    std::cerr << "sstfilter size: unexpected argument '" << positional[0] << "'\n";
    return 2;
  }
  SizeOptions o;
  o.keys = FLAGS_keys;
  if (set_flags.count("fp_rate")) o.fp_rate = FLAGS_fp_rate;
  if (set_flags.count("bits_per_key")) o.bits_per_key = FLAGS_bits_per_key;
  o.levels = FLAGS_levels;
  o.verify = FLAGS_verify;
  o.verify_max_keys = FLAGS_verify_keys;
  o.verify_queries = FLAGS_verify_queries;
  o.json = FLAGS_json;
  o.variants = FLAGS_variants;
  return sstfilter::tools::RunSize(o, std::cout, std::cerr);
}

int RunInspect(const std::vector<std::string>& positional) {
  InspectOptions o;
  o.paths = positional;
  o.json = FLAGS_json;
  o.verify_checksums = FLAGS_checksums;
  if (FLAGS_progress == "auto") {
    o.progress = sstfilter::tools::ProgressMode::kAuto;
  } else if (FLAGS_progress == "always") {
    o.progress = sstfilter::tools::ProgressMode::kAlways;
  } else if (FLAGS_progress == "never") {
    o.progress = sstfilter::tools::ProgressMode::kNever;
  } else {
    std::cerr << "sstfilter inspect: --progress must be auto, always or never\n";
    return 2;
  }
  return sstfilter::tools::RunInspect(o, std::cout, std::cerr);
}

}  // namespace

int main(int argc, char** argv) {
  // Linking the library registers the sstfilter policies; naming one of its
  // functions keeps the link even under --as-needed.
  (void)sstfilter::PolicyIds();
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    PrintUsage(std::cerr);
    return 2;
  }
  const std::string& name = args[0];
  if (name == "help" || name == "--help" || name == "-h" || name == "-help") {
    const Command* c = args.size() > 1 ? FindCommand(args[1]) : nullptr;
    if (c != nullptr) {
      PrintHelp(*c, std::cout);
    } else {
      PrintUsage(std::cout);
    }
    return 0;
  }
  const Command* command = FindCommand(name);
  if (command == nullptr) {
    std::cerr << "sstfilter: unknown command '" << name << "'\n\n";
    PrintUsage(std::cerr);
    return 2;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  for (const std::string& a : rest) {
    if (a == "--help" || a == "-h" || a == "-help") {
      PrintHelp(*command, std::cout);
      return 0;
    }
  }
  std::vector<std::string> positional;
  std::set<std::string> set_flags;
  std::string error;
  if (!ParseArgs(*command, rest, &positional, &set_flags, &error)) {
    std::cerr << "sstfilter " << name << ": " << error << "\n";
    return 2;
  }
  return name == "size" ? RunSize(positional, set_flags) : RunInspect(positional);
}
