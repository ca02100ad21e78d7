#!/usr/bin/env bash
# The scale test: ONE filter_bench run builds one filter of each
# kind from 100M keys at 10 bits per key: sstfilter.StandardBloom,
# sstfilter.BlockedBloom, sstfilter.BlockedBloom/lines_per_key=2,
# sstfilter.Ribbon and RocksDB's rocksdb.Bloom and rocksdb.Ribbon (whose 10
# is "Bloom-equivalent", ~7 actual bits per key, as everywhere in
# filter_bench). Per kind it reports the build time, the peak resident
# memory the build added (peak_rss_delta_bytes_per_key, the finished filter
# included) and the temporary heap bytes per key (temp_bytes_per_key, the
# filter excluded), each sstfilter kind beside RocksDB's kind of the same
# family (Bloom kinds beside rocksdb.Bloom, Ribbon beside rocksdb.Ribbon).
#
# Fails (exit status 1) if any sstfilter kind needs more temporary memory
# per key than RocksDB's builder of its family, if any kind has a false
# negative (every one of the 100M keys is queried, single and batched), or
# if filter_bench fails.
#
# Takes about 5 minutes on the 2-core development machine (keys, builds,
# 100M positive and 10M negative queries per kind, one pass each) and
# ~4.5 GB of memory at its peak (1.8 GB of keys, then RocksDB's Ribbon
# builder, ~2.9 GB with its filter). Progress goes to stderr.
# Writes out/scale.csv (filter_bench's CSV), out/scale.txt (filter_bench's
# table, then the comparison table printed on stdout) and out/scale.log
# (filter_bench's progress and process peak RSS).
#
#   bash bench/scale.sh                  (needs scripts/setup.sh run once)
#   bash bench/scale.sh --keys=1000000   (extra flags go to filter_bench)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FILTERS="sstfilter.StandardBloom,sstfilter.BlockedBloom,sstfilter.BlockedBloom/lines_per_key=2"
FILTERS+=",sstfilter.Ribbon,rocksdb.Bloom,rocksdb.Ribbon"
step() { printf '\n==== %s\n' "$*" >&2; }

step "build filter_bench"
if [ -f build/CMakeCache.txt ]; then
  cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target filter_bench >&2
else
  bash scripts/build.sh
fi
mkdir -p out
rm -f out/scale.csv out/scale.txt out/scale.log

step "filter_bench: one filter per kind, 10 bits per key"
start=$(date +%s)
status=0
# One pass per measurement (--repeat=1): at this size one build takes
# seconds, and the FP rate over 10M negatives is already within ~1% (Bloom)
# or ~3% (Ribbon).
# stderr (progress) is shown and kept in out/scale.log for the peak line.
{ ./build/bench/filter_bench --keys=100000000 --bits_per_key=10 --repeat=1 \
    --queries=10000000 --max_fp_queries=100000000 --filters="$FILTERS" \
    --csv=out/scale.csv "$@" 2>&1 1>&3 | tee out/scale.log >&2; } 3> out/scale.txt || status=$?
elapsed=$(( $(date +%s) - start ))
peak=$(sed -n 's/.*process peak RSS \([0-9]*\) MiB.*/\1/p' out/scale.log)
cat out/scale.txt
if [ "$status" -ne 0 ] || [ ! -s out/scale.csv ]; then
  echo "scale.sh: filter_bench failed (exit status $status)" >&2
  exit 1
fi

step "comparison with RocksDB's builder of the same family"
compare=0
awk -F, -v elapsed="$elapsed" -v peak="${peak:-?}" '
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
  f = $col["filter"]; order[++n] = f
  keys[f] = $col["keys"]; bpk[f] = $col["bits_per_key"]; fp[f] = $col["fp_rate"]
  build_s[f] = $col["build_ns_per_key"] * $col["keys"] / 1e9
  rss[f] = $col["peak_rss_delta_bytes_per_key"]; temp[f] = $col["temp_bytes_per_key"]
  fn[f] = $col["false_negatives"]
}
function family(f) {
  if (f ~ /^rocksdb\./) return ""
  return (f ~ /Ribbon/) ? "rocksdb.Ribbon" : "rocksdb.Bloom"
}
END {
  printf "# %d keys per filter, one run of %d s, process peak RSS %s MiB\n", keys[order[1]], elapsed, peak
  printf "# rss: peak resident memory added by the build (filter included); temp: heap (filter excluded)\n"
  printf "%-38s %8s %10s %8s %10s %8s %10s  %-15s %10s %6s  %s\n", "filter", "bits/key",
         "fp_rate", "build_s", "rss_B/key", "rss_MiB", "temp_B/key", "vs", "its_temp", "ratio", "check"
  bad = 0
  for (i = 1; i <= n; i++) {
    f = order[i]; ref = family(f); check = "ok"; ratio = "-"; reft = "-"
    if (ref != "") {
      if (!(ref in temp)) { check = "FAIL: no " ref " row"; bad = 1 }
      else {
        reft = temp[ref]; ratio = sprintf("%.3f", temp[f] / temp[ref])
        if (temp[f] !~ /^[0-9.]+$/ || temp[f] + 0 > temp[ref] + 0) {
          check = "FAIL: more temporary memory than " ref; bad = 1
        }
      }
    } else { ref = "-" }
    if (fn[f] != 0) { check = "FAIL: " fn[f] " false negatives"; bad = 1 }
    printf "%-38s %8s %10s %8.2f %10s %8.0f %10s  %-15s %10s %6s  %s\n", f, bpk[f], fp[f], build_s[f],
           rss[f], rss[f] * keys[f] / 1048576, temp[f], ref, reft, ratio, check
  }
  exit bad
}' out/scale.csv > out/scale.cmp.txt || compare=$?
cat out/scale.cmp.txt
{ echo; cat out/scale.cmp.txt; } >> out/scale.txt
rm -f out/scale.cmp.txt
if [ "$compare" -ne 0 ]; then
  echo "scale.sh: FAILED (see the check column)" >&2
  exit 1
fi
echo "scale.sh: every sstfilter kind needs no more temporary memory per key than RocksDB's; no false negatives. Results: out/scale.csv, out/scale.txt" >&2
