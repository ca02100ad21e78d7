#include "plugin/rocksdb/option_types.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace sstfilter {

using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::OptionType;
using ROCKSDB_NAMESPACE::OptionTypeFlags;
using ROCKSDB_NAMESPACE::OptionTypeInfo;
using ROCKSDB_NAMESPACE::OptionVerificationType;
using ROCKSDB_NAMESPACE::Status;

namespace {

Status SerializeDouble(const ConfigOptions&, const std::string&, const void* addr,
                       std::string* value) {
  // Unset options serialize as "", which RocksDB leaves out entirely.
  const double v = *static_cast<const double*>(addr);
  *value = std::isnan(v) ? std::string() : FormatDouble(v);
  return Status::OK();
}

bool DoublesEqual(const ConfigOptions&, const std::string&, const void* a,
                  const void* b, std::string*) {
  const double x = *static_cast<const double*>(a);
  const double y = *static_cast<const double*>(b);
  return x == y || (std::isnan(x) && std::isnan(y));
}

}  // namespace

bool ParseFiniteDouble(const std::string& s, double* out) {
  if (s.empty() || s.size() > 64) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

// std::to_chars without a format gives the shortest string that reads back
// to exactly `v`, plain or scientific, whichever is shorter: "10" (where the
// shortest %g is "1e+01"), "0.01", "1e-07".
std::string FormatDouble(double v) {
  char buf[64];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

OptionTypeInfo DoubleOption(int offset, Status (*parse)(const std::string&, double*)) {
  // Named std::function objects: GCC 12 warns (-Wmaybe-uninitialized, a
  // false positive) when temporaries built from lambdas are copied here.
  const ROCKSDB_NAMESPACE::ParseFunc parse_func =
      [parse](const ConfigOptions&, const std::string&, const std::string& value,
              void* addr) { return parse(value, static_cast<double*>(addr)); };
  const ROCKSDB_NAMESPACE::SerializeFunc serialize_func = SerializeDouble;
  const ROCKSDB_NAMESPACE::EqualsFunc equals_func = DoublesEqual;
  return OptionTypeInfo(offset, OptionType::kUnknown, OptionVerificationType::kNormal,
                        OptionTypeFlags::kNone, parse_func, serialize_func, equals_func);
}

}  // namespace sstfilter
