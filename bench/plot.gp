# Plots of bench/host_compare.sh's medians, log-log against the message size:
#   gnuplot -e "dir='RESULTS'" bench/plot.gp   ->  RESULTS/latency.png, RESULTS/bandwidth.png
# Reads RESULTS/latency.tsv, bw.tsv and bibw.tsv (size, rcmsg, openmpi, mpich, ...; NA = none).
if (!exists("dir")) dir = "."
set terminal pngcairo size 900,600 font ",11"
set datafile separator "\t"
set datafile missing "NA"
set key autotitle columnhead top left
set logscale xy
set format x "%.0b%B"
set xtics 4
set autoscale xfix
set xlabel "message size (bytes)"
set grid
set style line 1 lw 2 lc rgb "#d62728" pt 7 ps 0.6
set style line 2 lw 2 lc rgb "#1f77b4" pt 5 ps 0.6
set style line 3 lw 2 lc rgb "#2ca02c" pt 9 ps 0.6
set style line 4 lw 2 lc rgb "#d62728" pt 6 ps 0.6 dt 2
set style line 5 lw 2 lc rgb "#1f77b4" pt 4 ps 0.6 dt 2
set style line 6 lw 2 lc rgb "#2ca02c" pt 8 ps 0.6 dt 2

set output dir."/latency.png"
set title "ping-pong latency, 2 ranks on 2 cores (median)"
set ylabel "one-way latency (us)"
plot dir."/latency.tsv" using 1:2 title "rcmsg" with linespoints ls 1, \
     ""                 using 1:3 title "Open MPI" with linespoints ls 2, \
     ""                 using 1:4 title "MPICH" with linespoints ls 3

set output dir."/bandwidth.png"
set title "bandwidth (solid: bw, one direction; dashed: bibw, both), window 64 (median)"
set ylabel "MB/s (10^6 bytes)"
plot dir."/bw.tsv"   using 1:2 title "rcmsg bw" with linespoints ls 1, \
     ""              using 1:3 title "Open MPI bw" with linespoints ls 2, \
     ""              using 1:4 title "MPICH bw" with linespoints ls 3, \
     dir."/bibw.tsv" using 1:2 title "rcmsg bibw" with linespoints ls 4, \
     ""              using 1:3 title "Open MPI bibw" with linespoints ls 5, \
     ""              using 1:4 title "MPICH bibw" with linespoints ls 6
