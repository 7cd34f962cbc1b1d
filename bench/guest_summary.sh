#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Summarizes a results directory of bench/guest_inner.sh: medians over the repetitions per
# size, the ratios rcmsg/raw verbs and rcmsg/Open MPI, TSVs for plotting and summary.md.
#   guest_summary.sh DIR SIZES
# perftest prints MiB/s ("MB/sec" = 2^20 bytes/s); it is converted to MB/s (10^6), the unit
# of rcmsg_bench. Latencies are medians of per-iteration times on every side: perftest's
# t_typical, rcmsg_bench --stat median (guest_inner.sh); perftest's t_avg is kept for reference.
set -eu
dir=$1 sizes=$2
cd "$dir"

# median of the numbers on stdin ("-" when none)
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# value for SIZE in an OSU-style file (lines "size value")
osu() { awk -v s="$2" '!/^#/ && $1 == s {print $2}' "$1" 2>/dev/null; }
# perftest data line for SIZE: field F, times MULT
# (perftest prints "inf" for a percentile it could not compute: left out)
perf() { awk -v s="$2" -v f="$3" -v m="$4" '$1 == s && NF >= f && $2 ~ /^[0-9]+$/ && $f ~ /^[0-9.]+$/ {printf "%.6g\n", $f * m}' "$1" 2>/dev/null; }
med_osu() { for f in $1.*; do osu "$f" "$2"; done | median; }
med_perf() { for f in perftest.$1.$2.*; do perf "$f" "$2" "$3" "$4"; done | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f\n", a / b}'; }

{
    echo "# size send_lat_typical send_lat_avg read_lat_typical rcmsg ompi_ucx"
    for s in $sizes; do
        echo "$s $(med_perf ib_send_lat "$s" 5 1) $(med_perf ib_send_lat "$s" 6 1)" \
            "$(med_perf ib_read_lat "$s" 5 1) $(med_osu rcmsg.latency "$s") $(med_osu ompi.latency "$s")"
    done
} > latency.tsv
{
    echo "# size send_bw read_bw rcmsg_bw ompi_bw rcmsg_bibw ompi_bibw (MB/s = 10^6 B/s)"
    for s in $sizes; do
        echo "$s $(med_perf ib_send_bw "$s" 4 1.048576) $(med_perf ib_read_bw "$s" 4 1.048576)" \
            "$(med_osu rcmsg.bw "$s") $(med_osu ompi.bw "$s") $(med_osu rcmsg.bibw "$s") $(med_osu ompi.bibw "$s")"
    done
} > bandwidth.tsv

reps=$(ls rcmsg.latency.* 2>/dev/null | wc -l)
if [ "$reps" -gt 0 ]; then # the point-to-point part ran
    echo "### Point-to-point over rc, 2 ranks on rxe0/rxe1 (medians of $reps alternating runs)"
    echo
    echo "| size (B) | ib_send_lat (us) | ib_read_lat, round trip (us) | rcmsg (us) | Open MPI+UCX (us) | rcmsg / ib_send_lat | rcmsg / Open MPI |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
    grep -v '^#' latency.tsv | while read -r s sl st rl r o; do
        echo "| $s | $sl | $rl | $r | $o | $(ratio "$r" "$sl") | $(ratio "$r" "$o") |"
    done
    echo
    echo "| size (B) | ib_send_bw (MB/s) | ib_read_bw (MB/s) | rcmsg bw | Open MPI+UCX bw | rcmsg / ib_read_bw | rcmsg / Open MPI | rcmsg bibw | Open MPI bibw |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    grep -v '^#' bandwidth.tsv | while read -r s sb rb r o rbi obi; do
        echo "| $s | $sb | $rb | $r | $o | $(ratio "$r" "$rb") | $(ratio "$r" "$o") | $rbi | $obi |"
    done
    echo
    echo "| size (B) | rcmsg msg/s | Open MPI+UCX msg/s | rcmsg / Open MPI |"
    echo "|---:|---:|---:|---:|"
    for s in 8 64 1024 8192; do
        r=$(med_osu rcmsg.rate "$s") o=$(med_osu ompi.rate "$s")
        echo "| $s | $r | $o | $(ratio "$r" "$o") |"
    done
fi
if ls rcmpi.latency.* > /dev/null 2>&1; then
    echo
    echo "### rcmsg through its MPI face (rcmsg-mpicc) against native rcmsg, over rc (medians)"
    echo
    echo "| size (B) | rcmsg (us) | rcmsg-mpi (us) | rcmsg-mpi / rcmsg | rcmsg bw | rcmsg-mpi bw | rcmsg-mpi / rcmsg |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
    for s in $sizes; do
        r=$(med_osu rcmsg.latency "$s") x=$(med_osu rcmpi.latency "$s")
        rb=$(med_osu rcmsg.bw "$s") xb=$(med_osu rcmpi.bw "$s")
        echo "| $s | $r | $x | $(ratio "$x" "$r") | $rb | $xb | $(ratio "$xb" "$rb") |"
    done
fi
if ls rcmsg.coll.* > /dev/null 2>&1; then
    creps=$(ls rcmsg.coll.* | sed 's/.*\.//' | sort -u | wc -l) # the repetitions' numbers
    echo
    echo "### Collectives, 4 ranks over rc (latency per call, us; medians of $creps alternating runs)"
    echo
    echo "Busy-polling: both libraries' default. Idle CPU given up: rcmsg \`RCMSG_WAIT_MODE=event\`," \
        "Open MPI \`--mca mpi_yield_when_idle 1\`."
    echo
    echo "| collective | size (B) | rcmsg | Open MPI+UCX | rcmsg / Open MPI | rcmsg event | Open MPI yield | rcmsg event / Open MPI yield |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    for c in barrier bcast allreduce allgather alltoall reduce gather scatter reduce_scatter_block; do
        ls "rcmsg.coll.$c".* > /dev/null 2>&1 || continue # not run (guest_compare.sh --colls)
        for s in 8 1024 65536; do
            [ "$c" = barrier ] && [ "$s" != 8 ] && continue
            [ "$c" = barrier ] && s=0
            r=$(med_osu "rcmsg.coll.$c" "$s") o=$(med_osu "ompi.coll.$c" "$s")
            re=$(med_osu "rcmsg_event.coll.$c" "$s") oy=$(med_osu "ompi_yield.coll.$c" "$s")
            echo "| $c | $s | $r | $o | $(ratio "$r" "$o") | $re | $oy | $(ratio "$re" "$oy") |"
        done
    done
fi
if [ -s ucx_transports.txt ]; then
    echo
    echo "Open MPI + UCX endpoint transports (\`UCX_LOG_LEVEL=info\`, from one 2-rank run):"
    echo
    sed 's/^.*ep_cfg/    ep_cfg/' ucx_transports.txt | sort -u
fi
if ls wireup.[0-9]* > /dev/null 2>&1; then
    echo
    echo "### Wireup over rc (rcmsg_wireup_bench; median / max over ranks)"
    echo
    echo "| ranks | rcmsg_init ms | PMIx ms | open ms | exchange ms | connect ms | RSS added KiB | verbs queues mapped KiB |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
    # wireup.N holds the TSV line for N ranks (wireup.tsv, written below, is not one of them)
    for f in $(ls wireup.[0-9]* | sort -t. -k2 -n); do
        awk '!/^#/ && NF >= 15 && $1 ~ /^[0-9]+$/ {printf "| %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15}' "$f"
    done
    for f in $(ls wireup.[0-9]* | sort -t. -k2 -n); do
        awk '!/^#/ && NF >= 15 && $1 ~ /^[0-9]+$/' "$f"
    done > wireup.tsv
fi
