#!/usr/bin/env bash
# Compiles every plugin source of sstfilter.mk (what RocksDB's make and
# CMake build with ROCKSDB_PLUGINS=sstfilter) with the flags of RocksDB's
# release build that the standalone build does not use: -fno-rtti and
# RocksDB's warnings, against RocksDB's source tree (-fsyntax-only: seconds,
# where the real in-tree build, scripts/build-in-rocksdb.sh, takes 20-40
# minutes and is not part of CI).
#
#   tests/in_tree_flags_test.sh SOURCE_DIR ROCKSDB_SOURCE_TREE CXX_STANDARD
set -euo pipefail
SRC="$1"; TREE="$2"; STD="$3"
n=0; failed=0
for f in $(sed -n 's/^sstfilter_SOURCES = //p' "$SRC/sstfilter.mk"); do
  n=$((n + 1))
  if ! g++ -std="c++$STD" -fsyntax-only -fno-rtti -DNDEBUG -DROCKSDB_PLATFORM_POSIX \
      -DROCKSDB_LIB_IO_POSIX -DOS_LINUX -W -Wextra -Wall -Wsign-compare -Wshadow \
      -Wunused-parameter -Woverloaded-virtual -Wnon-virtual-dtor -Wno-missing-field-initializers \
      -Werror -I"$SRC" -I"$TREE" -I"$TREE/include" "$SRC/$f"; then
    echo "FAILED: $f"; failed=$((failed + 1))
  fi
done
echo "$n plugin sources, $failed failed"
[ "$failed" = 0 ]
