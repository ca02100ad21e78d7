#!/usr/bin/env bash
# ctest internal_header_only_in_the_adapter: RocksDB's internal filter header
# (table/block_based/filter_policy_internal.h) is reachable from the
# builder/reader adapter alone:
# - plugin/rocksdb/compat.h includes it, and nothing else does;
# - compat.h and the headers that include it (bits_builder.h, bits_reader.h)
#   are included by plugin/rocksdb/ sources and by the adapter's own tests
#   (ADAPTER_TESTS below: they test those classes themselves), and by no
#   other header, so that no header the rest includes reaches them;
# - compat.h's includers use the internal interface.
# Tools, benchmarks and other tests build and query filters through
# plugin/rocksdb/filter_bits.h and open databases through api_compat.h,
# RocksDB's public API.
#
#   bash tests/include_check.sh SOURCE_DIR
set -euo pipefail
cd "${1:?usage: include_check.sh SOURCE_DIR}"
ADAPTER_TESTS="tests/alloc_fit_policy_test.cc tests/bits_reader_test.cc tests/concurrency_test.cc
  tests/family_reader_test.cc
  tests/construction_check_test.cc tests/fuzz/builder_fuzzer.cc tests/fuzz/reader_fuzzer.cc"
status=0
files="$(git ls-files -co --exclude-standard 2>/dev/null | grep -E '\.(h|cc)$' ||
         find plugin bench tests -name '*.h' -o -name '*.cc')"
for f in $files; do
  [ -f "$f" ] || continue
  if grep -q '^#include "table/block_based/filter_policy_internal.h"' "$f" &&
     [ "$f" != plugin/rocksdb/compat.h ]; then
    echo "FAIL: $f includes RocksDB's internal filter header (only plugin/rocksdb/compat.h may)"
    status=1
  fi
  if grep -qE '^#include "plugin/rocksdb/(compat|bits_builder|bits_reader)\.h"' "$f"; then
    case "$f" in
      plugin/rocksdb/compat.h | plugin/rocksdb/bits_builder.h | plugin/rocksdb/bits_reader.h) ;;
      plugin/rocksdb/*.h)
        echo "FAIL: $f, a header, includes compat.h, bits_builder.h or bits_reader.h: whoever includes it then reaches RocksDB's internal filter header"
        status=1 ;;
      plugin/rocksdb/*) ;;
      *) if ! [[ " $(echo $ADAPTER_TESTS) " == *" $f "* ]]; then
           echo "FAIL: $f reaches RocksDB's internal filter header (compat.h, bits_builder.h or bits_reader.h): use plugin/rocksdb/filter_bits.h or api_compat.h"
           status=1
         fi ;;
    esac
  fi
  if grep -q '^#include "plugin/rocksdb/compat.h"' "$f" &&
     ! grep -qE 'FilterBitsBuilder|FilterBitsReader|ModelledBuilder|WithSpaceModel|SSTF_HAS_ADD_KEY_AND_ALT|SSTF_OVERRIDE_SPACE_METHODS' "$f"; then
    echo "FAIL: $f includes plugin/rocksdb/compat.h but uses none of RocksDB's internal filter interface: include plugin/rocksdb/api_compat.h"
    status=1
  fi
done
reach="$( (grep -lsE '^#include "plugin/rocksdb/(compat|bits_builder|bits_reader)\.h"' $files || true) | wc -l)"
[ "$status" -ne 0 ] || echo "ok: $reach files reach the internal header, all in plugin/rocksdb/ or the adapter's own tests"
exit "$status"
