#!/usr/bin/env bash
# Compiles (g++ -fsyntax-only) every C++ file of this repository that
# includes RocksDB against the headers of other RocksDB releases, each at
# the C++ standard it requires (C++20 from 10.7 on): the quick check that
# every version difference is behind plugin/rocksdb/compat.h or
# api_compat.h. About 3 minutes per version on 2 cores, no RocksDB build.
# One summary line per version.
#
#   bash scripts/compile-against.sh MIRROR_GIT_DIR TAG...     e.g.
#   bash scripts/compile-against.sh /path/to/rocksdb.git v9.10.0 v10.10.1 v11.8.1
#   bash scripts/compile-against.sh --tree DIR...              (source trees)
#
# A tag is extracted (include/ and the one internal header) from a git
# mirror of facebook/rocksdb into .deps/rocksdb-headers/<tag>.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/lib/rocksdb_std.sh"
cd "$ROOT"
INTERNAL=table/block_based/filter_policy_internal.h

trees=()
if [ "${1:-}" = --tree ]; then
  shift; trees=("$@")
else
  [ $# -ge 2 ] || { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
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

status=0
for tree in "${trees[@]}"; do
  v="$(sed -n 's/^#define ROCKSDB_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' "$tree/include/rocksdb/version.h" | paste -sd.)"
  std="$(rocksdb_cxx_std "$v")"
  n=0; failed=()
  for f in $(git ls-files '*.cc' '*.h'); do
    case "$f" in *.h) continue ;; tests/consumer/*) continue ;; esac
    grep -qE 'rocksdb/|plugin/rocksdb/|plugin/tools/|bench/' "$f" || continue
    n=$((n + 1))
    if ! g++ -std=$std -fsyntax-only -w -DSSTFILTER_SOURCE_DIR='"."' -DSSTFILTER_TOOL='"sstfilter"' \
        -I"$tree/include" -I"$tree" -I. -Iinclude "$f" 2>/tmp/compile-against.err; then
      failed+=("$f: $(grep -m1 'error' /tmp/compile-against.err | cut -c1-160)")
    fi
  done
  echo "RESULT rocksdb=$v std=$std files=$n failed=${#failed[@]}"
  for line in "${failed[@]}"; do echo "  $line"; done
  [ "${#failed[@]}" -eq 0 ] || status=1
done
exit $status
