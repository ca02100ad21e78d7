# sstfilter.LevelAware per LSM shape: its wasted reads per miss beside
# uniform sstfilter.Ribbon's at the same actual bits per key and the
# optimum for the shape (Monkey's split, filters at log2(1/fp)), as grouped
# bars on a log scale. bench/level_aware_shapes.sh runs this; by hand:
#   gnuplot -e "csv='out/level_aware_shapes.csv'; png='out/level_aware_shapes.png'" \
#     bench/plot_level_aware_shapes.gp
# CSV columns used: 1 shape, 5 level_aware_wasted, 7 ribbon_wasted,
# 9 optimum.
set datafile separator ','
set terminal pngcairo size 900,550 font ',11'
set output png
set title 'sstfilter.LevelAware by LSM shape, same filter memory (lower is better)'
set ylabel 'wasted reads per miss'
set logscale y
set format y '10^{%L}'
set grid ytics
set key outside right top box
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics nomirror
plot csv using 7:xtic(1) skip 1 title 'uniform sstfilter.Ribbon' lc rgb '#9e9e9e', \
     '' using 5 skip 1 title 'sstfilter.LevelAware' lc rgb '#1f77b4', \
     '' using 9 skip 1 title 'optimum for the shape' lc rgb '#2ca02c'
