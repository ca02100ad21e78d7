#!/usr/bin/env bash
# sstfilter.LevelAware in the stock db_bench, configured only by an OPTIONS
# file (LD_PRELOAD of libsstfilter.so), on RocksDB's own shape: random
# 20-byte keys and 400-byte values, default 64 MiB memtables and SST files,
# 256 MiB base level, dynamic level sizing, direct reads. The first run
# fills NUM keys with LevelAware at BITS and the sstfilter.LsmShape
# listener, sampling the live files' filter bits per key with
# `sstfilter inspect` while it loads, and flushes the last memtable (the
# read run reopens the database: a memtable recovered at open would be
# flushed before the new process's listener has seen the tree, i.e. at the
# budget); the second run is sstfilter.Ribbon at the bits per key
# LevelAware really spent. Each run then looks up READS
# absent keys (readmissing). Prints per run: files per level, bits per key,
# wasted reads per miss, the filters a miss consults (RocksDB's
# statistics, and as `sstfilter inspect` models them), inspect's optimum
# for the shape and memory and the measured wasted reads over it (and
# the filters' predicted wasted reads over it, free of the count's noise),
# the most files L0 held after a flush, and the highest and lowest bits
# per key sampled during the load (every SAMPLE_SECONDS, default 2, with
# how many samples and how many snapshots were retaken); writes
# OUT_DIR/db_bench_level_aware.csv and its plot (.png,
# bench/plot_db_bench_level_aware.gp), and per run the plan of every file
# LevelAware wrote (_plans.txt) and the flush and compaction events of the
# LOG (_events.txt).
#
#   bash bench/db_bench_level_aware.sh [BITS] [NUM] [READS] [OUT_DIR]
#   (defaults 10, 4000000, 1000000, out/; DB_DIR for the databases' parent,
#   default a fresh directory under /tmp; needs ~2 GB per 4M keys)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BITS="${1:-10}"
NUM="${2:-4000000}"
READS="${3:-1000000}"
OUT="${4:-$ROOT/out}"
SAMPLE_SECONDS="${SAMPLE_SECONDS:-2}"
awk -v b="$BITS" 'BEGIN { exit !(b ~ /^[0-9]+(\.[0-9]+)?$/ && b > 0) }' ||
  { echo "BITS must be a positive number, got '$BITS'" >&2; exit 1; }
for n in "$NUM" "$READS" "$SAMPLE_SECONDS"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "NUM, READS and SAMPLE_SECONDS must be positive integers, got '$n'" >&2; exit 1; }
done
. "$ROOT/scripts/lib/db_bench.sh"
db_bench_sstfilter_build "$ROOT"
command -v gnuplot >/dev/null || { echo "gnuplot missing: bash scripts/setup.sh" >&2; exit 1; }
db_bench_require db_bench
mkdir -p "$OUT"
CSV="$OUT/db_bench_level_aware.csv"
WORK="$(mktemp -d "${DB_DIR:-/tmp}/sstfilter-db-bench-la.XXXXXX")"
RETRIES_FILE="$WORK/retries"
FILL_PID=""
# An interrupted run stops its db_bench (a background job ignores Ctrl-C)
# and leaves no CSV of some policies only.
trap '[ -z "$FILL_PID" ] || kill "$FILL_PID" 2>/dev/null || true; rm -rf "$WORK" "$CSV.partial"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
db_bench_need_disk "$WORK" $((NUM / 2000 * 1024))  # ~500 bytes per key on disk, twice over

write_options() {  # $1: filter_policy value
  db_bench_write_options "$WORK/OPTIONS" "create_if_missing=true
max_background_jobs=2
use_direct_reads=true
listeners={sstfilter.LsmShape}" "level_compaction_dynamic_level_bytes=true" "filter_policy=$1"
}

# `sstfilter inspect --json` of the live files, on one line, or empty. A
# snapshot taken while a job installs its files can list a file deleted
# before inspect reads it (left out, with a warning), or miss the MANIFEST
# and list every *.sst: it is not the live files, and is taken again; after
# five such tries, empty. RETRIES_FILE counts them.
inspect_now() {
  local json try
  for try in 1 2 3 4 5; do
    json="$("$TOOL" inspect --json --progress=never --nochecksums "$WORK/db" 2>/dev/null |
      tr -d ' \n' || true)"
    if grep -q '"readable":false\|"levels_from_manifest":false\|missingwhenread' <<<"$json"; then
      echo x >> "$RETRIES_FILE"
      continue
    fi
    echo "$json"
    return
  done
  return 1
}

