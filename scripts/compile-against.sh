#!/usr/bin/env bash
# Compiles (g++ -fsyntax-only) this repository's C++ files against other
# RocksDB releases, each at the C++ standard it requires (C++20 from 10.7
# on): the quick check that every version difference is behind
# plugin/rocksdb/compat.h or api_compat.h. No RocksDB build. One summary line
# per version.
#
#   bash scripts/compile-against.sh [--plugin] MIRROR_GIT_DIR TAG...   e.g.
#   bash scripts/compile-against.sh /path/to/rocksdb.git v9.10.0 v10.10.1 v11.8.1
#   bash scripts/compile-against.sh [--plugin] --tree DIR...          (source trees)
#
# By default every file that includes RocksDB (plugin, tools, bench, tests),
# warnings off: about 3 minutes per version on 2 cores. --plugin: only the
# sources the plugin ships (sstfilter.mk), the way RocksDB's make compiles
# plugin sources (its warning flags, -fno-rtti of release builds, NDEBUG),
# printing every warning: seconds. build-in-rocksdb.sh --compile-only runs it.
#
# A tag is extracted (include/ and the one internal header) from a git
# mirror of facebook/rocksdb into .deps/rocksdb-headers/<tag>.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/lib/rocksdb_std.sh"
cd "$ROOT"
INTERNAL=table/block_based/filter_policy_internal.h

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
PLUGIN=0
if [ "${1:-}" = --plugin ]; then PLUGIN=1; shift; fi
trees=()
if [ "${1:-}" = --tree ]; then
  shift; trees=("$@")
  [ $# -ge 1 ] || usage
else
  [ $# -ge 2 ] || usage
  mirror="$1"; shift
  for tag in "$@"; do
    dir=".deps/rocksdb-headers/$tag"
    if [ ! -f "$dir/$INTERNAL" ]; then
      mkdir -p "$dir"
      git --git-dir="$mirror" archive "$tag" include "$INTERNAL" | tar -x -C "$dir"
    fi
    trees+=("$dir")
  done
fi

# The files to check, and the flags beyond -std and the include paths.
if [ "$PLUGIN" = 1 ]; then
  files=($(sed -n 's/^sstfilter_SOURCES = //p' sstfilter.mk))
  [ "${#files[@]}" -gt 0 ] || { echo "no sstfilter_SOURCES line in sstfilter.mk" >&2; exit 2; }
  # RocksDB's make adds the plugin's directory and RocksDB's own to the
  # include path, not this repository's include/.
  includes=(-I.)
  flags=(-fno-rtti -DNDEBUG -DROCKSDB_PLATFORM_POSIX -DROCKSDB_LIB_IO_POSIX -DOS_LINUX
         -W -Wextra -Wall -Wsign-compare -Wshadow -Wunused-parameter -Woverloaded-virtual
         -Wnon-virtual-dtor -Wno-missing-field-initializers)
else
  files=()
  for f in $(git ls-files '*.cc'); do
    case "$f" in tests/consumer/*) continue ;; esac
    grep -qE 'rocksdb/|plugin/rocksdb/|plugin/tools/|bench/' "$f" && files+=("$f")
  done
  includes=(-I. -Iinclude)
  flags=(-w -DSSTFILTER_SOURCE_DIR='"."' -DSSTFILTER_TOOL='"sstfilter"')
fi

status=0
err="$(mktemp)"
trap 'rm -f "$err"' EXIT
for tree in "${trees[@]}"; do
  v="$(sed -n 's/^#define ROCKSDB_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' "$tree/include/rocksdb/version.h" | paste -sd.)"
  std="$(rocksdb_cxx_std "$v")"
  failed=(); warned=0
  for f in "${files[@]}"; do
    if ! g++ -std="$std" -fsyntax-only "${flags[@]}" -I"$tree/include" -I"$tree" "${includes[@]}" \
        "$f" 2>"$err"; then
      failed+=("$f: $(grep -m1 'error' "$err" | cut -c1-160 || true)")
      [ "$PLUGIN" = 0 ] || cat "$err" >&2
    elif [ -s "$err" ]; then
      warned=$((warned + 1)); echo "warnings: $f" >&2; cat "$err" >&2
    fi
  done
  line="RESULT rocksdb=$v std=$std files=${#files[@]} failed=${#failed[@]}"
  if [ "$PLUGIN" = 1 ]; then echo "$line warned=$warned"; else echo "$line"; fi
  for f in "${failed[@]}"; do echo "  $f"; done
  [ "${#failed[@]}" -eq 0 ] || status=1
done
exit $status
