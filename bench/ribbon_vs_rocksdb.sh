#!/usr/bin/env bash
# sstfilter.Ribbon against rocksdb.Ribbon at the same memory: one
# filter_bench run at 1M keys and one at 10K keys, 4-20 bits per
# key, rocksdb.Ribbon's Bloom-equivalent setting calibrated to the same
# actual bits per key (--ribbon_same_memory). Each run measures the two
# filters in three interleaved rounds (--rounds) and queries enough absent
# keys that overhead_pct's own noise is under 0.1 points. Then it checks:
#   - overhead_pct <= 1.0 at 1M keys and <= 2.0 at 10K keys, every budget;
#   - negative query time, single and batched, <= 1.0x rocksdb.Ribbon's;
#   - build time per key <= 1.0x rocksdb.Ribbon's;
#   - temporary construction memory per key <= rocksdb.Ribbon's;
#   - no false negatives (filter_bench itself fails on any).
# Writes out/ribbon_{1m,10k}.{csv,txt}; prints every check with its figures
# and exits 1 if any fails. Takes ~10-15 minutes here (most of it counting
# false positives at 16-20 bits per key: ~5e9 queries for 0.1 points).
#
#   bash bench/ribbon_vs_rocksdb.sh [extra filter_bench flags]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="${SSTFILTER_BUILD_DIR:-$ROOT/build}/bench/filter_bench"
[ -x "$BENCH" ] || { echo "build first: bash scripts/build.sh" >&2; exit 1; }
mkdir -p "$ROOT/out"

status=0
for size in 1m 10k; do
  case "$size" in
    1m) keys=1000000; limit=1.0 ;;
    10k) keys=10000; limit=2.0 ;;
  esac
  csv="$ROOT/out/ribbon_$size.csv"
  echo "[ribbon_vs_rocksdb] $keys keys: filter_bench ..." >&2
  "$BENCH" --keys="$keys" --filters=sstfilter.Ribbon,rocksdb.Ribbon \
    --bits_per_key=4,6,8,10,12,16,20 --ribbon_same_memory --rounds=3 \
    --max_overhead_noise=0.1 --csv="$csv" "$@" | tee "$ROOT/out/ribbon_$size.txt"
  # One line per budget: ours against rocksdb.Ribbon's row of the same param.
  awk -F, -v keys="$keys" -v limit="$limit" '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    {
      k = $c["filter"] SUBSEP $c["param"]
      for (name in c) v[k, name] = $c[name]
      if (!($c["param"] in seen)) { seen[$c["param"]] = 1; params[++np] = $c["param"] }
    }
    function ratio(p, col) { return v["sstfilter.Ribbon", p, col] / v["rocksdb.Ribbon", p, col] }
    END {
      printf "\n%d keys: sstfilter.Ribbon / rocksdb.Ribbon at the same memory\n", keys
      printf "%6s %8s %8s %9s %6s %6s %6s %9s %9s  %s\n", "bpk", "ours", "theirs",
             "overhead", "build", "neg_q", "batch", "temp_B", "their_B", "checks"
      bad = 0
      for (i = 1; i <= np; i++) {
        p = params[i]
        o = v["sstfilter.Ribbon", p, "overhead_pct"]
        b = ratio(p, "build_ns_per_key"); n = ratio(p, "neg_query_ns"); q = ratio(p, "batch_neg_query_ns")
        t = v["sstfilter.Ribbon", p, "temp_bytes_per_key"]; tr = v["rocksdb.Ribbon", p, "temp_bytes_per_key"]
        msg = ""
        if (o > limit) msg = msg " overhead>" limit
        if (b > 1.0) msg = msg " build>1.0x"
        if (n > 1.0) msg = msg " neg_q>1.0x"
        if (q > 1.0) msg = msg " batch>1.0x"
        if (t > tr) msg = msg " temp>theirs"
        if (v["sstfilter.Ribbon", p, "false_negatives"] + 0 > 0) msg = msg " FALSE_NEGATIVES"
        if (msg != "") bad = 1
        printf "%6s %8.3f %8.3f %9.2f %6.2f %6.2f %6.2f %9.2f %9.2f  %s\n", p,
               v["sstfilter.Ribbon", p, "bits_per_key"], v["rocksdb.Ribbon", p, "bits_per_key"],
               o, b, n, q, t, tr, (msg == "" ? "ok" : "FAIL:" msg)
      }
      exit bad
    }' "$csv" || status=1
done
[ "$status" = 0 ] && echo "[ribbon_vs_rocksdb] every check passed" >&2 \
  || echo "[ribbon_vs_rocksdb] some checks FAILED (see above)" >&2
exit "$status"
