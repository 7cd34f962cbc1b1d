#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs rcmsg, Open MPI and MPICH side by side on this host (2 ranks, shared memory, each rank
# bound to its own core) with the same measurement code (bench/bench.c), and summarises.
#
#   sh bench/host_compare.sh [--reps N] [--stat median|mean] [--builddir DIR] [--out DIR] [--quick]
#
#   rcmsg     mpirun -np 2 --bind-to core -x RCMSG_TRANSPORTS=self,sm bench/rcmsg_bench
#   Open MPI  mpirun -np 2 --bind-to core --mca pml ob1 --mca btl self,vader
#                    --mca btl_vader_single_copy_mechanism cma bench/rcmsg_bench_mpi
#   MPICH     mpirun.mpich -np 2 -bind-to core bench/rcmsg_bench_mpich   (when built)
#
# and, as coll4_allreduce, coll4_bcast, coll4_reduce, coll4_gather and coll4_scatter, those
# collectives with 4 ranks on the 2 cores (oversubscribed, unbound:
# --oversubscribe --bind-to none, -bind-to none), where each library yields the CPU when idle
# on its own (rcmsg: RCMSG_YIELD=auto; Open MPI: mpi_yield_when_idle, set when oversubscribed);
# not MPICH, which busy-polls (a call then waits for the scheduler: 8 ms each here).
#
# Each benchmark runs R times per implementation (--reps, default 5), the implementations
# alternating (the first one rotates from one repetition to the next), and the median per size
# is kept. Each run reports, per size, the median of the per-iteration times (--stat median,
# the default: a shared or virtual host preempts the ranks now and then, for milliseconds,
# which ruins means) or their mean as OSU does (--stat mean). Writes into the results directory (--out, default ./bench-results-DATE):
#   raw/BENCH.IMPL.REP.txt    every run's output (and .err: its stderr); raw/durations.tsv
#   BENCH.tsv                 size, median per implementation, rcmsg/Open MPI, rcmsg/MPICH
#   summary.md                the markdown tables, also printed on stdout
#   machine.txt               CPU, kernel, library versions, where each rank was bound
#   *.png                     latency and bandwidth plots (bench/plot.gp) if gnuplot is there
# --quick: fewer iterations and sizes (a check of the script, not a measurement).
set -u
here=$(cd "$(dirname "$0")" && pwd)
reps=5 stat=median builddir='' out='' quick=no
usage() { echo "usage: $0 [--reps N] [--stat median|mean] [--builddir DIR] [--out DIR] [--quick]"; }
while [ $# -gt 0 ]; do
    case $1 in
    --reps) [ $# -ge 2 ] || { usage >&2; exit 2; }; reps=$2; shift 2 ;;
    --stat) [ $# -ge 2 ] || { usage >&2; exit 2; }; stat=$2; shift 2 ;;
    --builddir) [ $# -ge 2 ] || { usage >&2; exit 2; }; builddir=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || { usage >&2; exit 2; }; out=$2; shift 2 ;;
    --quick) quick=yes; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "host_compare: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
case $reps in '' | *[!0-9]* | 0) echo "host_compare: --reps wants a positive integer" >&2; exit 2 ;; esac
case $stat in median | mean) ;; *) echo "host_compare: --stat wants median or mean" >&2; exit 2 ;; esac

# The build directory: given, the current one, or ../build next to this script.
if [ -z "$builddir" ]; then
    for d in . "$here/../build"; do
        [ -x "$d/bench/rcmsg_bench" ] && { builddir=$d; break; }
    done
fi
[ -n "$builddir" ] && [ -x "$builddir/bench/rcmsg_bench" ] ||
    { echo "host_compare: no bench/rcmsg_bench: build first, or give --builddir" >&2; exit 2; }
