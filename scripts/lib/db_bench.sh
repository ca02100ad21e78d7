# Reading the stock db_bench's output (--statistics), for the scripts that
# drive it: bench/db_bench_*.sh and scripts/build-in-rocksdb.sh. Sourced.

# db_bench_ticker NAME FILE: the COUNT of ticker rocksdb.NAME in FILE, empty
# if FILE has none (e.g. db_bench_ticker bloom.filter.useful out.txt).
db_bench_ticker() {
  sed -n "s/^rocksdb\.$1 COUNT : //p" "$2" | head -n1
}

# db_bench_require TOOL...: exits with a message unless every TOOL (of
# Debian's rocksdb-tools) is on the PATH.
db_bench_require() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$tool missing: apt-get install rocksdb-tools" >&2; exit 1; }
  done
}

# db_bench_options_header: the [Version] section an OPTIONS file for
# `db_bench --options_file` starts with (DB_BENCH_ROCKSDB_VERSION, default
# Debian's 7.8.3).
db_bench_options_header() {
  printf '[Version]\n  rocksdb_version=%s\n  options_file_version=1.1\n' \
    "${DB_BENCH_ROCKSDB_VERSION:-7.8.3}"
}

# db_bench_sstfilter_build ROOT: sets BUILD (SSTFILTER_BUILD_DIR or
# ROOT/build), LIB (libsstfilter.so), LSM_BENCH and TOOL (the sstfilter
# tool), and exits with a message unless the build has them.
db_bench_sstfilter_build() {
  BUILD="${SSTFILTER_BUILD_DIR:-$1/build}"
  LIB="$BUILD/libsstfilter.so"
  LSM_BENCH="$BUILD/bench/lsm_bench"
  TOOL="$BUILD/sstfilter"
  [ -f "$LIB" ] && [ -x "$LSM_BENCH" ] && [ -x "$TOOL" ] ||
    { echo "build first: bash scripts/build.sh" >&2; exit 1; }
}

# db_bench_need_disk DIR KIB: exits with a message unless DIR's file system
# has KIB KiB free.
db_bench_need_disk() {
  local free_kib
  free_kib="$(df -Pk "$1" | awk 'NR == 2 { print $4 }')"
  if [ "$free_kib" -lt "$2" ]; then
    echo "not enough disk under $1: $((free_kib / 1024)) MiB free, $(($2 / 1024)) MiB needed" >&2
    exit 1
  fi
}

# db_bench_write_options FILE DB CF TABLE: an OPTIONS file for
# `db_bench --options_file`; DB, CF and TABLE are the entries of
# [DBOptions], [CFOptions "default"] and the block-based table, one
# key=value per line. db_bench takes the file's options over its flags.
db_bench_write_options() {
  {
    db_bench_options_header
    printf '[DBOptions]\n'; printf '%s\n' "$2" | sed '/^$/d; s/^/  /'
    printf '[CFOptions "default"]\n'; printf '%s\n' "$3" | sed '/^$/d; s/^/  /'
    printf '[TableOptions/BlockBasedTable "default"]\n'; printf '%s\n' "$4" | sed '/^$/d; s/^/  /'
  } > "$1"
}

# db_bench_sst_filters DB NAME [SST_DUMP]: "FILES MATCHING BITS_PER_KEY
# ENTRIES FILTER_BYTES" of the SST files in DB, from their table
# properties: how many there are, how many name filter policy NAME, their
# filter bytes × 8 / filter entries, and the two sums.
db_bench_sst_filters() {
  "${3:-sst_dump}" --file="$1" --show_properties < /dev/null 2>&1 | awk -v want="$2" '
    /filter policy name:/ { files++; name = $0; sub(/^ *filter policy name: */, "", name);
                            if (name == want) ok++ }
    /filter block size:/ { bytes += $NF } /# entries for filter:/ { entries += $NF }
    END { printf "%d %d %.3f %d %d\n", files, ok, entries ? bytes * 8 / entries : 0, entries, bytes }'
}

# db_bench_policy_ids DB_BENCH DIR: the sstfilter policy ids DB_BENCH has
# (built in, or preloaded: set LD_PRELOAD), one per line, empty if none.
# Asked to open a DB (in DIR) under an sstfilter id no build has, the plugin
# refuses it and names the ones it has.
db_bench_policy_ids() {
  db_bench_write_options "$2/OPTIONS-ids" "create_if_missing=true" "" \
    "filter_policy=sstfilter.NoSuchPolicy:10"
  "$1" --db="$2/db-ids" --options_file="$2/OPTIONS-ids" --benchmarks=fillseq --num=1 \
    < /dev/null 2>&1 | sed -n 's/.*(this build has: \([^;]*\);.*/\1/p' | head -n1 |
    tr -d ' ' | tr ',' '\n' | sed '/^$/d'
  rm -rf "$2/db-ids" "$2/OPTIONS-ids"
}
