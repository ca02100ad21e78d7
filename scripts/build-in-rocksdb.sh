#!/usr/bin/env bash
# Builds sstfilter INTO RocksDB, the way a user adopts a plugin, and proves
# the result works:
#
#   bash scripts/build-in-rocksdb.sh --version 7.8.3|9.10.0 | --source DIR
#        [--cmake] [--jobs N] [--num KEYS] [--bits_per_key B]
#        [--fetch-only|--compile-only]
#
#   --source DIR: any RocksDB source tree instead of Debian's package (e.g.
#   a release tag extracted with `git archive`); its version comes from
#   its include/rocksdb/version.h, and steps 2-3 copy it (without build
#   outputs) instead of downloading.
#
#   1. installs what the build needs (as root, apt: compiler, gflags,
#      libxxhash-dev, zlib1g-dev, dpkg-dev; cmake with --cmake);
#   2. fetches Debian's source package of that RocksDB version (7.8.3 from
#      Debian 12 bookworm, 9.10.0 from Debian 13 trixie) through a private apt
#      configuration under .deps/rocksdb-build/: deb-src entries derived from
#      the system's configured deb entries (one-line and deb822) with the
#      release name replaced; the system's apt sources and lists are untouched;
#   3. unpacks it (Debian patches applied; see step 2 for mirrors that
#      serve only the upstream tarball) into
#      .deps/rocksdb-build/<version>-<make|cmake>/rocksdb and links this
#      checkout as its plugin/sstfilter;
#   4. builds db_bench and sst_dump with ROCKSDB_PLUGINS=sstfilter, with
#      RocksDB's make (default) or CMake (--cmake), statically linked;
#   5. for every sstfilter policy that db_bench has (asked for an unknown
#      sstfilter id, the plugin names them): runs that db_bench with the
#      policy selected ONLY through --options_file (no LD_PRELOAD) on
#      fillrandom,compact,readmissing and checks
#        - every SST file names the policy (the built sst_dump),
#        - the filter answered: rocksdb.bloom.filter.useful > 0,
#        - the FP rate, false positives / filter checks from the statistics,
#          is within 25% of the core's own prediction (bench/predict_fp.cc)
#          for that bits/key at the SST files' mean keys per filter
#          (LevelAware: Ribbon at the bits per key its files have);
#   6. prints a RESULT line and a Markdown row for docs/BUILDING.md.
#
# --fetch-only stops after step 3; --compile-only then compiles every plugin
# source against that tree with RocksDB's warning flags
# (scripts/compile-against.sh --plugin: seconds instead of the full build).
#
# Resumable: every step leaves a stamp and is skipped when done (the
# download in .deps/rocksdb-build/pkg-<version>, shared by the make and cmake
# builds; the rest in <build dir>/stamps); an interrupted build continues
# where make stopped. The build takes 14-26 minutes on 2 shared cores, so
# this is not part of CI. Exit status 0 only if every policy passed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$ROOT/.deps/rocksdb-build"

VERSION=""
SOURCE=""
SYSTEM=make
JOBS=2
NUM=1000000
BITS_PER_KEY=10
TOLERANCE=0.25
FETCH_ONLY=0
COMPILE_ONLY=0

log() { printf '[build-in-rocksdb %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[build-in-rocksdb] error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,7p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --version) VERSION="${2:-}"; shift 2 ;;
    --version=*) VERSION="${1#*=}"; shift ;;
    --source) SOURCE="${2:-}"; shift 2 ;;
    --source=*) SOURCE="${1#*=}"; shift ;;
    --cmake) SYSTEM=cmake; shift ;;
    --jobs) JOBS="${2:-}"; shift 2 ;;
    --num) NUM="${2:-}"; shift 2 ;;
    --bits_per_key) BITS_PER_KEY="${2:-}"; shift 2 ;;
    --fetch-only) FETCH_ONLY=1; shift ;;
    --compile-only) COMPILE_ONLY=1; shift ;;
    -h|--help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done
version_of_tree() {
  sed -n 's/^#define ROCKSDB_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
    "$1/include/rocksdb/version.h" | paste -sd.
}
if [ -n "$SOURCE" ]; then
  [ -z "$VERSION" ] || { echo "--version and --source exclude each other" >&2; usage; }
  [ -f "$SOURCE/include/rocksdb/version.h" ] || die "$SOURCE is not a RocksDB source tree"
  SOURCE="$(cd "$SOURCE" && pwd)"
  VERSION="$(version_of_tree "$SOURCE")"
  SUITE="source tree"
