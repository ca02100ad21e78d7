#!/usr/bin/env bash
# ctest internal_header_only_where_used: RocksDB's internal filter header
# (table/block_based/filter_policy_internal.h) is included by
# plugin/rocksdb/compat.h alone, and compat.h only by files that build or
# read filter bits themselves (they name FilterBitsBuilder, FilterBitsReader
# or one of compat.h's own names). Everything else that needs a version
# difference includes plugin/rocksdb/api_compat.h, RocksDB's public API.
#
#   bash tests/include_check.sh SOURCE_DIR
set -euo pipefail
cd "${1:?usage: include_check.sh SOURCE_DIR}"
status=0
files="$(git ls-files 2>/dev/null | grep -E '\.(h|cc)$' || find plugin bench tests -name '*.h' -o -name '*.cc')"
for f in $files; do
  [ -f "$f" ] || continue
  if grep -q '^#include "table/block_based/filter_policy_internal.h"' "$f" &&
     [ "$f" != plugin/rocksdb/compat.h ]; then
    echo "FAIL: $f includes RocksDB's internal filter header (only plugin/rocksdb/compat.h may)"
    status=1
  fi
  if grep -q '^#include "plugin/rocksdb/compat.h"' "$f" &&
     ! grep -qE 'FilterBitsBuilder|FilterBitsReader|ModelledBuilder|WithSpaceModel|SSTF_HAS_ADD_KEY_AND_ALT|SSTF_OVERRIDE_SPACE_METHODS' "$f"; then
    echo "FAIL: $f includes plugin/rocksdb/compat.h but uses none of RocksDB's internal filter interface: include plugin/rocksdb/api_compat.h"
    status=1
  fi
done
n="$(grep -lE '^#include "plugin/rocksdb/compat.h"' $files 2>/dev/null | wc -l)"
[ "$status" -ne 0 ] || echo "ok: $n files include compat.h, each uses the internal filter interface"
exit "$status"
