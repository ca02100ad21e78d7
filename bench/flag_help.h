// The benchmarks' command line. --help lists only the program's own flags. gflags' built-in
// --help also lists every flag linked in, and librocksdb brings its tools'
// flags (about 270 of them in Debian's build).
#pragma once

#include <gflags/gflags.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/allocator.h"

namespace sstfilter::bench {

// True if the command line asks for help (--help, -help, -h, --helpfull).
inline bool WantsHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    for (const char* h : {"--help", "-help", "-h", "--helpfull", "--helpshort"}) {
      if (std::strcmp(argv[i], h) == 0) return true;
    }
  }
  return false;
}

// Prints `usage` and the flags defined in `source_file` (pass __FILE__),
// each as "--name=default" and its description wrapped at 79 columns.
inline void PrintOwnFlags(const char* usage, const char* source_file) {
  std::printf("%s\n\nFlags:\n", usage);
  std::vector<gflags::CommandLineFlagInfo> flags;
  gflags::GetAllFlags(&flags);
  for (const gflags::CommandLineFlagInfo& f : flags) {
    if (f.filename != source_file) continue;
    const std::string value = f.type == "string" ? "'" + f.default_value + "'" : f.default_value;
    std::printf("  --%s=%s\n", f.name.c_str(), value.c_str());
    std::string line = "     ";
    size_t start = 0;
    while (start < f.description.size()) {
      size_t end = f.description.find(' ', start);
      if (end == std::string::npos) end = f.description.size();
      const std::string word = f.description.substr(start, end - start);
      if (line.size() + 1 + word.size() > 79) {
        std::printf("%s\n", line.c_str());
        line = "     ";
      }
      line += " " + word;
      start = end + 1;
    }
    if (line.size() > 5) std::printf("%s\n", line.c_str());
  }
}

// The start of every benchmark's main: --help with only the program's own
// flags (exit 0), gflags parsing, no positional arguments, and the
// --allocator flag (re-executes under jemalloc; allocator.h). A usage error
// exits with status 2 and a message. `allocator` is the program's
// FLAGS_allocator, read after parsing.
// The running benchmark's name, for its messages; StartBenchmark sets it.
inline const char*& ProgramName() {
  static const char* name = "bench";
  return name;
}

// Prints "[program] ERROR: message" and exits with status 2.
[[noreturn]] inline void Fatal(const std::string& message) {
  std::fprintf(stderr, "[%s] ERROR: %s\n", ProgramName(), message.c_str());
  std::exit(2);
}

inline void StartBenchmark(int* argc, char*** argv, const char* program, const char* usage,
                           const char* source_file, const std::string& allocator) {
  ProgramName() = program;
  const std::vector<char*> original_argv(*argv, *argv + *argc + 1);
  if (WantsHelp(*argc, *argv)) {
    PrintOwnFlags(usage, source_file);
    std::exit(0);
  }
  gflags::SetUsageMessage(usage);
  gflags::ParseCommandLineFlags(argc, argv, true);
  std::string error;
  if (*argc > 1) {
    error = std::string("unexpected argument '") + (*argv)[1] + "'";
  } else {
    UseAllocator(allocator, const_cast<char**>(original_argv.data()), &error);
  }
  if (!error.empty()) Fatal(error);
}

}  // namespace sstfilter::bench