# A number from inspect's JSON: $1 the object ("total" or the first column
# family), $2 the key.
json_number() {
  { grep -o "$1" <<<"$JSON" | head -1 | grep -o "\"$2\":[0-9.e+-]\+" | head -1 | cut -d: -f2; } ||
    true
}

# The live files' filter bits per key, or empty.
bits_now() {
  JSON="$(inspect_now)" || return 1
  json_number '"total":{[^}]*}' bits_per_key
}

run_policy() {  # $1: label, $2: filter_policy value
  local label="$1"
  write_options "$2"
  rm -rf "$WORK/db"
  echo "[db_bench_level_aware] $label: fillrandom $NUM keys" >&2
  LD_PRELOAD="$LIB" db_bench --db="$WORK/db" --options_file="$WORK/OPTIONS" --num="$NUM" \
    --key_size=20 --value_size=400 --seed=1 --benchmarks=fillrandom,flush,waitforcompaction \
    < /dev/null > "$OUT/db_bench_la_${label}_fill.txt" 2>&1 &
  FILL_PID=$!
  local pid=$FILL_PID lo="" hi="" samples=0
  : > "$RETRIES_FILE"
  while kill -0 "$pid" 2>/dev/null; do
    sleep "$SAMPLE_SECONDS"
    local b; b="$(bits_now || true)"
    if [ -n "$b" ] && awk -v b="$b" 'BEGIN { exit !(b > 0) }'; then  # files with filters yet
      samples=$((samples + 1))
      echo "[db_bench_level_aware] $label: loading, live files at $b bits/key" >&2
      lo="$(awk -v a="${lo:-$b}" -v b="$b" 'BEGIN { print (b < a ? b : a) }')"
      hi="$(awk -v a="${hi:-$b}" -v b="$b" 'BEGIN { print (b > a ? b : a) }')"
    fi
  done
  wait "$pid" || { cat "$OUT/db_bench_la_${label}_fill.txt" >&2; exit 1; }
  FILL_PID=""
  echo "[db_bench_level_aware] $label: readmissing $READS" >&2
  LD_PRELOAD="$LIB" db_bench --db="$WORK/db" --options_file="$WORK/OPTIONS" --num="$NUM" \
    --key_size=20 --value_size=400 --seed=1 --use_existing_db --benchmarks=readmissing \
    --reads="$READS" --statistics < /dev/null > "$OUT/db_bench_la_${label}_read.txt" 2>&1
  "$TOOL" inspect --progress=never "$WORK/db" > "$OUT/db_bench_la_${label}_inspect.txt" 2>&1 || true
  # LevelAware's plan for every file it built (one LOG line each), from the
  # load's LOG too: each db_bench run renames the LOG before it to LOG.old.*.
  local log logs=()
  for log in "$WORK"/db/LOG.old.* "$WORK/db/LOG"; do [ -e "$log" ] && logs+=("$log"); done
  grep -h 'sstfilter.LevelAware: L' "${logs[@]}" > "$OUT/db_bench_la_${label}_plans.txt" || true
  # RocksDB's own record of the load's flushes and compactions (when each
  # began, files per level after each, inputs of each compaction): how L0
  # filled and drained.
  grep -h '"event": "\(flush_started\|flush_finished\|compaction_started\|compaction_finished\)"' "${logs[@]}" \
    > "$OUT/db_bench_la_${label}_events.txt" || true
  local out="$OUT/db_bench_la_${label}_read.txt"
  local fp=$(( $(db_bench_ticker bloom.filter.full.positive "$out") -
               $(db_bench_ticker bloom.filter.full.true.positive "$out") ))
  # Filters consulted: the ones that said no, and the false positives.
  local checks=$(( $(db_bench_ticker bloom.filter.useful "$out") + fp ))
  local retries; retries="$(wc -l < "$RETRIES_FILE")"
  JSON="$(inspect_now || true)"
  BITS_AFTER="$(json_number '"total":{[^}]*}' bits_per_key)"
  [ -n "$BITS_AFTER" ] || {
    echo "[db_bench_level_aware] $label: cannot read the live files' bits per key (see $OUT/db_bench_la_${label}_inspect.txt)" >&2
    exit 1
  }
  SHAPE="$(awk '$1 ~ /^L[0-9]+$/ && NF >= 7 && $2 ~ /^[0-9]+$/ { printf "%s%s:%s", sep, $1, $2; sep = "/" }' \
    "$OUT/db_bench_la_${label}_inspect.txt" | head -1)"
  WASTED="$(awk -v f="$fp" -v n="$READS" 'BEGIN { printf "%.5f", f / n }')"
  CHECKS="$(awk -v c="$checks" -v n="$READS" 'BEGIN { printf "%.3f", c / n }')"
  # inspect's model of the same misses: its filter checks per miss, and
  # Monkey's optimum for the shape at the memory the files hold.
  local cf='"column_families":\[{[^]]*'
  local model_checks optimum vs_optimum predicted predicted_vs
  model_checks="$(json_number "$cf" filter_checks_per_miss | awk 'NF { printf "%.3f", $1 }')"
  optimum="$(json_number "$cf" optimal_wasted_reads_per_miss | awk 'NF { printf "%.6g", $1 }')"
  vs_optimum="$(awk -v w="$fp" -v n="$READS" -v o="$optimum" 'BEGIN { if (o > 0) printf "%.3f", w / n / o }')"
  # The same ratio from the filters' predicted FP rates: free of the
  # count's noise (1/sqrt of the wasted reads counted: +-1.7% for ~3,400).
  predicted="$(json_number "$cf" wasted_reads_per_miss | awk 'NF { printf "%.6g", $1 }')"
  predicted_vs="$(awk -v p="$predicted" -v o="$optimum" 'BEGIN { if (o > 0 && p != "") printf "%.3f", p / o }')"
  # The most files L0 held after a flush during the load.
  local l0_most
  l0_most="$(grep -o '"event": "flush_finished".*"lsm_state": \[[0-9]*' \
    "$OUT/db_bench_la_${label}_events.txt" | grep -o '[0-9]*$' | sort -n | tail -1 || true)"
  echo "$label,$SHAPE,$BITS_AFTER,${lo:-},${hi:-},$samples,$retries,$WASTED,$CHECKS,$model_checks,$optimum,$vs_optimum,${l0_most:-},$predicted,$predicted_vs" \
    >> "$CSV.partial"
  printf '%-22s %-28s %8s %8s %8s %7s %7s %10s %7s %7s %9s %7s %7s %7s\n' "$label" "$SHAPE" "$BITS_AFTER" \
    "${lo:--}" "${hi:--}" "$samples" "$retries" "$WASTED" "$CHECKS" "${model_checks:--}" \
    "${optimum:--}" "${vs_optimum:--}" "${l0_most:--}" "${predicted_vs:--}"
}

echo "policy,files_per_level,bits_per_key,load_min_bits_per_key,load_max_bits_per_key,load_samples,load_retries,wasted_reads_per_miss,filter_checks_per_miss,inspect_checks_per_miss,optimal_wasted_reads_per_miss,vs_optimum,l0_most_files,predicted_wasted_reads_per_miss,predicted_vs_optimum" \
  > "$CSV.partial"
printf '%-22s %-28s %8s %8s %8s %7s %7s %10s %7s %7s %9s %7s %7s %7s\n' policy files_per_level bits load_min \
  load_max samples retries wasted checks model optimum vs_opt l0_most pred_vs
run_policy "LevelAware:$BITS" "sstfilter.LevelAware:$BITS"
run_policy "Ribbon:$BITS_AFTER" "sstfilter.Ribbon:$BITS_AFTER"
mv "$CSV.partial" "$CSV"
gnuplot -e "csv='$OUT/db_bench_level_aware.csv'; png='$OUT/db_bench_level_aware.png'" \
  "$ROOT/bench/plot_db_bench_level_aware.gp"
echo "[db_bench_level_aware] wrote $OUT/db_bench_level_aware.csv and $OUT/db_bench_level_aware.png" >&2
