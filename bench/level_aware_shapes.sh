#!/usr/bin/env bash
# sstfilter.LevelAware in five LSM shapes, each against uniform
# sstfilter.Ribbon at the SAME actual filter memory and against the optimum
# for the shape (lsm_bench's "optimum" column: Monkey's split with filters
# at log2(1/fp)). Per shape: one lsm_bench run of LevelAware at the budget,
# then one of sstfilter.Ribbon at the bits per key LevelAware really spent
# (read from the first run's CSV), both on the same deterministic LSM.
# "best_split": the optimum over uniform filters at the same bound (checks
# per miss * 2^-bits), i.e. the most any split can gain in the shape.
#
#   bash bench/level_aware_shapes.sh [BUDGET] [OUT_DIR]   (defaults 10, out/)
#   SHAPES="default shallow" to choose.
# Writes OUT_DIR/level_aware_shapes.csv and .png (bench/plot_level_aware_shapes.gp)
# and prints one line per shape.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUDGET="${1:-10}"
OUT="${2:-$ROOT/out}"
LSM_BENCH="${SSTFILTER_BUILD_DIR:-$ROOT/build}/bench/lsm_bench"
[ -x "$LSM_BENCH" ] || { echo "build first: bash scripts/build.sh" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "gnuplot missing: bash scripts/setup.sh" >&2; exit 1; }
mkdir -p "$OUT"

# name|flags. default: lsm_bench's own LSM (L0 + L3..L6). shallow: 20k-key
# flushes into an 8 MiB base level, so L0 (one file) and L5 hold ~32% of the
# keys. shallow3: the same with three L0 files, L0 13%, L5 28.5%, L6 58.5%:
# the stock db_bench's shape at 4M keys (three L0 files over 13.6% of the
# keys, L5 27.7%, L6 58.7%; bench/db_bench_level_aware.sh).
# deep: levels 4 times apart (max_bytes_for_level_multiplier), L0 + L2..L6. universal:
# RocksDB's universal compaction (sorted runs in L0 and L6).
declare -A FLAGS=(
  [default]=""
  [shallow]="--keys_per_flush=20000 --l0_tail_flushes=1 --level_base_bytes=8388608 --target_file_bytes=2097152"
  [shallow3]="--keys=460000 --keys_per_flush=20000 --l0_tail_flushes=2 --level_base_bytes=8388608 --target_file_bytes=2097152"
  [deep]="--level_multiplier=4"
  [universal]="--compaction=universal --keys_per_flush=20000 --l0_tail_flushes=1"
)
SHAPES="${SHAPES:-default shallow shallow3 deep universal}"

column() {  # column NAME CSV -> the value in the first data row
  awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
                        NR == 2 { print $c }' "$2"
}

csv="$OUT/level_aware_shapes.csv"
echo "shape,files_per_level,budget,level_aware_bits_per_key,level_aware_wasted,ribbon_bits_per_key,ribbon_wasted,vs_ribbon,optimum,vs_optimum,best_split" > "$csv"
printf '%-10s %-20s %9s %10s %9s %10s %9s %9s %9s %10s\n' shape files/level LA_bits LA_wasted Rb_bits Rb_wasted vs_Ribbon optimum vs_opt best_split
for shape in $SHAPES; do
  [ -n "${FLAGS[$shape]+x}" ] || { echo "unknown shape '$shape'" >&2; exit 1; }
  la="$OUT/shape_${shape}_level_aware.csv"
  rb="$OUT/shape_${shape}_ribbon.csv"
  echo "[level_aware_shapes] $shape: sstfilter.LevelAware:$BUDGET" >&2
  # shellcheck disable=SC2086  # the flags are words
  "$LSM_BENCH" ${FLAGS[$shape]} --policies=sstfilter.LevelAware --bits_per_key="$BUDGET" \
    --csv="$la" > "$OUT/shape_${shape}_level_aware.txt"
  la_bits=$(column bits_per_key "$la")
  echo "[level_aware_shapes] $shape: sstfilter.Ribbon:$la_bits (LevelAware's actual bits per key)" >&2
  # shellcheck disable=SC2086
  "$LSM_BENCH" ${FLAGS[$shape]} --policies=sstfilter.Ribbon --bits_per_key="$la_bits" \
    --csv="$rb" > "$OUT/shape_${shape}_ribbon.txt"
  la_w=$(column wasted_reads_per_miss "$la")
  rb_w=$(column wasted_reads_per_miss "$rb")
  opt=$(column optimal_wasted_reads_per_miss "$la")
  files=$(column files_per_level "$la")
  rb_bits=$(column bits_per_key "$rb")
  vs_rb=$(awk -v a="$la_w" -v b="$rb_w" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
  vs_opt=$(awk -v a="$la_w" -v b="$opt" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
  best=$(awk -v o="$opt" -v c="$(column files_per_miss "$la")" -v b="$la_bits" \
    'BEGIN { u = c * 2 ^ -b; printf "%.3f", (u > 0 ? o / u : 0) }')
  echo "$shape,$files,$BUDGET,$la_bits,$la_w,$rb_bits,$rb_w,$vs_rb,$opt,$vs_opt,$best" >> "$csv"
  printf '%-10s %-20s %9s %10s %9s %10s %9s %9s %9s %10s\n' "$shape" "$files" "$la_bits" "$la_w" \
    "$rb_bits" "$rb_w" "$vs_rb" "$opt" "$vs_opt" "$best"
done
png="$OUT/level_aware_shapes.png"
gnuplot -e "csv='$csv'; png='$png'" "$ROOT/bench/plot_level_aware_shapes.gp"
echo "[level_aware_shapes] wrote $csv and $png" >&2