else
  # The Debian release that carries each supported RocksDB version.
  case "$VERSION" in
    7.8.3) SUITE=bookworm ;;
    9.10.0) SUITE=trixie ;;
    *) echo "--version must be 7.8.3 or 9.10.0 (or use --source)" >&2; usage ;;
  esac
fi

BDIR="$WORK/$VERSION-$SYSTEM"
TREE="$BDIR/rocksdb"
STAMPS="$BDIR/stamps"
PKG="$WORK/pkg-$VERSION"     # the downloaded source package, shared by make and cmake
APT="$WORK/apt-$SUITE"
mkdir -p "$STAMPS" "$PKG"
done_step() { [ -f "$STAMPS/$1" ]; }
stamp() { date -u +%FT%TZ > "$STAMPS/$1"; }
T0=$SECONDS
log "RocksDB $VERSION ($SUITE), $SYSTEM build in ${BDIR#$ROOT/}"
export DB_BENCH_ROCKSDB_VERSION="$VERSION"  # the OPTIONS files it writes

# --- 1. Build dependencies (checked every run: cheap). ------------------------
PACKAGES=(build-essential dpkg-dev xz-utils ca-certificates libgflags-dev libxxhash-dev zlib1g-dev)
[ "$SYSTEM" = cmake ] && PACKAGES+=(cmake)
. "$ROOT/scripts/lib/packages.sh"
. "$ROOT/scripts/lib/db_bench.sh"
mapfile -t missing < <(missing_packages "${PACKAGES[@]}")
if [ "${#missing[@]}" -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die "missing packages (${missing[*]}); run as root to install them"
  log "step 1/6: installing ${missing[*]}"
  install_packages "${missing[@]}"
else
  log "step 1/6: build dependencies present"
fi

# --- 2. Debian's source package of exactly this RocksDB version. -------------
# deb-src entries for $SUITE derived from the system's deb entries
# (scripts/lib/private_apt.sh).
write_private_sources() {
  private_apt_sources "$APT" "$SUITE" || die "cannot derive $SUITE deb-src entries"
}
. "$ROOT/scripts/lib/private_apt.sh"
# Some mirrors serve the upstream tarball of a source package but not its
# .dsc and .debian.tar (seen here for trixie). Then the tree is the upstream
# tarball, checked against the SHA-256 in the signed Sources index, without
# Debian's patches (bookworm's 7.8.3 patches touch build files, one test and
# code for other CPU architectures); the log and the RESULT line say so.
have_dsc() { ls "$PKG"/rocksdb_*.dsc >/dev/null 2>&1; }
have_orig() { ls "$PKG"/rocksdb_"$VERSION".orig.tar.* >/dev/null 2>&1; }
if [ -n "$SOURCE" ]; then
  echo "source tree $SOURCE" > "$PKG/.kind"
  log "step 2/6: $(cat "$PKG/.kind")"
elif [ -f "$PKG/.done" ] && { have_dsc || have_orig; }; then
  log "step 2/6: source package cached in ${PKG#$ROOT/} ($(cat "$PKG/.kind"))"
else
  log "step 2/6: fetching the rocksdb $VERSION source package from $SUITE (private apt state in ${APT#$ROOT/})"
  write_private_sources
  private_apt_update
  showsrc="$(apt-cache "${PRIVATE_APT_OPTS[@]}" showsrc rocksdb)"
  # The highest Debian revision of exactly this upstream version.
  deb_version="$(sed -n 's/^Version: //p' <<<"$showsrc" |
    awk -v up="$VERSION" '{ v = $0; sub(/^[0-9]+:/, "", v); sub(/-[^-]*$/, "", v); if (v == up) print $0 }' |
    sort -V | tail -n1)"
  [ -n "$deb_version" ] || die "no rocksdb $VERSION source package in $SUITE"
  rm -f "$PKG"/* "$PKG"/.done "$PKG"/.kind
  ( cd "$PKG" && apt-get "${PRIVATE_APT_OPTS[@]}" source --download-only -q "rocksdb=$deb_version" >&2 ) \
    || log "step 2/6: apt-get source reported errors (see above)"
  if have_dsc && ls "$PKG"/rocksdb_*.debian.tar.* >/dev/null 2>&1; then
    echo "Debian source package rocksdb $deb_version" > "$PKG/.kind"
  elif have_orig; then
    orig="$(basename "$(ls "$PKG"/rocksdb_"$VERSION".orig.tar.* | head -n1)")"
    want="$(awk -v f="$orig" '/^Checksums-Sha256:/ { on = 1; next } /^[^ ]/ { on = 0 }
                               on && $3 == f { print $1; exit }' <<<"$showsrc")"
    [ -n "$want" ] && [ "$(sha256sum < "$PKG/$orig" | cut -d' ' -f1)" = "$want" ] \
      || die "$orig does not match the SHA-256 of the Sources index"
    rm -f "$PKG"/rocksdb_*.dsc
    echo "upstream tarball $orig of rocksdb $deb_version, SHA-256 checked, without Debian patches (mirror lacks the .dsc)" \
      > "$PKG/.kind"
    log "step 2/6: WARNING: $(cat "$PKG/.kind")"
  else
    die "download of rocksdb=$deb_version failed"
  fi
  date -u +%FT%TZ > "$PKG/.done"   # shared by the make and cmake builds
fi

# --- 3. Unpack and link this checkout as plugin/sstfilter. -------------------
if done_step unpack && [ -f "$TREE/include/rocksdb/version.h" ]; then
  log "step 3/6: source tree present: ${TREE#$ROOT/}"
else
  rm -rf "$TREE" "$TREE.tmp"
  if [ -n "$SOURCE" ]; then
    log "step 3/6: copying $SOURCE into ${TREE#$ROOT/} (without build outputs)"
    mkdir -p "$TREE.tmp"
    tar -C "$SOURCE" --exclude=./shared-objects --exclude=./obj --exclude='*.o' \
        --exclude='*.so*' --exclude='*.a' --exclude=./plugin/sstfilter -cf - . | tar -C "$TREE.tmp" -xf -
  elif have_dsc; then
    log "step 3/6: unpacking into ${TREE#$ROOT/} (Debian patches applied)"
    dpkg-source -q -x "$(ls "$PKG"/rocksdb_*.dsc | head -n1)" "$TREE.tmp" >&2
  else
    log "step 3/6: unpacking the upstream tarball into ${TREE#$ROOT/}"
    mkdir -p "$TREE.tmp"
    tar -xf "$(ls "$PKG"/rocksdb_"$VERSION".orig.tar.* | head -n1)" -C "$TREE.tmp" --strip-components=1
  fi
  mv "$TREE.tmp" "$TREE"
  stamp unpack
fi
got="$(version_of_tree "$TREE")"
[ "$got" = "$VERSION" ] || die "source tree is RocksDB $got, not $VERSION"
ln -sfn "$ROOT" "$TREE/plugin/sstfilter"
if [ "$FETCH_ONLY" = 1 ]; then
  log "source tree ready: $TREE (plugin/sstfilter -> $ROOT)"
  exit 0
fi
if [ "$COMPILE_ONLY" = 1 ]; then
  exec bash "$ROOT/scripts/compile-against.sh" --plugin --tree "$TREE"
fi

# --- 4. Build db_bench and sst_dump with the plugin. -------------------------
# Always run: make/cmake are incremental, so this resumes an interrupted
# build and picks up changed plugin sources. Static linking on purpose: a
# db_bench linked to a shared librocksdb without rpath would load the
# system's librocksdb at run time, which has no sstfilter in it.
if [ "$SYSTEM" = make ]; then
  DB_BENCH="$TREE/db_bench"; SST_DUMP="$TREE/sst_dump"
  # OBJ_DIR=obj: by default make writes each object next to its source,
  # i.e. through the plugin/sstfilter link into this checkout, where the
  # objects of the 7.8.3 and 9.10.0 trees would overwrite each other.
  BUILD_CMD=(make -C "$TREE" -j"$JOBS" ROCKSDB_PLUGINS=sstfilter DEBUG_LEVEL=0
             DISABLE_WARNING_AS_ERROR=1 OBJ_DIR=obj db_bench sst_dump)
  # RocksDB's make keeps a dependency file per object. One that names a
  # header this checkout no longer has (renamed, e.g. flag_sort.h ->
  # counting_sort.h) stops a resumed build with "No rule to make target";
  # dropping it makes make write it again from the source.
  if [ -d "$TREE/obj/plugin/sstfilter" ]; then
    while IFS= read -r dep; do
      # One rule: targets, ':', prerequisites, lines continued with '\'.
      for f in $(tr '\n' ' ' < "$dep" | sed -e 's/^[^:]*://' -e 's/\\ / /g'); do
        if [ ! -e "$TREE/$f" ] && [ ! -e "$f" ]; then
          log "step 4/6: dropping stale ${dep#$TREE/} (names missing $f)"
          rm -f "$dep"; break
        fi
      done
    done < <(find "$TREE/obj/plugin/sstfilter" -name '*.d')
  fi
else
  OUT="$BDIR/build"
  DB_BENCH="$OUT/db_bench"; SST_DUMP="$OUT/tools/sst_dump"
  if ! done_step configure; then
    log "step 4/6: configuring with CMake"
    cmake -S "$TREE" -B "$OUT" -DROCKSDB_PLUGINS=sstfilter -DFAIL_ON_WARNINGS=OFF \
      -DWITH_GFLAGS=ON -DCMAKE_BUILD_TYPE=Release -DROCKSDB_BUILD_SHARED=OFF \
      -DWITH_TESTS=OFF -DWITH_BENCHMARK_TOOLS=ON -DWITH_CORE_TOOLS=ON \
      2>&1 | tee "$BDIR/configure.log" | grep -E 'PLUGIN|sstfilter|Error|error' >&2 || true
    grep -q 'Build files have been written' "$BDIR/configure.log" \
      || die "CMake configure failed, see ${BDIR#$ROOT/}/configure.log"
    stamp configure
  fi
  BUILD_CMD=(cmake --build "$OUT" -j"$JOBS" --target db_bench sst_dump)
fi
log "step 4/6: building db_bench and sst_dump (log: ${BDIR#$ROOT/}/build.log)"
start=$SECONDS
if ! "${BUILD_CMD[@]}" > >(tee -a "$BDIR/build.log" | grep --line-buffered -E '^ *(CC|CCLD|AR|LD) |^\[ *[0-9]+%\]| error: |\*\*\*' >&2) 2>&1; then
  sleep 1
  grep -n -E ' error: |\*\*\*' "$BDIR/build.log" | tail -n 20 >&2 || true
  die "build failed, see ${BDIR#$ROOT/}/build.log"
fi
sleep 1
# Build minutes summed over resumed runs.
echo $(( $(cat "$STAMPS/build.seconds" 2>/dev/null || echo 0) + SECONDS - start )) > "$STAMPS/build.seconds.new"
mv "$STAMPS/build.seconds.new" "$STAMPS/build.seconds"
[ -x "$DB_BENCH" ] && [ -x "$SST_DUMP" ] || die "build finished without $DB_BENCH and $SST_DUMP"
if ldd "$DB_BENCH" | grep -q librocksdb; then die "$DB_BENCH links a shared librocksdb"; fi
stamp build
BUILD_MIN=$(( ($(cat "$STAMPS/build.seconds") + 59) / 60 ))
log "step 4/6: built in $BUILD_MIN min of build time: $DB_BENCH"

# --- 5. db_bench with each policy, selected through --options_file only. -----
# The registered policies, as the db_bench just built reports them.
RUN="$BDIR/run"
rm -rf "$RUN"; mkdir -p "$RUN"
mapfile -t POLICIES < <(db_bench_policy_ids "$DB_BENCH" "$RUN")
[ "${#POLICIES[@]}" -gt 0 ] || die "$DB_BENCH names no sstfilter policy: is the plugin built in?"
log "step 5/6: $DB_BENCH has ${POLICIES[*]}"

# The core's FP prediction, compiled from the core sources of sstfilter.mk.
PREDICT="$BDIR/predict_fp"
core_sources=($(sed -n 's/^sstfilter_SOURCES = //p' "$ROOT/sstfilter.mk" | tr ' ' '\n' | grep '^plugin/core/'))
log "step 5/6: compiling bench/predict_fp.cc with the core"
( cd "$ROOT" && g++ -std=c++17 -O2 -I. -o "$PREDICT" bench/predict_fp.cc "${core_sources[@]}" -lz )

summary=""; all_pass=1
for policy in "${POLICIES[@]}"; do
  kind="${policy#sstfilter.}"
  id="$policy:$BITS_PER_KEY"
  db="$RUN/db-$kind"
  db_bench_write_options "$RUN/OPTIONS-$kind" "create_if_missing=true" "write_buffer_size=4194304
compression=kNoCompression" "filter_policy=$id"
  log "step 5/6: $policy: db_bench fillrandom,compact,readmissing, $NUM keys, filter_policy=$id"
  if ! "$DB_BENCH" --db="$db" --options_file="$RUN/OPTIONS-$kind" \
      --benchmarks=fillrandom,compact,readmissing --num="$NUM" --seed=1 --statistics \
      > "$RUN/db_bench-$kind.txt" 2>&1; then
    tail -n 20 "$RUN/db_bench-$kind.txt" >&2
    summary+="$kind db_bench failed; "; all_pass=0; continue
  fi
  grep -E '^(fillrandom|compact|readmissing) ' "$RUN/db_bench-$kind.txt" >&2 || true

  # The policy in effect, from the SST files themselves (never trust the id).
  read -r files named _ entries filter_bytes < <(db_bench_sst_filters "$db" "$policy" "$SST_DUMP")
  log "step 5/6: $policy: sst_dump: $named of $files SST files name $policy"

  useful="$(db_bench_ticker bloom.filter.useful "$RUN/db_bench-$kind.txt")"
  positive="$(db_bench_ticker bloom.filter.full.positive "$RUN/db_bench-$kind.txt")"
  true_pos="$(db_bench_ticker bloom.filter.full.true.positive "$RUN/db_bench-$kind.txt")"
  mean_keys=$(( files > 0 ? entries / files : 0 ))
  predict_kind="$kind"; predict_bits="$BITS_PER_KEY"
  if [ "$kind" = LevelAware ]; then
    # LevelAware writes Ribbon; these OPTIONS have no sstfilter.LsmShape
    # listener, so at its budget, but predict from what the files hold:
    # Ribbon at the bits per key of their filter blocks, less the 16-byte
    # trailer each.
    predict_kind=Ribbon
    predict_bits="$(awk -v b="$filter_bytes" -v f="$files" -v e="$entries" \
      'BEGIN { printf "%.4f", (e > 0 ? (b - 16 * f) * 8 / e : 0) }')"
    log "step 5/6: $policy: $predict_bits bits per key in its filters (budget $BITS_PER_KEY)"
  fi
  predicted="$("$PREDICT" "$predict_kind" "$predict_bits" "$(( mean_keys > 0 ? mean_keys : 1 ))")"
  verdict="$(awk -v u="${useful:-0}" -v p="${positive:-0}" -v t="${true_pos:-0}" \
      -v pred="$predicted" -v tol="$TOLERANCE" -v files="$files" -v named="$named" 'BEGIN {
    fp = p - t; checks = u + fp; fail = ""
    if (files == 0 || named != files) fail = fail " SST-files-without-the-policy"
    if (u <= 0) fail = fail " filter-not-used(useful=0)"
    obs = checks > 0 ? fp / checks : 1
    if (obs < (1 - tol) * pred || obs > (1 + tol) * pred) fail = fail " FP-rate-off-prediction"
    printf "%s fp_rate=%.4f%% predicted=%.4f%% checks=%d false_positives=%d useful=%d\n",
           (fail == "" ? "PASS" : "FAIL:" fail), 100 * obs, 100 * pred, checks, fp, u }')"
  log "step 5/6: $policy: $verdict (mean $mean_keys keys per filter)"
  obs_pct="$(sed -n 's/.*fp_rate=\([0-9.]*%\).*/\1/p' <<<"$verdict")"
  pred_pct="$(sed -n 's/.*predicted=\([0-9.]*%\).*/\1/p' <<<"$verdict")"
  case "$verdict" in
    PASS*) summary+="$kind $obs_pct (pred. $pred_pct); " ;;
    *) summary+="$kind FAIL $obs_pct (pred. $pred_pct); "; all_pass=0 ;;
  esac
  rm -rf "$db"   # ~120 MB each; the logs stay in $RUN
done

# --- 6. Result. ---------------------------------------------------------------
status=$([ "$all_pass" = 1 ] && echo pass || echo FAIL)
summary="${summary%; }"
log "step 6/6: done in $(( (SECONDS - T0 + 59) / 60 )) min (build time $BUILD_MIN min summed over runs)"
echo "RESULT rocksdb=$VERSION build=$SYSTEM commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown) status=$status bits_per_key=$BITS_PER_KEY keys=$NUM build_min=$BUILD_MIN source=\"$(cat "$PKG/.kind")\" fp: $summary"
echo "| $VERSION | $SYSTEM | $status | $summary |"
[ "$all_pass" = 1 ]
