#!/usr/bin/env bash
# Builds and tests sstfilter against several RocksDB releases, the way a
# user who builds RocksDB from source would, and prints one row per version:
#
#   bash scripts/version-matrix.sh --mirror GIT_DIR [--jobs N]
#        [--skip-in-tree] [--skip-standalone] [--in-tree-with make,cmake]
#        VERSION...
#   e.g. bash scripts/version-matrix.sh --mirror /path/to/rocksdb.git \
#          7.8.3 9.10.0 10.10.1 11.8.1
#   or, with a RocksDB you built and installed yourself (shared, RTTI):
#        bash scripts/version-matrix.sh --tree SRC --prefix PREFIX VERSION
#
# For each VERSION:
#   1. RocksDB itself: 7.8.3 is Debian 12's package (scripts/setup.sh
#      installs it); any other version is extracted from a git mirror of
#      facebook/rocksdb (tag vVERSION) into .deps/rocksdb-matrix/VERSION/src
#      and built as a shared library with RTTI (the tests and tools use
#      dynamic_cast on RocksDB's builder classes before 10.9, see
#      plugin/rocksdb/compat.h; the adapter does not), installed into
#      .deps/rocksdb-matrix/VERSION/prefix. 20-40 minutes per version on 2
#      cores; done once (a stamp), so the script resumes. With --tree and
#      --prefix, the RocksDB given instead (its version.h must match).
#   2. standalone: CMake build of everything (library, tool, benchmarks,
#      tests) against it, at the C++ standard it needs, then the whole
#      ctest suite. Skipped tests are listed with their reasons.
#   3. in-tree: scripts/build-in-rocksdb.sh (make, ROCKSDB_PLUGINS=sstfilter,
#      static db_bench and sst_dump, every policy checked through db_bench
#      --options_file): Debian's source package for 7.8.3 and 9.10.0, the
#      extracted tree otherwise. Another 20-40 minutes per version.
#      --in-tree-with cmake (or make,cmake): the same with RocksDB's CMake
#      (-DROCKSDB_PLUGINS=sstfilter), 20-40 minutes more.
#
# Not part of CI (hours on 2 cores). Logs in .deps/rocksdb-matrix/VERSION/.
# Exit status 0 only if every step of every version passed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$ROOT/.deps/rocksdb-matrix"
MIRROR=""; JOBS=2; IN_TREE=1; STANDALONE=1; SYSTEMS=(make); VERSIONS=(); OWN_TREE=""; OWN_PREFIX=""
usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --mirror) MIRROR="${2:-}"; shift 2 ;;
    --jobs) JOBS="${2:-}"; shift 2 ;;
    --skip-in-tree) IN_TREE=0; shift ;;
    --skip-standalone) STANDALONE=0; shift ;;
    --in-tree-with)
      IFS=, read -r -a SYSTEMS <<< "${2:-}"; shift 2
      for s in "${SYSTEMS[@]}"; do
        case "$s" in make|cmake) ;; *) echo "--in-tree-with: make or cmake, not '$s'" >&2; usage ;; esac
      done
      [ "${#SYSTEMS[@]}" -gt 0 ] || usage ;;
    --tree) OWN_TREE="${2:-}"; shift 2 ;;
    --prefix) OWN_PREFIX="${2:-}"; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "unknown argument: $1" >&2; usage ;;
    *) VERSIONS+=("$1"); shift ;;
  esac
done
[ "${#VERSIONS[@]}" -gt 0 ] || usage
if [ -n "$OWN_TREE$OWN_PREFIX" ]; then
  [ -n "$OWN_TREE" ] && [ -n "$OWN_PREFIX" ] && [ "${#VERSIONS[@]}" = 1 ] ||
    { echo "--tree and --prefix go together, with one VERSION" >&2; usage; }
  OWN_TREE="$(cd "$OWN_TREE" && pwd)"; OWN_PREFIX="$(cd "$OWN_PREFIX" && pwd)"
