// Numeric policy options for RocksDB's options machinery: strict parsing,
// shortest round-trip serialization, "unset" as NaN. Shared by every
// sstfilter policy class.
#pragma once

#include <string>

#include <rocksdb/status.h>
#include <rocksdb/utilities/options_type.h>

namespace sstfilter {

// Strict decimal: the whole string, finite. "10", "6.5", "1e-3" pass;
// "", "10x", "nan", "inf" do not.
bool ParseFiniteDouble(const std::string& s, double* out);

// Shortest decimal that parses back to exactly `v`, so OPTIONS files keep
// what the user wrote ("10", "0.01") and round-trip exactly.
std::string FormatDouble(double v);

// A double option at `offset` of the registered struct, parsed by `parse`
// (which validates and returns InvalidArgument with a clear message); NaN
// means unset and serializes as "", which RocksDB leaves out.
ROCKSDB_NAMESPACE::OptionTypeInfo DoubleOption(
    int offset, ROCKSDB_NAMESPACE::Status (*parse)(const std::string&, double*));

}  // namespace sstfilter
