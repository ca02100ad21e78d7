#!/usr/bin/env bash
# Side-by-side ratios from ONE filter_bench CSV: every filter against a
# reference filter at the same param (bits per key setting), so machine
# speed cancels out. FP ratio with a two-sample z (difference of the two
# Poisson counts over its standard deviation: |z| < 3 is noise), and time
# ratios for build, single negative and batched negative queries.
#
#   bash bench/ratios.sh out/filter_bench.csv [REFERENCE]   (default rocksdb.Bloom)
set -euo pipefail
CSV="${1:?usage: ratios.sh FILE.csv [REFERENCE]}"
REF="${2:-rocksdb.Bloom}"
awk -F, -v ref="$REF" '
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
  key = $col["filter"] SUBSEP $col["param"]
  fp[key] = $col["fp_rate"]; q[key] = $col["queries"]; bpk[key] = $col["bits_per_key"]
  b[key] = $col["build_ns_per_key"]; n[key] = $col["neg_query_ns"]; bn[key] = $col["batch_neg_query_ns"]
  if (!($col["filter"] in seen)) { seen[$col["filter"]] = 1; order[++nf] = $col["filter"] }
  if (!($col["param"] in pseen)) { pseen[$col["param"]] = 1; params[++np] = $col["param"] }
}
END {
  printf "%-40s %6s %8s %8s %7s %7s %7s %7s\n", "filter vs " ref, "param", "bpk", "fp_ratio", "fp_z", "build", "neg_q", "batch_q"
  for (f = 1; f <= nf; f++) {
    if (order[f] == ref) continue
    for (p = 1; p <= np; p++) {
      k = order[f] SUBSEP params[p]; r = ref SUBSEP params[p]
      if (!(k in fp) || !(r in fp)) continue
      c1 = fp[k] * q[k]; c2 = fp[r] * q[r]
      z = (c1 + c2 > 0) ? (fp[k] - fp[r]) / sqrt(fp[k] / q[k] + fp[r] / q[r]) : 0
      printf "%-40s %6s %8.3f %8.3f %7.2f %7.2f %7.2f %7.2f\n", order[f], params[p], bpk[k],
             (fp[r] > 0 ? fp[k] / fp[r] : 0), z, b[k] / b[r], n[k] / n[r], bn[k] / bn[r]
    }
  }
}' "$CSV"