fi
log() { printf '[version-matrix %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

. "$ROOT/scripts/lib/rocksdb_std.sh"

# Step 1: a RocksDB install prefix and source tree for $1; sets PREFIX, TREE.
rocksdb_for() {
  local v="$1" dir="$WORK/$1"
  if [ "$v" = 7.8.3 ]; then
    PREFIX=""; TREE="$ROOT/.deps/rocksdb-src"   # the system's, from setup.sh
    return 0
  fi
  if [ -n "$OWN_PREFIX" ]; then
    PREFIX="$OWN_PREFIX"; TREE="$OWN_TREE"
    local got
    got="$(sed -n 's/^#define ROCKSDB_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' \
             "$TREE/include/rocksdb/version.h" 2>/dev/null | paste -sd.)"
    [ "$got" = "$v" ] || { log "$v: --tree $TREE is RocksDB ${got:-?}, not $v"; return 1; }
    [ -f "$PREFIX/lib/pkgconfig/rocksdb.pc" ] ||
      { log "$v: --prefix $PREFIX has no lib/pkgconfig/rocksdb.pc"; return 1; }
    return 0
  fi
  PREFIX="$dir/prefix"; TREE="$dir/src"
  [ -f "$dir/stamp.installed" ] && return 0
  [ -n "$MIRROR" ] || { log "$v: needs --mirror to extract v$v"; return 1; }
  if [ ! -f "$TREE/include/rocksdb/version.h" ]; then
    log "$v: extracting v$v from $MIRROR"
    mkdir -p "$TREE"
    git --git-dir="$MIRROR" archive "v$v" | tar -x -C "$TREE"
  fi
  log "$v: building RocksDB (shared, RTTI; log ${dir#$ROOT/}/rocksdb-build.log)"
  local std; std="$(rocksdb_cxx_std "$v")"
  if ! make -C "$TREE" -j"$JOBS" DEBUG_LEVEL=0 USE_RTTI=1 DISABLE_WARNING_AS_ERROR=1 \
        PREFIX="$PREFIX" shared_lib install-shared > "$dir/rocksdb-build.log" 2>&1; then
    log "$v: RocksDB build failed (C++ standard $std), see ${dir#$ROOT/}/rocksdb-build.log"
    return 1
  fi
  date -u +%FT%TZ > "$dir/stamp.installed"
}

# Step 2: standalone build and the whole test suite; sets STANDALONE_RESULT.
standalone() {
  local v="$1" dir="$WORK/$1" build="$WORK/$1/build"
  local args=(-DCMAKE_BUILD_TYPE=Release -DSSTFILTER_ROCKSDB_SOURCE="$TREE")
  local env=()
  if [ -n "$PREFIX" ]; then
    args+=(-DCMAKE_PREFIX_PATH="$PREFIX")
    env=(PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig")
  fi
  log "$v: standalone build (log ${dir#$ROOT/}/standalone.log)"
  if ! env "${env[@]}" cmake -S "$ROOT" -B "$build" "${args[@]}" > "$dir/standalone.log" 2>&1 ||
     ! cmake --build "$build" -j"$JOBS" >> "$dir/standalone.log" 2>&1; then
    STANDALONE_RESULT="build FAILED"; return 1
  fi
  log "$v: ctest (log ${dir#$ROOT/}/ctest.log)"
  local rc=0
  ( cd "$build" && ctest -j"$JOBS" --timeout 1800 ) > "$dir/ctest.log" 2>&1 || rc=$?
  local summary skipped
  summary="$(grep -E '^[0-9]+% tests passed' "$dir/ctest.log" || echo 'no ctest summary')"
  skipped="$(grep -c '(Skipped)' "$dir/ctest.log" || true)"
  STANDALONE_RESULT="$summary, $skipped skipped"
  if [ "$skipped" != 0 ]; then
    # Each skip's reason, from the test's own message; by test number, since
    # a parameterised test's name holds its parameter's bytes.
    grep '(Skipped)' "$dir/ctest.log" |
      sed -n 's/^[[:space:]]*\([0-9][0-9]*\) - \(.*\) (Skipped)$/\1 \2/p' | while read -r n t; do
      reason="$(cd "$build" && ctest -I "$n,$n" -V 2>/dev/null |
                grep -A1 -m1 ': Skipped$' | tail -n1 | sed 's/^[0-9]*: //')"
      log "$v: skipped ${t%%  #*}: ${reason:-?}"
    done
  fi
  [ "$rc" = 0 ]
}

# Step 3: the in-tree builds (make, or as --in-tree-with says) with the
# db_bench check; sets IN_TREE_RESULT.
in_tree() {
  local v="$1" dir="$WORK/$1" how=() rc=0 system log result
  case "$v" in
    7.8.3|9.10.0) how=(--version "$v") ;;
    *) how=(--source "$TREE") ;;
  esac
  IN_TREE_RESULT=""
  for system in "${SYSTEMS[@]}"; do
    local flags=()
    log="$dir/in-tree.log"
    if [ "$system" = cmake ]; then flags=(--cmake); log="$dir/in-tree-cmake.log"; fi
    log "$v: in-tree $system build (log ${log#$ROOT/})"
    if bash "$ROOT/scripts/build-in-rocksdb.sh" "${how[@]}" "${flags[@]}" --jobs "$JOBS" \
         > "$log" 2>&1; then
      result="pass: $(sed -n 's/^| [^|]* | [^|]* | [^|]* | \(.*\) |$/\1/p' "$log" | tail -n1)"
    else
      result="FAILED: $(grep -m1 -E 'error|FAIL' "$log" | cut -c1-120)"; rc=1
    fi
    [ "${#SYSTEMS[@]}" = 1 ] || result="$system $result"
    IN_TREE_RESULT="${IN_TREE_RESULT:+$IN_TREE_RESULT; }$result"
  done
  return $rc
}

status=0
rows=()
for v in "${VERSIONS[@]}"; do
  mkdir -p "$WORK/$v"
  STANDALONE_RESULT="-"; IN_TREE_RESULT="-"
  if ! rocksdb_for "$v"; then
    rows+=("| $v | no RocksDB (build failed or --tree/--prefix rejected) | - | - |"); status=1; continue
  fi
  if [ "$STANDALONE" = 1 ]; then standalone "$v" || status=1; fi
  if [ "$IN_TREE" = 1 ]; then in_tree "$v" || status=1; fi
  std="$(rocksdb_cxx_std "$v")"
  rows+=("| $v | $std | $STANDALONE_RESULT | $IN_TREE_RESULT |")
  log "$v: ${rows[-1]}"
done
in_tree_with="${SYSTEMS[*]}"
echo "| RocksDB | standard | standalone build and ctest | in-tree build (${in_tree_with// / and }), db_bench FP per policy |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
exit $status
