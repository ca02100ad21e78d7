// Small helpers shared by the benchmarks: list flags and key mixing.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "plugin/core/hash.h"

namespace sstfilter::bench {

using sstfilter::Mix64;  // keys and indices: plugin/core/hash.h

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

}  // namespace sstfilter::bench
