#!/usr/bin/env bash
# Side-by-side ratios from ONE production_bench CSV: every policy against a
# reference policy in the same layout, budget, workload and thread count.
# With --rounds the policies took turns slice by slice on the same lookups,
# so each slice's ratio is a comparison under the same machine state: the
# lowest and highest slice ratio show how far one slice is from the next.
# Also the ratios of device reads per lookup, of wasted reads per miss and
# of the median direct read of each copy's files before the timed workloads
# ("disk": above 1, the policy's copy read slower from the disk than the
# reference's, and its ops/s ratio holds that too).
# A policy named twice in the run (e.g. the reference first and last) is
# listed as NAME#2. CSVs written before the per-slice column give no slices.
#
#   bash bench/production_ratios.sh out/prod.csv [REFERENCE]   (default rocksdb.Bloom)
set -euo pipefail
CSV="${1:?usage: production_ratios.sh FILE.csv [REFERENCE]}"
REF="${2:-rocksdb.Bloom}"
[ -r "$CSV" ] || { echo "production_ratios.sh: cannot read $CSV" >&2; exit 2; }
awk -F, -v ref="$REF" '
/^#/ { next }
!header { for (i = 1; i <= NF; i++) col[$i] = i; header = 1
          if (!("policy" in col && "ops_per_sec" in col && "threads" in col)) {
            print "production_ratios.sh: not a production_bench CSV" > "/dev/stderr"; bad = 2; exit 2 }
          next }
{
  group = $col["layout"] SUBSEP $col["budget_bits_per_key"] SUBSEP $col["hit_percent"] SUBSEP $col["threads"]
  name = $col["policy"]
  n = ++seen[group, name]
  if (n > 1) name = name "#" n
  key = group SUBSEP name
  ops[key] = $col["ops_per_sec"]; dev[key] = $col["device_reads_per_lookup"]
  wasted[key] = $col["wasted_reads_per_miss"]
  slices[key] = ("ops_per_sec_by_round" in col) ? $col["ops_per_sec_by_round"] : ""
  disk[key] = ("copy_read_median_us" in col) ? $col["copy_read_median_us"] : "-"
  if (!(group in gseen)) { gseen[group] = 1; groups[++ng] = group }
  if (!((group, name) in listed)) { listed[group, name] = 1; names[group] = names[group] "," name }
}
function ratio(a, b) { return b > 0 ? a / b : 0 }
END {
  if (bad) exit bad
  if (!header) { print "production_ratios.sh: no rows in the CSV" > "/dev/stderr"; exit 2 }
  out = sprintf("%-6s %6s %4s %3s %-26s %8s %17s %9s %9s %6s\n", "layout", "budget", "hit%", "thr",
                "policy vs " ref, "ops/s", "slices (min-max)", "dev.reads", "wasted", "disk")
  found = 0
  for (g = 1; g <= ng; g++) {
    split(groups[g], f, SUBSEP)
    r = groups[g] SUBSEP ref
    if (!(r in ops)) continue
    nr = split(slices[r], rs, " ")
    np = split(substr(names[groups[g]], 2), list, ",")
    for (p = 1; p <= np; p++) {
      if (list[p] == ref) continue
      k = groups[g] SUBSEP list[p]
      lo = ""; hi = ""
      if (split(slices[k], ks, " ") == nr && nr > 1) {
        for (i = 1; i <= nr; i++) {
          x = ratio(ks[i], rs[i])
          if (lo == "" || x < lo) lo = x
          if (hi == "" || x > hi) hi = x
        }
        range = sprintf("%.2f-%.2f", lo, hi)
      } else {
        range = "-"
      }
      d = (disk[k] > 0 && disk[r] > 0) ? sprintf("%.2f", disk[k] / disk[r]) : "-"
      out = out sprintf("%-6s %6s %4s %3s %-26s %8.3f %17s %9.3f %9.3f %6s\n", f[1], f[2], f[3], f[4],
                        list[p], ratio(ops[k], ops[r]), range, ratio(dev[k], dev[r]),
                        ratio(wasted[k], wasted[r]), d)
      found = 1
    }
  }
  if (!found) { print "production_ratios.sh: no rows to compare with " ref > "/dev/stderr"; exit 1 }
  printf "%s", out
}' "$CSV"
