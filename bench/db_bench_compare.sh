#!/usr/bin/env bash
# The stock db_bench (Debian rocksdb-tools) on lsm_bench's data sizes, once
# per filter policy at one memory budget: RocksDB's built-ins through
# --bloom_bits / --use_ribbon_filter, sstfilter policies through LD_PRELOAD of
# libsstfilter.so and filter_policy in a generated OPTIONS file. For each:
# (db_bench's --bloom_bits takes whole numbers only: rocksdb.Ribbon's
# calibrated Bloom-equivalent setting, e.g. 14.615 for 10 actual bits per
# key, would round to 15 = 10.25 bits or 14 = 9.6 bits, enough to swap its
# rank with sstfilter.Ribbon. So a fractional setting goes into the OPTIONS
# file as RocksDB's own id ribbonfilter:<setting>:-1, which is
# NewRibbonFilterPolicy(setting, -1), as in lsm_bench; RIBBON_FLAGS=1 uses
# --bloom_bits=<rounded> --use_ribbon_filter instead.)
# fillrandom + waitforcompaction, then readmissing and readrandom, each in its
# own invocation with --statistics so every ticker belongs to one benchmark.
# Prints one table (wasted reads per miss and FP rate from readmissing's
# filter tickers, ops/sec of both reads, actual bits per key from the SSTs)
# and checks with sst_dump that every SST names the policy requested.
#
#   bash bench/db_bench_compare.sh [BITS_PER_KEY] [NUM_KEYS] [READS]
#   (defaults 10, 500000, 200000; POLICIES="rocksdb.Bloom sstfilter.Ribbon"
#   to choose; SSTFILTER_BUILD_DIR to use another build than build/)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BITS="${1:-10}"
NUM="${2:-500000}"
READS="${3:-200000}"
. "$ROOT/scripts/lib/db_bench.sh"
db_bench_sstfilter_build "$ROOT"
db_bench_require db_bench sst_dump

