#!/usr/bin/env bash
# Runs the system's stock db_bench (Debian rocksdb-tools) with an sstfilter
# policy loaded by LD_PRELOAD and selected only through --options_file, and
# checks from its statistics that the filter answered with the FP rate the
# standard Bloom formula predicts, (1 - e^(-k/b))^k, within 10%.
#
#   bash bench/db_bench_check.sh [POLICY_ID] [NUM_KEYS]
#   (defaults: sstfilter.StandardBloom:10, 1000000; needs build/libsstfilter.so,
#   or SSTFILTER_LIB)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
POLICY="${1:-sstfilter.StandardBloom:10}"
NUM="${2:-1000000}"
LIB="${SSTFILTER_LIB:-$ROOT/build/libsstfilter.so}"
[ -f "$LIB" ] || { echo "build first: bash scripts/build.sh" >&2; exit 1; }
. "$ROOT/scripts/lib/db_bench.sh"
db_bench_require db_bench sst_dump

WORK="$(mktemp -d /tmp/sstfilter-db-bench.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
db_bench_write_options "$WORK/OPTIONS" "create_if_missing=true" "write_buffer_size=4194304" \
  "filter_policy=$POLICY"
echo "[db_bench_check] db_bench fillrandom,readmissing, $NUM keys, filter_policy=$POLICY" >&2
LD_PRELOAD="$LIB" db_bench --db="$WORK/db" --options_file="$WORK/OPTIONS" \
  --benchmarks=fillrandom,readmissing --num="$NUM" --statistics > "$WORK/out.txt" 2>&1 \
  || { cat "$WORK/out.txt" >&2; exit 1; }
grep -E '^(fillrandom|readmissing) ' "$WORK/out.txt"

# The policy in effect, from the SST files themselves (never trust the id):
# every SST must name it.
read -r files matching _ < <(db_bench_sst_filters "$WORK/db" "${POLICY%%:*}")
echo "[db_bench_check] SST files naming ${POLICY%%:*}: $matching of $files" >&2
[ "$files" -gt 0 ] && [ "$matching" -eq "$files" ] || { echo "FAIL: SST files without the filter"; exit 1; }

useful="$(db_bench_ticker bloom.filter.useful "$WORK/out.txt")"
positive="$(db_bench_ticker bloom.filter.full.positive "$WORK/out.txt")"
true_pos="$(db_bench_ticker bloom.filter.full.true.positive "$WORK/out.txt")"
bpk="$(echo "$POLICY" | sed -n 's/.*:\([0-9.]*\)$/\1/p')"; bpk="${bpk:-10}"
awk -v u="$useful" -v p="$positive" -v t="$true_pos" -v b="$bpk" 'BEGIN {
  fp = p - t; checks = u + fp
  if (checks == 0) { print "FAIL: the filter was not used"; exit 1 }
  k = int(b * log(2)); best = 1
  for (j = (k > 1 ? k - 1 : 1); j <= k + 1; j++) {
    r = (1 - exp(-j / b)) ^ j; if (j == (k > 1 ? k - 1 : 1) || r < bestr) { bestr = r; best = j } }
  observed = fp / checks
  printf "filter checks %d, false positives %d: FP rate %.4f%%, formula (k=%d, %g bits/key) %.4f%%, ratio %.3f\n",
         checks, fp, 100 * observed, best, b, 100 * bestr, observed / bestr
  if (observed > 1.1 * bestr || observed < 0.9 * bestr) { print "FAIL: not within 10% of the formula"; exit 1 }
  print "PASS"
}'
