#!/usr/bin/env bash
# The README's main command: set-up, build, then the comparison benchmark
# (filter_bench: sstfilter filters beside RocksDB's built-ins, one run).
# Prints the table; writes out/filter_bench.csv and out/filter_bench.png.
# Extra arguments go to filter_bench (e.g. --keys=100000).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
step() { printf '\n==== %s\n' "$*" >&2; }

step "set-up (packages, RocksDB internal header)"
bash scripts/setup.sh
step "build (Release)"
bash scripts/build.sh
mkdir -p out
step "filter_bench: sstfilter vs RocksDB built-ins"
./build/bench/filter_bench --csv=out/filter_bench.csv "$@"
step "plot"
gnuplot -e "csv='out/filter_bench.csv'; png='out/filter_bench.png'" bench/plot_filter_bench.gp
echo "results: out/filter_bench.csv, out/filter_bench.png" >&2