# "policy budget setting" per policy, from lsm_bench, so that rocksdb.Ribbon
# gets the Bloom-equivalent setting whose actual memory is the budget (its
# calibration for these file sizes) and sstfilter.* lists every kind built.
POLICIES="${POLICIES:-rocksdb.Bloom rocksdb.Ribbon sstfilter.*}"
SPECS="$("$LSM_BENCH" --list_policies --bits_per_key="$BITS" --policies="${POLICIES// /,}")"

WORK="$(mktemp -d /tmp/sstfilter-db-bench-compare.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
# The shape of lsm_bench's default run: 16-byte keys, 32-byte values, no
# compression, ~2000 keys per memtable (160 KiB), 64 KiB base-level files
# doubling per level, max_bytes_for_level_base 128 KiB, multiplier 10,
# dynamic level sizing, L0 trigger 4 (writes slowed
# at 4 L0 files and stopped at 6, so that compactions keep up and L0 stays
# small, as in lsm_bench). These go in the OPTIONS file because db_bench
# takes the file's options over its flags. Unlike lsm_bench's, db_bench's
# compactions run behind the writes, so the shape, and with it the filters a
# miss consults (checks_per_miss), differs from run to run by ~±15%.
write_options() {  # $1: filter_policy line or empty; $2: a DBOptions line or empty
  { db_bench_options_header; cat <<OPTS; } > "$WORK/OPTIONS"
[DBOptions]
  create_if_missing=true
  max_background_jobs=2
  ${2:-}
[CFOptions "default"]
  write_buffer_size=163840
  target_file_size_base=65536
  target_file_size_multiplier=2
  max_bytes_for_level_base=131072
  max_bytes_for_level_multiplier=10
  level_compaction_dynamic_level_bytes=true
  level0_file_num_compaction_trigger=4
  level0_slowdown_writes_trigger=4
  level0_stop_writes_trigger=6
  compression=kNoCompression
[TableOptions/BlockBasedTable "default"]
  $1
OPTS
}

ops() {  # $1: benchmark name, $2: db_bench output
  awk -v b="$1" '$1 == b { for (i = 1; i < NF; i++) if ($(i+1) == "ops/sec") { print $i; exit } }' "$2"
}

status=0
printf '%-24s %6s %12s %22s %9s %15s %19s %18s %5s %s\n' policy budget bits_per_key \
  wasted_reads_per_miss fp_rate checks_per_miss readmissing_ops_sec readrandom_ops_sec ssts \
  filter_check > "$WORK/table"
while read -r policy budget setting; do
  [ "$policy" = none ] && continue
  common=(--db="$WORK/db" --options_file="$WORK/OPTIONS" --num="$NUM" --key_size=16
          --value_size=32 --seed=1)
  case "$policy" in
    rocksdb.Bloom)  expect=bloomfilter; preload=
                    if [ "$(printf '%.0f' "$setting")" = "$setting" ]; then
                      write_options ""; flags=(--bloom_bits="$setting")
                    else  # fractional budget: same reason as Ribbon above
                      write_options "filter_policy=bloomfilter:$setting"; flags=()
                    fi ;;
    rocksdb.Ribbon) expect=ribbonfilter; preload=
                    rounded="$(printf '%.0f' "$setting")"
                    if [ "${RIBBON_FLAGS:-0}" = 1 ] || [ "$rounded" = "$setting" ]; then
                      write_options ""; flags=(--bloom_bits="$rounded" --use_ribbon_filter)
                    else
                      write_options "filter_policy=ribbonfilter:$setting:-1"; flags=()
                    fi ;;
    # sstfilter.LevelAware plans from the shape sstfilter.LsmShape shows it.
    *)              write_options "filter_policy=$setting" "listeners={sstfilter.LsmShape}"
                    flags=(); expect="$policy"; preload="$LIB" ;;
  esac
  run() {  # $1: label, rest: db_bench arguments
    local label="$1"; shift
    echo "[db_bench_compare] $policy: $label" >&2
    if ! LD_PRELOAD="$preload" db_bench "${common[@]}" "${flags[@]}" "$@" < /dev/null \
        > "$WORK/$label.txt" 2>&1; then
      cat "$WORK/$label.txt" >&2; echo "FAIL: db_bench $label for $policy" >&2; exit 1
    fi
  }
  rm -rf "$WORK/db"
  run fill --benchmarks=fillrandom,waitforcompaction
  run readmissing --use_existing_db --benchmarks=readmissing --reads="$READS" --statistics
  run readrandom --use_existing_db --benchmarks=readrandom --reads="$READS" --statistics

  # The policy in effect, from the SST files themselves, and their actual
  # filter memory: filter bytes × 8 / filter entries.
  read -r files matching bpk _ < <(db_bench_sst_filters "$WORK/db" "$expect")
  check="ok"
  if [ "$files" -eq 0 ] || [ "$matching" -ne "$files" ]; then
    check="FAIL:$matching/$files-name-$expect"; status=1
  fi

  out="$WORK/readmissing.txt"
  useful="$(db_bench_ticker bloom.filter.useful "$out")"
  positive="$(db_bench_ticker bloom.filter.full.positive "$out")"
  true_pos="$(db_bench_ticker bloom.filter.full.true.positive "$out")"
  if [ -z "$useful" ] || [ $((useful + positive)) -eq 0 ]; then check="FAIL:no-filter-checks"; status=1; fi
  awk -v p="$policy" -v b="$budget" -v bpk="$bpk" -v u="${useful:-0}" -v pos="${positive:-0}" \
      -v t="${true_pos:-0}" -v n="$READS" -v m="$(ops readmissing "$out")" \
      -v r="$(ops readrandom "$WORK/readrandom.txt")" -v f="$files" -v c="$check" 'BEGIN {
    fp = pos - t; checks = u + fp
    printf "%-24s %6s %12s %22.5f %9.5f %15.3f %19s %18s %5d %s\n", p, b, bpk, fp / n,
           checks ? fp / checks : 0, checks / n, m, r, f, c }' >> "$WORK/table"
done <<< "$SPECS"

echo "# db_bench $(db_bench --version 2>/dev/null | head -1 || true): num=$NUM reads=$READS," \
     "16-byte keys, 32-byte values; wasted reads per miss = (full.positive - full.true.positive) / reads of readmissing"
cat "$WORK/table"
# db_bench's LSM shape depends on thread timing, so a miss consults a
# different number of filters in each run (checks_per_miss); the FP rate per
# filter check is the figure that does not depend on it.
echo "fewest wasted reads per miss: $(tail -n +2 "$WORK/table" | sort -k4,4g | head -1 | cut -d' ' -f1)"
echo "lowest FP rate per filter check: $(tail -n +2 "$WORK/table" | sort -k5,5g | head -1 | cut -d' ' -f1)"
[ "$status" -eq 0 ] || echo "FAIL: some run did not use the filter requested" >&2
exit "$status"
