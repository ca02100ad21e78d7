// The CSV files the benchmarks write (--csv): one header line naming the
// columns, then one line per row, cells separated by commas.
#pragma once

#include <cstddef>
#include <cstdio>
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

inline std::vector<std::string> ColumnNames(const CsvRow& row) {
  std::vector<std::string> names;
  for (const auto& cell : row) names.push_back(cell.first);
  return names;
}

inline std::vector<std::string> Cells(const CsvRow& row) {
  std::vector<std::string> cells;
  for (const auto& cell : row) cells.push_back(cell.second);
  return cells;
}

// Writes `preamble` (comment lines starting with '#', or nothing), the
// column names (no line if there are none), then every row. A
// regular file (or a new one) is written as path.partial and renamed to
// path once complete, so a plot or script never reads half a file; anything
// else (/dev/stdout, a pipe) is written directly. False on any I/O error.
// No cell may hold a comma.
inline bool WriteCsv(const std::string& path, const std::vector<std::string>& columns,
                     const std::vector<std::vector<std::string>>& rows,
                     const std::string& preamble = "") {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  const bool direct = !ec && std::filesystem::exists(status) &&
                      !std::filesystem::is_regular_file(status);
  const std::string target = direct ? path : path + ".partial";
  {
    std::ofstream out(target);
    if (!out) return false;
    out << preamble;
    for (size_t c = 0; c < columns.size(); ++c) out << (c ? "," : "") << columns[c];
    if (!columns.empty()) out << "\n";
    for (const std::vector<std::string>& row : rows) {
      for (size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << row[c];
      out << "\n";
    }
    if (!out.flush()) {
      if (!direct) std::remove(target.c_str());
      return false;
    }
  }
  if (direct) return true;
  std::filesystem::rename(target, path, ec);
  return !ec;
}

}  // namespace sstfilter::bench
