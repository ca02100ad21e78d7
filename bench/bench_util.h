// Small helpers shared by the benchmarks (filter_bench, lsm_bench).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace sstfilter::bench {

// "a,b,,c" -> {"a", "b", "", "c"}: empty items are kept so callers can
// refuse them with a message naming the flag.
inline std::vector<std::string> SplitCommas(const std::string& list) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    parts.push_back(list.substr(start, comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

// Parses a --bits_per_key list into (text as typed, value) pairs; the text
// is kept so ids and CSV rows show exactly what the user wrote. Returns
// false and sets *bad to the first item that is not a positive finite
// number.
inline bool ParseBitsPerKeyList(const std::string& list,
                                std::vector<std::pair<std::string, double>>* out,
                                std::string* bad) {
  for (const std::string& token : SplitCommas(list)) {
    char* end = nullptr;
    const double value = std::strtod(token.c_str(), &end);
    if (token.empty() || *end != '\0' || !std::isfinite(value) || value <= 0) {
      *bad = token;
      return false;
    }
    out->emplace_back(token, value);
  }
  return true;
}

// The id a benchmark creates a registered policy from: "name:<param>", or
// for "name/opt=v/opt2=w" (policy options, e.g.
// sstfilter.LevelAware/bottommost_bits_per_key=0)
// "{id=name;bits_per_key=<param>;opt=v;opt2=w}".
inline std::string PolicyIdWithBudget(const std::string& filter, const std::string& param) {
  const size_t slash = filter.find('/');
  if (slash == std::string::npos) return filter + ":" + param;
  std::string opts = filter.substr(slash + 1);
  for (char& c : opts) c = c == '/' ? ';' : c;
  return "{id=" + filter.substr(0, slash) + ";bits_per_key=" + param + ";" + opts + "}";
}

// splitmix64's finalizer: a bijection on 64-bit values, so distinct indices
// give distinct keys, while consecutive indices differ in every byte.
inline uint64_t Mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace sstfilter::bench
