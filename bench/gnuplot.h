// Drawing a benchmark's CSV with one of bench/'s gnuplot scripts.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace sstfilter::bench {

// Runs gnuplot on bench/<script> (found through the source directory the
// binary was built from) with each (name, value) of `strings` set as a
// gnuplot string variable first, and each of `numbers` as a number. No
// shell: any path is passed as it is. No signal blocked or ignored: a
// benchmark that blocks SIGINT for its own clean-up thread does not pass
// that on, so Ctrl-C stops the plot with the run. Exits with a message
// when gnuplot cannot start or fails.
void RunGnuplot(const std::string& script,
                const std::vector<std::pair<std::string, std::string>>& strings,
                const std::vector<std::pair<std::string, int>>& numbers = {});

}  // namespace sstfilter::bench
