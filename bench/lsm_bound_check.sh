#!/usr/bin/env bash
# ctest lsm_bench.bound: lsm_bench --ribbon_bound on a small LSM.
#   1. The bound's filters consulted per absent key (from the probe build)
#      equal the real database's files per miss: the probe saw the same LSM.
#   2. The bound is below the real sstfilter.Ribbon. At 6 bits per key the
#      real one's overhead puts it ~10% above (1-3.5% of its bits at these
#      file sizes); 50K absent keys at ~3.9 checks and ~1.7% FP give ~3300
#      false positives, a standard deviation of 1.7%.
#
#   bash bench/lsm_bound_check.sh BUILD/bench/lsm_bench SCRATCH_DIR
set -euo pipefail
BIN="${1:?usage: lsm_bound_check.sh LSM_BENCH SCRATCH_DIR}"
DIR="${2:?usage: lsm_bound_check.sh LSM_BENCH SCRATCH_DIR}"
mkdir -p "$DIR"
out=$("$BIN" --keys=100000 --policies=sstfilter.Ribbon --bits_per_key=6 --misses=50000 \
        --hits=1000 --ribbon_bound --csv="$DIR/lsm_bound_check.csv" 2>/dev/null)
line=$(grep '^budget 6:' <<< "$out")
echo "$line"
files=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "files_per_miss") c = i }
                 NR == 2 { print $c }' "$DIR/lsm_bound_check.csv")
checks=$(sed -n 's/.*checks_per_miss \([0-9.]*\),.*/\1/p' <<< "$line")
ratio=$(sed -n "s/.*; \([0-9.]*\)x sstfilter.Ribbon's.*/\1/p" <<< "$line")
echo "files per miss: database $files, bound $checks; bound / sstfilter.Ribbon: $ratio"
[ -n "$files" ] && [ "$files" = "$checks" ] || { echo "FAIL: the probe's LSM differs"; exit 1; }
awk -v r="$ratio" 'BEGIN { exit !(r > 0 && r < 1) }' || { echo "FAIL: bound not below"; exit 1; }
