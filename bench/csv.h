// The CSV files the benchmarks write (--csv): one header line naming the
// columns, then one line per row, cells separated by commas.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace sstfilter::bench {

// One row as (column name, cell) pairs in column order. A benchmark defines
// its columns in one function that returns this, so its table and its CSV
// cannot drift; every row of a file has the same columns.
using CsvRow = std::vector<std::pair<std::string, std::string>>;

// Writes `preamble` (comment lines starting with '#', or nothing), the
// column names of rows[0], then every row, to path.partial, and renames it
// to path once complete: a plot or script never reads half a file. False on
// any I/O error. No cell may hold a comma.
inline bool WriteCsv(const std::string& path, const std::vector<CsvRow>& rows,
                     const std::string& preamble = "") {
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial);
    if (!out) return false;
    out << preamble;
    if (!rows.empty()) {
      for (size_t c = 0; c < rows[0].size(); ++c) out << (c ? "," : "") << rows[0][c].first;
      out << "\n";
    }
    for (const CsvRow& row : rows) {
      for (size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << row[c].second;
      out << "\n";
    }
    if (!out.flush()) return false;
  }
  std::error_code ec;
  std::filesystem::rename(partial, path, ec);
  return !ec;
}

}  // namespace sstfilter::bench
