#!/usr/bin/env bash
# Installs sstfilter from BUILD_DIR into a prefix under it and builds
# tests/consumer/app.cc against that prefix three ways, each run on a fresh
# database: find_package(sstfilter) + sstfilter::sstfilter, pkg-config
# --cflags --libs sstfilter, and a plain `g++ app.cc -lrocksdb -lsstfilter`
# with -Wl,--as-needed (the link that drops a library nothing calls). Also
# checks that the README's C++ snippet is app.cc's, and that Debian's stock
# ldb and sst_dump, without the plugin, read the database it wrote.
#
#   tests/consumer_test.sh SOURCE_DIR BUILD_DIR [ROCKSDB_PC_DIR]
#
# ROCKSDB_PC_DIR: where the rocksdb.pc the build used lives, when it is not
# on pkg-config's default path (a RocksDB built from source).
set -euo pipefail
SRC="$1"; BUILD="$2"; ROCKSDB_PC_DIR="${3:-}"
[ -z "$ROCKSDB_PC_DIR" ] || export PKG_CONFIG_PATH="$ROCKSDB_PC_DIR${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
ROCKSDB_INCLUDE="$(pkg-config --variable=includedir rocksdb)"
ROCKSDB_LIB="$(pkg-config --variable=libdir rocksdb)"
. "$SRC/scripts/lib/rocksdb_std.sh"
STD="$(rocksdb_cxx_std "$(pkg-config --modversion rocksdb)")"
WORK="$BUILD/consumer"
PREFIX="$WORK/install prefix"  # a space: the paths must be quoted everywhere
rm -rf "$WORK"; mkdir -p "$WORK"
step() { printf '== %s\n' "$*"; }

step "README snippet is app.cc's"
snippet() { sed -n '/\[readme-snippet\]/,/\[readme-snippet\]/p' "$1" | sed '1d;$d' | sed 's/^ *//'; }
readme="$(sed -n '/^```c++/,/^```/p' "$SRC/README.md" | sed 's/^ *//')"
while IFS= read -r line; do
  grep -qxF -- "$line" <<<"$readme" || { echo "README lacks app.cc's line: $line"; exit 1; }
done < <(snippet "$SRC/tests/consumer/app.cc")

step "install"
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
ls "$PREFIX"/lib*/libsstfilter.so.* "$PREFIX/include/sstfilter/sstfilter.h" "$PREFIX/bin/sstfilter" >/dev/null
# Without LD_LIBRARY_PATH: the installed tool and library find RocksDB
# where they were linked against it, also when it is not a system library.
env -u LD_LIBRARY_PATH "$PREFIX/bin/sstfilter" help >/dev/null

step "find_package(sstfilter)"
cmake -S "$SRC/tests/consumer" -B "$WORK/cmake" -DCMAKE_PREFIX_PATH="$PREFIX" >/dev/null
cmake --build "$WORK/cmake" >/dev/null
LD_LIBRARY_PATH="$ROCKSDB_LIB" "$WORK/cmake/app" "$WORK/db-cmake"

LIBDIR="$(dirname "$(ls "$PREFIX"/lib*/libsstfilter.so | head -n1)")"
step "pkg-config sstfilter"
flags="$(PKG_CONFIG_PATH="$LIBDIR/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" pkg-config --cflags --libs sstfilter)"
# pkg-config escapes the spaces of a path ("\ "): the shell must read them.
eval "flags=($flags)"
g++ -std=$STD "$SRC/tests/consumer/app.cc" -o "$WORK/app-pc" "${flags[@]}"
LD_LIBRARY_PATH="$LIBDIR:$ROCKSDB_LIB" "$WORK/app-pc" "$WORK/db-pc"

step "g++ app.cc -lrocksdb -lsstfilter with --as-needed"
g++ -std=$STD -Wl,--as-needed "$SRC/tests/consumer/app.cc" -o "$WORK/app-plain" \
  -I"$PREFIX/include" -I"$ROCKSDB_INCLUDE" -L"$LIBDIR" -L"$ROCKSDB_LIB" -lrocksdb -lsstfilter
readelf -d "$WORK/app-plain" | grep -q 'libsstfilter' || { echo "linker dropped libsstfilter"; exit 1; }
LD_LIBRARY_PATH="$LIBDIR:$ROCKSDB_LIB" "$WORK/app-plain" "$WORK/db-plain"
step "stock RocksDB tools without the plugin read the database"
case "$ROCKSDB_LIB" in
  /usr/lib*) ;;
  *) echo "skipped: built against RocksDB $(pkg-config --modversion rocksdb) in $ROCKSDB_LIB," \
          "and the stock ldb and sst_dump are Debian's"
     step "all consumer builds passed"; exit 0 ;;
esac
# The OPTIONS file names sstfilter.Ribbon, which these tools do not know:
# they must still find every key (the app wrote 10000).
n="$(ldb --db="$WORK/db-plain" scan 2>/dev/null | wc -l)"
[ "$n" = 10000 ] || { echo "ldb scan found $n of 10000 keys"; exit 1; }
n="$(ldb --db="$WORK/db-plain" --try_load_options scan 2>/dev/null | wc -l)"
[ "$n" = 10000 ] || { echo "ldb --try_load_options scan found $n of 10000 keys"; exit 1; }
[ "$(ldb --db="$WORK/db-plain" get key4 2>/dev/null)" = v ] || { echo "ldb get key4 failed"; exit 1; }
sst_dump --file="$WORK/db-plain" --command=check >/dev/null
step "all consumer builds passed"