bin=$(cd "$builddir/bench" && pwd)
[ -x "$bin/rcmsg_bench_mpi" ] ||
    { echo "host_compare: no bench/rcmsg_bench_mpi (configure found no mpicc)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "host_compare: no mpirun (Open MPI)" >&2; exit 2; }
out=${out:-bench-results-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out/raw" || exit 1
out=$(cd "$out" && pwd)

root=
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
ompi_run="mpirun $root -np 2 --bind-to core"
impls="rcmsg ompi"
# rcmsg through its MPI face (bench/rcmsg_bench_rcmpi, built by rcmsg-mpicc)
[ -x "$bin/rcmsg_bench_rcmpi" ] && impls="$impls rcmpi"
mpich=no
if [ -x "$bin/rcmsg_bench_mpich" ] && command -v mpirun.mpich >/dev/null; then
    impls="$impls mpich"
    mpich=yes
fi

# run IMPL NP ARGS...: one benchmark run of one implementation on NP ranks (2: one per core;
# more: unbound)
run() {
    impl=$1 np=$2; shift 2
    orun=$ompi_run mbind="-np 2 -bind-to core"
    if [ "$np" != 2 ]; then
        orun="mpirun $root -np $np --oversubscribe --bind-to none" mbind="-np $np -bind-to none"
    fi
    case $impl in
    rcmsg) timeout 300 $orun -x RCMSG_TRANSPORTS=self,sm "$bin/rcmsg_bench" "$@" ;;
    rcmpi) timeout 300 $orun -x RCMSG_TRANSPORTS=self,sm "$bin/rcmsg_bench_rcmpi" "$@" ;;
    ompi) timeout 300 $orun --mca pml ob1 --mca btl self,vader \
        --mca btl_vader_single_copy_mechanism cma "$bin/rcmsg_bench_mpi" "$@" ;;
    # shellcheck disable=SC2086
    mpich) timeout 300 mpirun.mpich $mbind "$bin/rcmsg_bench_mpich" "$@" ;;
    esac
}

# NAME: arguments. Iterations are OSU's defaults (bench --help) but for latency above 8 KiB
# (200, not 1000: a median needs fewer, and the 4 MiB ping-pongs dominated the run time).
if [ $quick = yes ]; then
    p2p="--max 64k --iters 200 --iters-large 20" lat="" coll="--max 64k --iters 100"
else
    p2p="--max 4m" lat="--iters-large 200" coll="--max 1m"
fi
benches="latency bw bibw rate coll_allreduce coll_bcast coll_allgather coll_alltoall coll_barrier
    coll_reduce coll_gather coll_scatter coll_reduce_scatter_block
    coll4_allreduce coll4_bcast coll4_reduce coll4_gather coll4_scatter"
np_of() { case $1 in coll4_*) echo 4 ;; *) echo 2 ;; esac; }
args_of() {
    case $1 in
    latency) echo "latency $p2p $lat --stat $stat" ;;
    bw | bibw) echo "$1 $p2p --stat $stat" ;;
    rate) echo "rate --max 8k --stat $stat" ;;
    coll_barrier) echo "coll barrier --stat $stat" ;;
    coll_*) echo "coll ${1#coll_} $coll --stat $stat" ;;
    coll4_*) echo "coll ${1#coll4_} $coll --stat $stat" ;;
    esac
}

# ---- the machine ----------------------------------------------------------------------------
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) online CPUs"
    echo "hypervisor: $(lscpu | sed -n 's/^Hypervisor vendor: *//p')"
    echo "caches: $(lscpu | sed -n 's/^\(L[123][di]*\) cache: *\(.*\)/\1 \2/p' | paste -sd, -)"
    echo "kernel: $(uname -srm)"
    echo "rcmsg: commit $(git -C "$here/.." describe --always --dirty 2>/dev/null || echo '?')"
    echo "Open MPI: $(mpirun --version 2>/dev/null | head -1)"
    [ $mpich = yes ] && echo "MPICH: $(mpirun.mpich --version 2>/dev/null | sed -n 's/^ *Version: *//p' | head -1) ($(mpichversion 2>/dev/null | sed -n 's/^MPICH Device:[[:space:]]*//p'))"
    echo "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "bindings (Cpus_allowed_list of each rank):"
    echo "  Open MPI mpirun: $($ompi_run sh -c 'grep Cpus_allowed_list /proc/self/status' 2>&1 | awk '{print $2}' | paste -sd' ' -)"
    [ $mpich = yes ] &&
        echo "  mpirun.mpich: $(mpirun.mpich -np 2 -bind-to core sh -c 'grep Cpus_allowed_list /proc/self/status' 2>&1 | awk '{print $2}' | paste -sd' ' -)"
} > "$out/machine.txt"
cat "$out/machine.txt" >&2

# ---- the runs -------------------------------------------------------------------------------
start=$(date +%s) failed=0
rep=1
while [ $rep -le "$reps" ]; do
    for b in $benches; do
        # the implementations in rotated order: rep 1 starts with the first, rep 2 the second...
        order=$(echo $impls | awk -v r="$rep" '{ for (i = 0; i < NF; i++) printf "%s ", $(1 + (i + r - 1) % NF) }')
        for impl in $order; do
            # MPICH busy-polls: oversubscribed, each call waits for the scheduler (8 ms here)
            case $impl.$b in mpich.coll4_*) continue ;; esac
            f="$out/raw/$b.$impl.$rep"
            t0=$(date +%s.%N)
            # shellcheck disable=SC2046
            if ! run $impl "$(np_of $b)" $(args_of $b) > "$f.txt" 2> "$f.err"; then
                echo "host_compare: $b $impl rep $rep FAILED (see $f.err; $f.failed)" >&2
                mv "$f.txt" "$f.failed" # not counted in the medians
                failed=$((failed + 1))
            fi
            awk -v b="$b" -v i="$impl" -v r="$rep" -v t0="$t0" -v t1="$(date +%s.%N)" \
                'BEGIN { printf "%s\t%s\t%s\t%.1f\n", b, i, r, t1 - t0 }' >> "$out/raw/durations.tsv"
        done
    done
    echo "host_compare: repetition $rep of $reps done ($(($(date +%s) - start)) s)" >&2
    rep=$((rep + 1))
