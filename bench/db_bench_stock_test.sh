#!/usr/bin/env bash
# ctest db_bench.stock: the stock db_bench (Debian rocksdb-tools) with
# libsstfilter.so preloaded. It names the policies lsm_bench knows (what
# scripts/build-in-rocksdb.sh asks a built-in db_bench),
# bench/db_bench_check.sh passes on a small load, and the db_bench drivers
# write complete CSVs only and stop when interrupted.
#
# A library built against another RocksDB version than the stock db_bench's
# cannot be preloaded into it (two RocksDBs in one process): with the
# build's version given, the test is then skipped (exit status 77).
#
#   bash bench/db_bench_stock_test.sh LIBSSTFILTER LSM_BENCH WORK_DIR [ROCKSDB_VERSION]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LIB="$1"; LSM_BENCH="$2"; WORK="$3"; BUILT="${4:-}"
. "$ROOT/scripts/lib/db_bench.sh"
db_bench_require db_bench sst_dump
stock="$(db_bench --version 2>/dev/null | sed -n 's/^db_bench version //p' | head -n1)"
if [ -n "$BUILT" ] && [ -n "$stock" ] && [ "$stock" != "$BUILT" ]; then
  echo "db_bench.stock: Skipped"
  echo "the stock db_bench is RocksDB $stock, this build's RocksDB $BUILT: it cannot preload the library"
  exit 77
fi
rm -rf "$WORK"; mkdir -p "$WORK"
got="$(LD_PRELOAD="$LIB" db_bench_policy_ids db_bench "$WORK" | sort | tr '\n' ' ')"
want="$("$LSM_BENCH" --list_policies --policies='sstfilter.*' --bits_per_key=10 |
  awk '{ print $1 }' | sort -u | tr '\n' ' ')"
[ -n "$want" ] && [ "$got" = "$want" ] ||
  { echo "FAIL: db_bench names '$got', lsm_bench '$want'" >&2; exit 1; }
none="$(db_bench_policy_ids db_bench "$WORK")"
[ -z "$none" ] || { echo "FAIL: db_bench without the plugin names '$none'" >&2; exit 1; }
SSTFILTER_LIB="$LIB" bash "$ROOT/bench/db_bench_check.sh" sstfilter.StandardBloom:10 300000

# The db_bench drivers: a small LevelAware run writes its CSV (two rows);
# one interrupted during its load stops its db_bench and leaves no CSV;
# a CSV inside DB_DIR (emptied at exit) is refused before a load.
export SSTFILTER_BUILD_DIR="$(dirname "$LIB")"
DB_DIR="$WORK" bash "$ROOT/bench/db_bench_level_aware.sh" 10 200000 2000 "$WORK/la" > "$WORK/la.log" 2>&1 ||
  { cat "$WORK/la.log" >&2; echo "FAIL: db_bench_level_aware.sh" >&2; exit 1; }
[ "$(wc -l < "$WORK/la/db_bench_level_aware.csv")" -eq 3 ] ||
  { echo "FAIL: want a header and two rows in db_bench_level_aware.csv" >&2; exit 1; }
DB_DIR="$WORK" bash "$ROOT/bench/db_bench_level_aware.sh" 10 1000000 2000 "$WORK/la-int" > "$WORK/la-int.log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "fillrandom" "$WORK/la-int.log" 2>/dev/null && break; sleep 0.1; done
grep -q "fillrandom" "$WORK/la-int.log" ||
  { cat "$WORK/la-int.log" >&2; echo "FAIL: db_bench_level_aware.sh did not start its load" >&2; exit 1; }
kill -TERM "$pid" || { echo "FAIL: the run ended before it could be interrupted" >&2; exit 1; }
if wait "$pid"; then echo "FAIL: an interrupted db_bench_level_aware.sh exited with 0" >&2; exit 1; fi
sleep 1
[ ! -e "$WORK/la-int/db_bench_level_aware.csv" ] && [ ! -e "$WORK/la-int/db_bench_level_aware.csv.partial" ] ||
  { echo "FAIL: an interrupted run left a CSV" >&2; exit 1; }
! pgrep -f "db_bench --db=$WORK/sstfilter-db-bench-la" > /dev/null ||
  { echo "FAIL: an interrupted run left its db_bench running" >&2; exit 1; }
mkdir -p "$WORK/pd"
if DB_DIR="$WORK/pd" CSV="$WORK/pd/rows.csv" POLICIES=rocksdb.Bloom bash "$ROOT/bench/db_bench_production.sh" \
     10 3000 100 100 > "$WORK/pd.log" 2>&1 || ! grep -q "inside DB_DIR" "$WORK/pd.log"; then
  cat "$WORK/pd.log" >&2; echo "FAIL: a CSV inside DB_DIR was not refused" >&2; exit 1
fi
# DEVICE_US: the read runs go through the emulated device (a fixed 3 ms
# here; the block cache holds 1/8 of the data, so most hits read the file);
# a model it cannot draw is refused before a load.
DB_DIR="$WORK/dev" CSV="$WORK/dev.csv" POLICIES=rocksdb.Bloom THREADS=1 DEVICE_US=3000,3000 \
  bash "$ROOT/bench/db_bench_production.sh" 10 3000 100 100 > "$WORK/dev.log" 2>&1 ||
  { cat "$WORK/dev.log" >&2; echo "FAIL: db_bench_production.sh with DEVICE_US" >&2; exit 1; }
awk -F, 'NR == 2 { found = 1; if (!($14 >= 3000)) bad = 1 } END { exit bad || !found }' "$WORK/dev.csv" ||
  { cat "$WORK/dev.csv" >&2; echo "FAIL: hits faster than the emulated device's 3 ms" >&2; exit 1; }
grep -q "emulated device (median 3000 µs, mean 3000 µs" "$WORK/dev.log" ||
  { echo "FAIL: the output does not name the emulated device" >&2; exit 1; }
if DB_DIR="$WORK/dev2" POLICIES=rocksdb.Bloom DEVICE_US=510,120 bash "$ROOT/bench/db_bench_production.sh" \
     10 3000 100 100 > "$WORK/dev2.log" 2>&1 || ! grep -q "DEVICE_US wants" "$WORK/dev2.log"; then
  cat "$WORK/dev2.log" >&2; echo "FAIL: DEVICE_US=510,120 was not refused" >&2; exit 1
fi
[ ! -e "$WORK/dev2" ] || [ -z "$(ls -A "$WORK/dev2")" ] ||
  { echo "FAIL: a refused run loaded" >&2; exit 1; }
echo "db_bench stock: ok ($got)"
