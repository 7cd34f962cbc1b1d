# Plots of bench/guest_compare.sh's medians, log-log against the message size:
#   gnuplot -e "dir='RESULTS'" bench/guest_plot.gp -> RESULTS/guest_latency.png, guest_bandwidth.png
# Reads RESULTS/latency.tsv and bandwidth.tsv (space-separated, "-" = none).
if (!exists("dir")) dir = "."
set terminal pngcairo size 900,600 font ",11" noenhanced
set datafile missing "-"
set logscale x 2
set logscale y 10
set xtics 8
set format x "%.0b%B"
set xlabel "message size (bytes)"
set grid
set key top left
set output dir."/guest_latency.png"
set title "one-way latency over Soft-RoCE in an emulated guest (median of runs)"
set ylabel "latency (us)"
plot dir."/latency.tsv" using 1:2 title "ib_send_lat (raw verbs)" with linespoints lw 2, \
     ""                 using 1:4 title "ib_read_lat (raw verbs, round trip)" with linespoints lw 2 dt 2, \
     ""                 using 1:5 title "rcmsg (rc)" with linespoints lw 2, \
     ""                 using 1:6 title "Open MPI + UCX rc_verbs" with linespoints lw 2
set output dir."/guest_bandwidth.png"
set title "bandwidth over Soft-RoCE in an emulated guest (median of runs)"
set ylabel "MB/s (10^6 bytes)"
plot dir."/bandwidth.tsv" using 1:2 title "ib_send_bw (raw verbs)" with linespoints lw 2, \
     ""                   using 1:3 title "ib_read_bw (raw verbs)" with linespoints lw 2 dt 2, \
     ""                   using 1:4 title "rcmsg bw (rc)" with linespoints lw 2, \
     ""                   using 1:5 title "Open MPI + UCX bw" with linespoints lw 2
