#!/usr/bin/env bash
# The stock db_bench (Debian rocksdb-tools) on production_bench's profile,
# once per filter policy: 16-byte keys, 400-byte values compressing 2:1
# (Snappy, RocksDB's default), 64 MiB memtables and SST files, 256 MiB base
# level, dynamic level sizing, format_version 5, direct reads, a block cache
# of 1/8 of the SST bytes; layout a (filters held by the table readers) or
# b (partitioned filters and two-level index in the block cache, L0 pinned).
# sstfilter policies load through LD_PRELOAD of libsstfilter.so and an
# OPTIONS file (with the sstfilter.LsmShape listener), the built-ins through
# RocksDB's own ids in the same file; every run under jemalloc with
# optimize_filters_for_memory. Settings come from lsm_bench --list_policies:
# each policy at the budget in filter bits per key (rocksdb.Ribbon at the
# Bloom-equivalent setting calibrated to it); each row shows the bits per
# key its SST files hold (production_bench calibrates to allocated memory).
#
# Per policy: fillrandom + flush + waitforcompaction, then readmissing (all
# miss, MISSES lookups: a miss takes a few µs, so enough for seconds) and
# readrandom (all hit, READS lookups) with each thread count, each its own
# db_bench run with --statistics and --histogram. Unlike production_bench, every
# policy gets its own load, so its shape (files per level, printed in each
# row) is RocksDB's and differs between runs: compare rows by their
# files per level and checks per miss.
#
#   bash bench/db_bench_production.sh [BITS_PER_KEY] [NUM_KEYS] [READS] [MISSES]
#   (defaults 10, 10000000, 100000, 2000000; LAYOUT=a|b; THREADS="1 2";
#   POLICIES="rocksdb.Bloom sstfilter.Ribbon"; DB_DIR: a new or empty
#   directory on the disk to measure (default: one under /var/tmp, removed
#   at exit); CSV=file to also write the rows as CSV; DEVICE_US=MEDIAN,MEAN
#   to read through an emulated slower device, production_bench's
#   --device_us, preloaded from libsstfilter_emulated_device.so)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BITS="${1:-10}"
NUM="${2:-10000000}"
READS="${3:-100000}"
MISSES="${4:-2000000}"
LAYOUT="${LAYOUT:-a}"
THREADS="${THREADS:-1 2}"
JEMALLOC=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
fail() { echo "[db_bench_production] ERROR: $*" >&2; exit 2; }
. "$ROOT/scripts/lib/db_bench.sh"
db_bench_sstfilter_build "$ROOT"
[ -f "$JEMALLOC" ] || fail "jemalloc missing: apt-get install libjemalloc2"
case "$LAYOUT" in a|b) ;; *) fail "LAYOUT must be a or b, not '$LAYOUT'" ;; esac
db_bench_require db_bench sst_dump ldb
device=()  # the read runs' --fs_uri, and what the rows ran on
DEVICE_NAME="this disk"
if [ -n "${DEVICE_US:-}" ]; then
  [[ "$DEVICE_US" =~ ^[0-9]+(\.[0-9]+)?,[0-9]+(\.[0-9]+)?$ ]] &&
    awk -F, '{ exit !($1 >= 1 && $1 <= $2 && $2 <= 100 * $1 && $2 <= 10000000) }' <<< "$DEVICE_US" ||
    fail "DEVICE_US wants MEDIAN,MEAN in µs with 1 <= MEDIAN <= MEAN <= 100 MEDIAN and MEAN <= 10000000 (LatencyModel::ModelIsValid), not '$DEVICE_US'"
  DEVICE_LIB="$BUILD/bench/libsstfilter_emulated_device.so"
  [ -f "$DEVICE_LIB" ] || fail "no $DEVICE_LIB: build first (bash scripts/build.sh)"
  LIB="$LIB:$DEVICE_LIB"
  device=(--fs_uri="sstfilter.EmulatedDevice:$DEVICE_US")
  DEVICE_NAME="an emulated device (median ${DEVICE_US%,*} µs, mean ${DEVICE_US#*,} µs, log-normal)"
