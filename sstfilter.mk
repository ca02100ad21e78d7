# sstfilter as a RocksDB plugin: the one list of its library sources.
#
# Read by three builds, so keep every assignment on ONE line with exactly
# " = " and no continuation:
# - RocksDB's make (ROCKSDB_PLUGINS=sstfilter) includes plugin/sstfilter/*.mk,
#   i.e. this file and rocksdb_plugin.mk, and prefixes each source with
#   plugin/sstfilter/.
# - RocksDB's CMake requires this file and regex-parses the first lines that
#   contain "SOURCES" and "_FUNC" followed by the assignment, so no comment
#   here may spell either one followed by " = ".
# - Our own CMakeLists.txt (standalone build) reads the source line too:
#   plugin/core/ files form the core library, plugin/rocksdb/ files the adapter.
#   plugin/rocksdb/filter_bits.cc is not listed: it serves the tools,
#   benchmarks and tests (it needs RTTI), and only CMakeLists.txt builds it.
# Paths are relative to the repository root. Make-only settings live in
# rocksdb_plugin.mk; define each variable in only one of the two files.
sstfilter_SOURCES = plugin/core/alloc_fit.cc plugin/core/block_allocation.cc plugin/core/bloom_math.cc plugin/core/filter_builder.cc plugin/core/format.cc plugin/core/standard_bloom_builder.cc plugin/core/blocked_bloom_builder.cc plugin/core/blocked_bloom_kernels.cc plugin/core/blocked_bloom_avx2.cc plugin/core/blocked_bloom_avx512.cc plugin/core/ribbon_builder.cc plugin/core/level_allocation.cc plugin/core/lsm_shape.cc plugin/rocksdb/bits_builder.cc plugin/rocksdb/cache_reservation.cc plugin/rocksdb/bits_reader.cc plugin/rocksdb/option_types.cc plugin/rocksdb/policy.cc plugin/rocksdb/level_aware_policy.cc plugin/rocksdb/shape_listener.cc plugin/rocksdb/register.cc
# The registrar RocksDB calls at start-up (plugin/rocksdb/register.h).
sstfilter_FUNC = RegisterSstFilter
