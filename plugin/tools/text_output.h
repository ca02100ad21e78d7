// Plain-text output helpers shared by the sstfilter subcommands: aligned
// tables and human-readable numbers.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace sstfilter::tools {

// Columns separated by two spaces; the first `left_columns` columns are
// left-aligned (names), the rest right-aligned (numbers).
class TextTable {
 public:
  TextTable(std::vector<std::string> header, size_t left_columns)
      : header_(std::move(header)), left_columns_(left_columns) {}
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void Print(std::ostream& out) const;

 private:
  std::vector<std::string> header_;
  size_t left_columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Decimal units, as disk and memory budgets are usually quoted:
// "999 B", "1.50 kB", "119.9 MB", "1.20 GB" (1 MB = 10^6 bytes).
std::string HumanBytes(uint64_t bytes);

// 100000000 -> "100,000,000".
std::string GroupedCount(uint64_t n);

// printf-style formatting of one number; "nan" / "inf" spelled out.
std::string FormatNumber(double value, const char* format);

}  // namespace sstfilter::tools
