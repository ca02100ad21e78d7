#!/usr/bin/env bash
# ctest memory_bench.bound_is_below_sstfilter_ribbon and
# lsm_bench.bound_is_below_sstfilter_ribbon: the benchmarks' bound.Ribbon
# (bench/ribbon_bound.h) must stay below the real sstfilter.Ribbon.
#
#   memory: 100 filters of 2K-4K keys at 6 allocated bits per key. The real
#     filter's overhead puts its FP rate ~14% above the bound; 30M absent
#     keys give ~530K false positives, a standard deviation of 0.14%. Its
#     costs table (bench/ribbon_costs.h) takes every filter apart (each
#     rebuilt byte for byte), adds the costs in turn (so the factors never
#     fall), and its expected FP rate of the filters as built matches the
#     counted one within four standard deviations of the count (0.55%;
#     queries taken as landing on every start alike, not routed past bumped
#     starts as the reader routes them, were 0.5-0.8% off).
#   lsm: a 100K-key LSM at 6 bits per key. The bound must also see the same
#     LSM: its filter checks per absent key, by level, counted on the probe
#     build from key ranges, must match what RocksDB counted in the database
#     (per-level perf context) within 1%. The real filter is ~10% above the
#     bound; 50K absent keys at ~3.9 checks and ~1.7% FP give ~3300 false
#     positives, a standard deviation of 1.7%.
#
#   bash bench/bound_check.sh memory|lsm BENCHMARK SCRATCH_DIR
set -euo pipefail
MODE="${1:?usage: bound_check.sh memory|lsm BENCHMARK SCRATCH_DIR}"
BIN="${2:?usage: bound_check.sh memory|lsm BENCHMARK SCRATCH_DIR}"
DIR="${3:?usage: bound_check.sh memory|lsm BENCHMARK SCRATCH_DIR}"
mkdir -p "$DIR"
CSV="$DIR/$MODE.csv"
LOG="$DIR/$MODE.log"
fail() { echo "FAIL: $*"; tail -n 20 "$LOG"; exit 1; }

# Column NAME of the CSV's data row whose first field is ROW_KEY (field
# KEY_COL), looked up by the header.
csv_value() {
  awk -F, -v name="$1" -v key_col="$2" -v key="$3" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
    c && $key_col == key { print $c; exit }' "$CSV"
}

case "$MODE" in
  memory)
    "$BIN" --filters=sstfilter.Ribbon,bound.Ribbon --key_ranges=2000-4000 --num_filters=100 \
      --queries_per_filter=300000 --alloc_bits_per_key=6 --csv="$CSV" > "$LOG" 2>&1 ||
      fail "memory_bench failed"
    real=$(csv_value fp_at_budget 2 sstfilter.Ribbon)
    bound=$(csv_value fp_at_budget 2 bound.Ribbon)
    echo "fp_at_budget: sstfilter.Ribbon $real, bound.Ribbon $bound"
    awk -v r="$real" -v b="$bound" 'BEGIN { exit !(b > 0 && r > b) }' || fail "bound not below"
    costs=$(grep -A1 '^range .*x_built' "$LOG" | tail -1)
    echo "costs: $costs"
    fps=$(csv_value fp_count 2 sstfilter.Ribbon)
    awk -v fps="$fps" '{
          if ($2 != "100" || $3 != "0") { print "filters taken apart, skipped: " $2 ", " $3; exit 1 }
          if ($4 != "8.0") { print "trailer bytes per filter: " $4; exit 1 }
          prev = 1
          for (i = 9; i <= 12; i++) {
            if (!($i >= prev)) { print "factor " i " falls: " $i " < " prev; exit 1 }
            prev = $i
          }
          d = $13 / $12 - 1; if (d < 0) d = -d
          if (!(fps > 0 && d <= 4 / sqrt(fps))) { print "counted " $13 " vs expected " $12; exit 1 }
        }' <<< "$costs" || fail "the costs table"
    ;;
  lsm)
    "$BIN" --keys=100000 --policies=sstfilter.Ribbon --bits_per_key=6 --misses=50000 \
      --hits=1000 --ribbon_bound --csv="$CSV" > "$LOG" 2>&1 || fail "lsm_bench failed"
    line=$(grep -A1 '^budget 6:' "$LOG") || fail "no bound.Ribbon line"
    echo "$line"
    files=$(csv_value files_per_miss 1 sstfilter.Ribbon)
    checks=$(sed -n 's/.*checks_per_miss \([0-9.]*\),.*/\1/p' <<< "$line")
    ratio=$(sed -n "s/.*; \([0-9.]*\)x sstfilter.Ribbon's.*/\1/p" <<< "$line")
    echo "files per miss: database $files, bound $checks; bound / sstfilter.Ribbon: $ratio"
    [ -n "$files" ] && [ "$files" = "$checks" ] || fail "the probe's LSM differs"
    levels=$(grep -o 'L[0-9] [0-9.]* ([0-9.]*)' <<< "$line") || fail "no levels"
    while read -r level _ bound_checks; do
      bound_checks="${bound_checks//[()]/}"
      measured=$(csv_value "checks_per_miss_$level" 1 sstfilter.Ribbon)
      echo "$level: checks per miss, bound $bound_checks, RocksDB $measured"
      awk -v a="$bound_checks" -v b="$measured" \
        'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b != "" && d <= 0.01 * a + 0.002) }' ||
        fail "$level: the bound's checks differ from RocksDB's"
    done <<< "$levels"
    awk -v r="$ratio" 'BEGIN { exit !(r > 0 && r < 1) }' || fail "bound not below"
    ;;
  *) echo "unknown mode $MODE"; exit 2 ;;
esac
