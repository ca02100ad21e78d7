# Ops/s of production_bench's 50%-hit workload (the most reader threads
# run) against the filter memory held (allocated bits per key, from the
# SST files' filter blocks), one line per policy and layout:
# RocksDB's built-ins dashed with open points, sstfilter solid with filled
# points. production_bench --plot runs this; by hand:
#   gnuplot -e "csv='out/prod.csv'; png='out/prod.png'" bench/plot_production_bench.gp
# CSV columns used: 1 policy, 2 layout, 5 alloc_bits_per_key,
# 10 hit_percent, 11 threads, 12 ops_per_sec.
set datafile separator ','
set terminal pngcairo size 1000,650 font ',11'
set output png
# The device the reads went to, from the CSV's first line (device=...).
device = system("head -1 '".csv."' | sed -n 's/.* device=\\([^ ]*\\).*/\\1/p'")
device = strlen(device) && device ne 'disk' ? "\ndevice: ".device : ''
set title 'production_bench: Get ops/s, 50% present keys, direct reads (higher is better)'.device noenhanced
set xlabel 'filter memory held, allocated bits per key'
set ylabel 'ops/s'
set grid
set key outside right top box
threads = system("awk -F, 'NR>1 && $1 !~ /^#/ && $10 == 50 && $11 > m {m = $11} END {print m + 0}' '".csv."'")
lines = system("awk -F, 'NR>1 && $1 !~ /^#/ && $10 == 50 {k = $1 \"#\" $2; if (!seen[k]++) printf \"%s \", k}' '".csv."'")
if (words(lines) == 0) { print 'no 50%-hit rows in '.csv; exit }
name(i) = word(lines, i)
policy(i) = substr(name(i), 1, strstrt(name(i), '#') - 1)
layout(i) = substr(name(i), strstrt(name(i), '#') + 1, strlen(name(i)))
rows(i) = sprintf("< awk -F, '$1 == \"%s\" && $2 == \"%s\" && $10 == 50 && $11 == %s' '%s' | sort -t, -k5,5g", policy(i), layout(i), threads, csv)
is_builtin(i) = strstrt(policy(i), 'rocksdb.') == 1
dash(i) = is_builtin(i) ? 2 : 1
point(i) = is_builtin(i) ? 2 * i + 2 : 2 * i + 3  # even: open, odd: filled
plot for [i=1:words(lines)] rows(i) using 5:12 with linespoints lw 2 \
     dt dash(i) pt point(i) ps 1.3 \
     title sprintf('%s (layout %s)', policy(i), layout(i)) noenhanced
