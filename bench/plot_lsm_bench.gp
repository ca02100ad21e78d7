# Wasted reads per miss against actual bits per key, one line per filter
# policy, log scale: RocksDB's built-ins dashed with open points, sstfilter
# solid with filled points; "none" (no filter: every file consulted costs a
# read) as a gray reference line. lsm_bench --plot runs this; by hand:
#   gnuplot -e "csv='out/lsm_bench.csv'; png='out/lsm_bench.png'" bench/plot_lsm_bench.gp
# CSV columns used: 1 policy, 3 bits_per_key, 4 wasted_reads_per_miss.
set datafile separator ','
set terminal pngcairo size 1000,650 font ',11'
set output png
set title 'lsm\_bench: wasted data-block reads per lookup of an absent key (lower is better)'
set xlabel 'actual filter memory, bits per key'
set ylabel 'wasted reads per miss'
set logscale y
set format y '10^{%L}'
set grid
set key bottom left box opaque
policies = system("tail -n +2 '".csv."' | cut -d, -f1 | grep -vx none | awk '!seen[$0]++' | tr '\\n' ' '")
none = system("awk -F, 'NR>1 && $1==\"none\" {print $4; exit}' '".csv."'")
series(p) = sprintf("< awk -F, -v p='%s' 'NR>1 && $1==p && $4>0 {print $3\",\"$4}' '%s' | sort -t, -k1,1g", p, csv)
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
