#include "bench/gnuplot.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "bench/flag_help.h"

extern char** environ;

namespace sstfilter::bench {
namespace {

// A gnuplot single-quoted string holding `text`: gnuplot reads '' there as
// one quote and nothing else as special.
std::string Quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace

void RunGnuplot(const std::string& script,
                const std::vector<std::pair<std::string, std::string>>& strings,
                const std::vector<std::pair<std::string, int>>& numbers) {
  std::string settings;
  auto set = [&](const std::string& name, const std::string& value) {
    settings += (settings.empty() ? "" : "; ") + name + "=" + value;
  };
  for (const auto& [name, value] : strings) set(name, Quoted(value));
  for (const auto& [name, value] : numbers) set(name, std::to_string(value));
  const std::string path = std::string(SSTFILTER_SOURCE_DIR) + "/bench/" + script;
  const std::string shown = "gnuplot -e \"" + settings + "\" " + path;

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> args = {"gnuplot", "-e", settings, path};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "gnuplot", nullptr, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) {
    Fatal("plot failed: cannot run gnuplot (" + std::string(std::strerror(spawned)) + "): " + shown);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) Fatal("plot failed: lost gnuplot: " + shown);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) Fatal("plot failed: " + shown);
}

}  // namespace sstfilter::bench
