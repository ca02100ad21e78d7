#include "plugin/tools/json_writer.h"

#include <cmath>
#include <cstdio>

namespace sstfilter::tools {

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_items_.empty()) {
    if (has_items_.back()) out_ << ",";
    has_items_.back() = true;
    out_ << "\n" << std::string(2 * has_items_.size(), ' ');
  }
}

JsonWriter& JsonWriter::Open(char bracket) {
  BeforeValue();
  out_ << bracket;
  has_items_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::Close(char bracket) {
  const bool had_items = !has_items_.empty() && has_items_.back();
  if (!has_items_.empty()) has_items_.pop_back();
  if (had_items) out_ << "\n" << std::string(2 * has_items_.size(), ' ');
  out_ << bracket;
  return *this;
}

JsonWriter& JsonWriter::Key(const std::string& key) {
  BeforeValue();
  WriteEscaped(key);
  out_ << ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(const std::string& value) {
  BeforeValue();
  WriteEscaped(value);
  return *this;
}

JsonWriter& JsonWriter::Number(double value) {
  if (!std::isfinite(value)) return Null();
  BeforeValue();
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.10g", value);
  out_ << buf;
  return *this;
}

JsonWriter& JsonWriter::Int(uint64_t value) {
  BeforeValue();
  out_ << value;
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ << (value ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ << "null";
  return *this;
}

// File names and RocksDB messages may hold any byte: control characters
// are escaped, other bytes pass through (UTF-8 stays UTF-8).
void JsonWriter::WriteEscaped(const std::string& s) {
  out_ << '"';
  for (const char ch : s) {
    switch (ch) {
      case '"': out_ << "\\\""; break;
      case '\\': out_ << "\\\\"; break;
      case '\n': out_ << "\\n"; break;
      case '\r': out_ << "\\r"; break;
      case '\t': out_ << "\\t"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned char>(ch));
          out_ << buf;
        } else {
          out_ << ch;
        }
    }
  }
  out_ << '"';
}

}  // namespace sstfilter::tools