fi

POLICIES="${POLICIES:-rocksdb.Bloom rocksdb.Ribbon sstfilter.*}"
SPECS="$("$LSM_BENCH" --list_policies --bits_per_key="$BITS" --policies="${POLICIES// /,}")" ||
  fail "unknown policy in POLICIES='$POLICIES'"

if [ -n "${CSV:-}" ]; then  # checked before a load: where it goes, and not where the DB goes
  [ -d "$(dirname -- "$CSV")" ] || fail "no directory for CSV=$CSV"
  if [ -n "${DB_DIR:-}" ]; then
    case "$(realpath -m -- "$CSV")/" in
      "$(realpath -m -- "$DB_DIR")"/*) fail "CSV=$CSV is inside DB_DIR, whose contents are removed at exit" ;;
    esac
  fi
fi
if [ -n "${DB_DIR:-}" ]; then
  [ ! -e "$DB_DIR" ] || [ -z "$(ls -A "$DB_DIR")" ] ||
    fail "$DB_DIR exists and is not empty: give a new or empty directory; nothing was touched"
  mkdir -p "$DB_DIR"; WORK="$DB_DIR"; trap 'rm -rf "$WORK"/*' EXIT
else
  WORK="$(mktemp -d /var/tmp/sstfilter-db-bench-production.XXXXXX)"; trap 'rm -rf "$WORK"' EXIT
fi
db_bench_need_disk "$WORK" $(( NUM * (16 + 400 + 40) * 3 / 2 / 1024 ))  # a load and its compactions

write_options() {  # $1: filter_policy
  local layout_b=""
  [ "$LAYOUT" = b ] && layout_b="cache_index_and_filter_blocks=true
pin_l0_filter_and_index_blocks_in_cache=true
partition_filters=true
index_type=kTwoLevelIndexSearch
metadata_block_size=4096"
  db_bench_write_options "$WORK/OPTIONS" "create_if_missing=true
max_background_jobs=2
use_direct_reads=true
listeners={sstfilter.LsmShape}" "write_buffer_size=67108864
target_file_size_base=67108864
max_bytes_for_level_base=268435456
level_compaction_dynamic_level_bytes=true
compression=kSnappyCompression" "format_version=5
optimize_filters_for_memory=true
filter_policy=$1
$layout_b"
}

ops() {  # $1: benchmark name, $2: db_bench output
  awk -v b="$1" '$1 == b { for (i = 1; i < NF; i++) if ($(i+1) == "ops/sec") { print $i; exit } }' "$2"
}
pct() {  # $1: P50|P99|P99.9, $2: db_bench --histogram output: the first histogram's value
  awk -v p="$1:" '/^Percentiles:/ { for (i = 1; i < NF; i++) if ($i == p) { print $(i+1); exit } }' "$2"
}

header="policy,layout,budget,bits_per_key,files_per_level,checks_per_miss,threads"
header+=",miss_ops_sec,wasted_reads_per_miss,miss_p50_us,miss_p99_us,miss_p999_us"
header+=",hit_ops_sec,hit_p50_us,hit_p99_us,hit_p999_us,data_cache_hit_ratio"
echo "$header" > "$WORK/rows.csv"
while read -r policy budget setting; do
  [ "$policy" = none ] && continue
  case "$policy" in
    rocksdb.Bloom)  write_options "bloomfilter:$setting:false"; expect=bloomfilter ;;
    rocksdb.Ribbon) write_options "ribbonfilter:$setting:-1"; expect=ribbonfilter ;;
    *)              write_options "$setting"; expect="$policy" ;;
  esac
  run() {  # $1: label, rest: db_bench arguments
    local label="$1"; shift
    echo "[db_bench_production] $policy: $label ($(date +%T))" >&2
    if ! LD_PRELOAD="$LIB:$JEMALLOC" db_bench --db="$WORK/db" --options_file="$WORK/OPTIONS" \
        --num="$NUM" --key_size=16 --value_size=400 --compression_ratio=0.5 --seed=1 "$@" \
        < /dev/null > "$WORK/$label.txt" 2>&1; then
      tail -20 "$WORK/$label.txt" >&2; fail "db_bench $label for $policy"
    fi
  }
  rm -rf "$WORK/db"
  run fill --benchmarks=fillrandom,flush,waitforcompaction
  sst_bytes="$(du -sb "$WORK/db" | cut -f1)"
  read -r files matching bpk _ < <(db_bench_sst_filters "$WORK/db" "$expect")
  [ "$files" -gt 0 ] && [ "$matching" -eq "$files" ] ||
    fail "$policy: $matching of $files SST files name the policy requested"
  shape="$(ldb --db="$WORK/db" list_live_files_metadata 2>/dev/null | awk '
    /^-+ level [0-9]+ -+$/ { l = $3; n[l] = 0; next } /\.sst$/ { n[l]++ }
    END { for (i = 0; i <= 6; i++) s = s (i ? "/" : "") (n[i] + 0); print s }')"
  for t in $THREADS; do
    reads=(--use_existing_db --threads="$t" --statistics --histogram --cache_size=$((sst_bytes / 8))
           "${device[@]}")
    run "miss$t" --benchmarks=readmissing --reads=$((MISSES / t)) "${reads[@]}"
    run "hit$t" --benchmarks=readrandom --reads=$((READS / t)) "${reads[@]}"
    m="$WORK/miss$t.txt"; h="$WORK/hit$t.txt"
    useful="$(db_bench_ticker bloom.filter.useful "$m")"
    positive="$(db_bench_ticker bloom.filter.full.positive "$m")"
    true_pos="$(db_bench_ticker bloom.filter.full.true.positive "$m")"
    dhit="$(db_bench_ticker block.cache.data.hit "$h")"; dmiss="$(db_bench_ticker block.cache.data.miss "$h")"
    awk -v OFS=, -v p="$policy" -v l="$LAYOUT" -v b="$budget" -v bpk="$bpk" -v s="$shape" \
        -v u="${useful:-0}" -v pos="${positive:-0}" -v tp="${true_pos:-0}" -v n="$((MISSES / t * t))" -v t="$t" \
        -v mo="$(ops readmissing "$m")" -v m50="$(pct P50 "$m")" -v m99="$(pct P99 "$m")" \
        -v m999="$(pct P99.9 "$m")" -v ho="$(ops readrandom "$h")" -v h50="$(pct P50 "$h")" \
        -v h99="$(pct P99 "$h")" -v h999="$(pct P99.9 "$h")" -v dh="${dhit:-0}" -v dm="${dmiss:-0}" \
        'BEGIN { fp = pos - tp
                 print p, l, b, bpk, s, sprintf("%.3f", (u + fp) / n), t, mo, sprintf("%.5f", fp / n),
                       m50, m99, m999, ho, h50, h99, h999, sprintf("%.4f", dh + dm ? dh / (dh + dm) : 0) }' \
        >> "$WORK/rows.csv"
  done
done <<< "$SPECS"

echo "# db_bench $(db_bench --version 2>/dev/null | head -1 || true): num=$NUM reads=$READS misses=$MISSES layout=$LAYOUT," \
     "16-byte keys, 400-byte values, direct reads from $DEVICE_NAME, block cache 1/8 of the SST bytes, jemalloc;" \
     "latencies in µs (db_bench's histogram), wasted reads per miss from readmissing's tickers"
column -s, -t < "$WORK/rows.csv"
if [ -n "${CSV:-}" ]; then cp "$WORK/rows.csv" "$CSV.partial" && mv "$CSV.partial" "$CSV"; fi