done

# ---- medians and ratios ---------------------------------------------------------------------
# median FILES...: "size median" over the data lines of the files (one value per size per file)
median() {
    cat "$@" 2>/dev/null | awk '!/^#/ && NF >= 2 {
        n = ++cnt[$1]; v[$1, n] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++ns] = $1 } }
    END {
        for (s = 1; s <= ns; s++) {
            k = order[s]; n = cnt[k]
            for (i = 1; i <= n; i++) a[i] = v[k, i] + 0
            for (i = 2; i <= n; i++) { x = a[i]; j = i - 1; while (j > 0 && a[j] > x) { a[j + 1] = a[j]; j-- } a[j + 1] = x }
            m = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
            printf "%s %.2f\n", k, m
        }
    }'
}

unit_of() {
    case $1 in
    bw | bibw) echo "MB/s" ;;
    rate) echo "messages/s" ;;
    *) echo "us" ;;
    esac
}

summary="$out/summary.md"
{
    echo "Medians of $reps runs per size (each run: the $stat of its timed iterations); 2 ranks, one per core (coll4_*: 4 ranks, unbound); ratio = rcmsg / other."
    echo "Latency: a ratio above 1 means rcmsg is slower. Bandwidth and rate: below 1 means rcmsg is slower."
    for b in $benches; do
        for impl in $impls; do
            median "$out"/raw/$b.$impl.*.txt > "$out/raw/$b.$impl.median"
        done
        [ -e "$out/raw/$b.mpich.median" ] || : > "$out/raw/$b.mpich.median"
        [ -e "$out/raw/$b.rcmpi.median" ] || : > "$out/raw/$b.rcmpi.median"
        # join on the size, in the order of rcmsg's output (or Open MPI's if rcmsg failed)
        sizes=$(cat "$out/raw/$b.rcmsg.median" "$out/raw/$b.ompi.median" | awk '!s[$1]++ {print $1}')
        {
            printf 'size\trcmsg\topenmpi\tmpich\trcmsg/openmpi\trcmsg/mpich\trcmsg-mpi\trcmsg-mpi/rcmsg\n'
            for s in $sizes; do
                r=$(awk -v s="$s" '$1 == s {print $2}' "$out/raw/$b.rcmsg.median")
                o=$(awk -v s="$s" '$1 == s {print $2}' "$out/raw/$b.ompi.median")
                m=$(awk -v s="$s" '$1 == s {print $2}' "$out/raw/$b.mpich.median")
                x=$(awk -v s="$s" '$1 == s {print $2}' "$out/raw/$b.rcmpi.median")
                awk -v s="$s" -v r="${r:-NA}" -v o="${o:-NA}" -v m="${m:-NA}" -v x="${x:-NA}" 'BEGIN {
                    ro = (r != "NA" && o != "NA" && o + 0 > 0) ? sprintf("%.2f", r / o) : "NA"
                    rm = (r != "NA" && m != "NA" && m + 0 > 0) ? sprintf("%.2f", r / m) : "NA"
                    xr = (r != "NA" && x != "NA" && r + 0 > 0) ? sprintf("%.2f", x / r) : "NA"
                    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s, r, o, m, ro, rm, x, xr }'
            done
        } > "$out/$b.tsv"
        echo
        echo "### $b ($(unit_of $b)): $(args_of $b), $(np_of $b) ranks"
        echo
        echo "| size (B) | rcmsg | Open MPI | MPICH | rcmsg/Open MPI | rcmsg/MPICH | rcmsg-mpi | rcmsg-mpi/rcmsg |"
        echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
        awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$out/$b.tsv"
    done
    echo
    echo "Total run time: $(($(date +%s) - start)) s; failed runs: $failed."
} > "$summary"
cat "$summary"

if command -v gnuplot >/dev/null; then
    gnuplot -e "dir='$out'" "$here/plot.gp" 2> "$out/gnuplot.err" ||
        echo "host_compare: gnuplot failed (see $out/gnuplot.err)" >&2
fi
echo "host_compare: results in $out" >&2
[ $failed -eq 0 ]
