// A minimal streaming JSON writer for the subcommands' --json output:
// objects, arrays, strings (escaped), numbers (NaN and infinities become
// null) and booleans, with commas placed automatically.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace sstfilter::tools {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}
  ~JsonWriter() { out_ << "\n"; }

  JsonWriter& BeginObject() { return Open('{'); }
  JsonWriter& EndObject() { return Close('}'); }
  JsonWriter& BeginArray() { return Open('['); }
  JsonWriter& EndArray() { return Close(']'); }
  // The key of the next value inside an object.
  JsonWriter& Key(const std::string& key);
  JsonWriter& String(const std::string& value);
  JsonWriter& Number(double value);
  JsonWriter& Int(uint64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

 private:
  JsonWriter& Open(char bracket);
  JsonWriter& Close(char bracket);
  void BeforeValue();
  void WriteEscaped(const std::string& s);

  std::ostream& out_;
  std::vector<bool> has_items_;  // per open container
  bool after_key_ = false;
};

}  // namespace sstfilter::tools
