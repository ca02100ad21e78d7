#!/usr/bin/env bash
# ctest db_bench.stock: the stock db_bench (Debian rocksdb-tools) with
# libsstfilter.so preloaded. It names the policies lsm_bench knows (what
# scripts/build-in-rocksdb.sh asks a built-in db_bench), and
# bench/db_bench_check.sh passes on a small load.
#
#   bash bench/db_bench_stock_test.sh LIBSSTFILTER LSM_BENCH WORK_DIR
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LIB="$1"; LSM_BENCH="$2"; WORK="$3"
. "$ROOT/scripts/lib/db_bench.sh"
db_bench_require db_bench sst_dump
rm -rf "$WORK"; mkdir -p "$WORK"
got="$(LD_PRELOAD="$LIB" db_bench_policy_ids db_bench "$WORK" | sort | tr '\n' ' ')"
want="$("$LSM_BENCH" --list_policies --policies='sstfilter.*' --bits_per_key=10 |
  awk '{ print $1 }' | sort -u | tr '\n' ' ')"
[ -n "$want" ] && [ "$got" = "$want" ] ||
  { echo "FAIL: db_bench names '$got', lsm_bench '$want'" >&2; exit 1; }
none="$(db_bench_policy_ids db_bench "$WORK")"
[ -z "$none" ] || { echo "FAIL: db_bench without the plugin names '$none'" >&2; exit 1; }
SSTFILTER_LIB="$LIB" bash "$ROOT/bench/db_bench_check.sh" sstfilter.StandardBloom:10 300000
echo "db_bench stock: ok ($got)"
