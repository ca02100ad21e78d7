# Wasted reads per miss against actual bits per key, one line per filter
# policy, log scale: RocksDB's built-ins dashed with open points, sstfilter
# solid with filled points; "none" (no filter: every file consulted costs a
# read) as a gray reference line. lsm_bench --plot runs this; by hand:
#   gnuplot -e "csv='out/lsm_bench.csv'; png='out/lsm_bench.png'" bench/plot_lsm_bench.gp
# CSV columns used: 1 policy, 2 budget_bits_per_key, 3 bits_per_key,
# 4 wasted_reads_per_miss; with alloc=1 (lsm_bench under jemalloc, where the
# budget counts allocated memory) alloc_bits_per_key instead of bits_per_key.
#
# A --switch_to run (rows "A->B", "A->B@25%", ...) is drawn against the
# share of files rewritten instead, one line per switch and budget: 0% is
# the row right after the switch. A "none" row has no rewrite axis and is
# left out.
set datafile separator ','
set terminal pngcairo size 1000,650 font ',11'
set output png
set title 'lsm\_bench: wasted data-block reads per lookup of an absent key (lower is better)'
if (!exists("alloc")) alloc = 0
xname = alloc ? 'alloc_bits_per_key' : 'bits_per_key'
set xlabel (alloc ? 'allocated filter memory (jemalloc), bits per key' : 'actual filter memory, bits per key')
set ylabel 'wasted reads per miss'
set logscale y
set format y '10^{%L}'
set grid
set key outside right top box
# One word per switch line: the switch (the name before '@') and the
# budget, joined by '#'; empty unless this is a --switch_to run.
lines = system("awk -F, 'NR>1 && index($1, \"->\") {split($1, a, \"@\"); k = a[1] \"#\" $2; if (!seen[k]++) printf \"%s \", k}' '".csv."'")
n = words(lines)
if (n > 0) {
  name(w) = w[1:strstrt(w, '#') - 1]
  budget(w) = w[strstrt(w, '#') + 1:]
  rewrite_series(w) = sprintf("< awk -F, -v p='%s' -v b='%s' 'NR>1 && $2==b && $4>0 && ($1==p || index($1, p \"@\")==1) {x = 0; i = index($1, \"@\"); if (i) x = substr($1, i + 1) + 0; print x \",\" $4}' '%s' | sort -t, -k1,1g", name(w), budget(w), csv)
  set title 'lsm\_bench: wasted data-block reads per miss as compaction rewrites files with the new policy'
  set xlabel 'files rewritten with the new policy (% of every level)'
  set xrange [-5:105]
  set key below box  # switch names are long: the plot keeps its full width
  set bmargin 7
  plot for [i=1:n] rewrite_series(word(lines, i)) using 1:2 with linespoints lw 2 pt 2 * i + 3 \
         ps 1.3 title sprintf('%s, %s bits/key', name(word(lines, i)), budget(word(lines, i))) noenhanced
  exit
}
policies = system("tail -n +2 '".csv."' | cut -d, -f1 | grep -vx none | awk '!seen[$0]++' | tr '\\n' ' '")
none = system("awk -F, 'NR>1 && $1==\"none\" {print $4; exit}' '".csv."'")
series(p) = sprintf("< awk -F, -v p='%s' -v c='%s' 'NR==1 {for (i = 1; i <= NF; i++) if ($i==c) x = i} NR>1 && $1==p && $4>0 {print $x\",\"$4}' '%s' | sort -t, -k1,1g", p, xname, csv)
n = words(policies)
is_builtin(i) = strstrt(word(policies, i), 'rocksdb.') == 1
dash(i) = is_builtin(i) ? 2 : 1
point(i) = is_builtin(i) ? 2 * i + 2 : 2 * i + 3  # even: open, odd: filled
if (strlen(none) > 0) {
  plot for [i=1:n] series(word(policies, i)) using 1:2 with linespoints lw 2 \
         dt dash(i) pt point(i) ps 1.3 \
         title word(policies, i) noenhanced, \
       (none + 0) with lines dt 3 lw 2 lc 'gray' title sprintf('none (no filter): %.2f', none + 0)
} else {
  plot for [i=1:n] series(word(policies, i)) using 1:2 with linespoints lw 2 \
         dt dash(i) pt point(i) ps 1.3 \
         title word(policies, i) noenhanced
}
