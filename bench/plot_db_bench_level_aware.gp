# sstfilter.LevelAware and uniform sstfilter.Ribbon at the same actual bits
# per key in the stock db_bench: per policy, the wasted reads per miss
# RocksDB counted, those the filters' predicted FP rates give (inspect),
# and the optimum for the shape and memory (Monkey's split, filters at
# log2(1/fp)), as grouped bars. bench/db_bench_level_aware.sh runs this; by
# hand:
#   gnuplot -e "csv='out/db_bench_level_aware.csv'; png='out/db_bench_level_aware.png'" \
#     bench/plot_db_bench_level_aware.gp
# CSV columns used: 1 policy, 8 wasted_reads_per_miss,
# 11 optimal_wasted_reads_per_miss, 14 predicted_wasted_reads_per_miss.
set datafile separator ','
set terminal pngcairo size 900,550 font ',11'
set output png
set title 'sstfilter.LevelAware in the stock db_bench, same filter memory (lower is better)' noenhanced
set ylabel 'wasted reads per miss'
set yrange [0:*]
set grid ytics
set key outside right top box
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics nomirror
plot csv using 8:xtic(1) skip 1 title 'measured (RocksDB statistics)' lc rgb '#1f77b4', \
     '' using 14 skip 1 title 'predicted (inspect)' lc rgb '#9e9e9e', \
     '' using 11 skip 1 title 'optimum for the shape' lc rgb '#2ca02c'
