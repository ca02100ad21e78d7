# FP rate against actual bits per key, one line per filter, log scale, with
# the information-theoretic bound 2^-b for reference. Usage:
#   gnuplot -e "csv='out/filter_bench.csv'; png='out/filter_bench.png'" bench/plot_filter_bench.gp
set datafile separator ','
set terminal pngcairo size 1000,650 font ',11'
set output png
set title 'filter_bench: false-positive rate vs memory (lower left is better)' noenhanced
set xlabel 'actual bits per key'
set ylabel 'false-positive rate'
set logscale y
set format y '10^{%L}'
set grid
set key top right box opaque
filters = system("tail -n +2 '".csv."' | cut -d, -f1 | awk '!seen[$0]++' | tr '\\n' ' '")
plot for [f in filters] \
       sprintf("< awk -F, -v f='%s' 'NR>1 && $1==f && $5>0 {print $4\",\"$5}' '%s' | sort -t, -k1,1g", f, csv) \
       using 1:2 with linespoints lw 2 pt 7 title f noenhanced, \
     2**(-x) with lines dt 2 lc 'gray' title 'bound 2^{-b}'
