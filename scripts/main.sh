#!/usr/bin/env bash
# The README's main command: set-up, build, then the comparison benchmarks,
# sstfilter filters beside RocksDB's built-ins: filter_bench (one filter per
# configuration) and lsm_bench (wasted reads per miss in a multi-level LSM).
# Prints both tables; writes out/filter_bench.{csv,png} and
# out/lsm_bench.{csv,png}. Extra arguments go to filter_bench (e.g.
# --keys=100000); lsm_bench runs with its defaults.
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
step "lsm_bench: wasted reads per miss in a multi-level LSM"
./build/bench/lsm_bench --csv=out/lsm_bench.csv --plot=out/lsm_bench.png
echo "results: out/filter_bench.csv, out/filter_bench.png, out/lsm_bench.csv, out/lsm_bench.png" >&2
