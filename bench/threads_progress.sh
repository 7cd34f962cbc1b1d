#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Threads and the progress thread (issue 41; docs/performance.md, "Threads and the progress
# thread"), one command per place, every variant alternating in one run (the order rotated
# from one round to the next):
#   p2p   rcmsg_bench latency (8 B, median one way) and rate (8 B), 2 ranks, with BENCH_THREAD
#         single|multiple (one thread) x RCMSG_ASYNC_PROGRESS no|control (|full when this build
#         accepts it)
#   mt    the 8 B message rate with 1 thread per rank (SINGLE) and 2 (MULTIPLE, each thread its
#         own communicator), bench/mt_bench.c built by rcmsg-mpicc and by Open MPI's mpicc
#   idle  the CPU time of every thread but the main one while the main thread computes for
#         IDLE seconds (30) with no call: RCMSG_ASYNC_PROGRESS no|control(|full), and Open MPI
#
#   flock /tmp/bench.lock sh bench/threads_progress.sh host [--reps R] [--idle S] [--build DIR]
#   flock /tmp/rxe.lock sh bench/threads_progress.sh guest [...]   (rc, one Soft-RoCE boot)
#   sh bench/threads_progress.sh --summary DIR
# Host: sm (self,sm), Open MPI over ob1/vader. Guest: rc (rc,self) on rxe0/rxe1, Open MPI over
# UCX rc_verbs (as guest_inner.sh). R rounds (5), the idle part in 2 rounds. Writes
# BUILD/bench-results/threads-PLACE-DATE/: raw.txt ("part variant metric value round"),
# *.err, summary.md (also printed): median (min-max) of the rounds.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build reps=5 idle=30
usage() {
    echo "usage: $0 host|guest [--reps R] [--idle SECONDS] [--build DIR]" >&2
    echo "       $0 --summary DIR" >&2
    exit 2
}

summary() { # dir: median (min-max) per part, variant and metric
    echo "Run: $(cat "$1/args" 2>/dev/null)"
    echo
    echo "| part | variant | metric | median | min-max | runs |"
    echo "|---|---|---|---:|---:|---:|"
    awk '{k = $1 " | " $2 " | " $3; if (!(k in n)) o[m++] = k; v[k, n[k]++] = $4}
        END {for (i = 0; i < m; i++) {k = o[i]; c = n[k]
            for (a = 0; a < c; a++) for (b = a + 1; b < c; b++)
                if (v[k, b] < v[k, a]) {t = v[k, a]; v[k, a] = v[k, b]; v[k, b] = t}
            med = c % 2 ? v[k, (c - 1) / 2] : (v[k, c / 2 - 1] + v[k, c / 2]) / 2
            printf "| %s | %.4g | %.4g-%.4g | %d |\n", k, med, v[k, 0], v[k, c - 1], c}}' \
        "$1/raw.txt"
}

rotate() { # n word... : the words rotated left by n
    n=$1
    shift
    i=0
    while [ "$i" -lt $((n % $#)) ]; do
        w=$1
        shift
        set -- "$@" "$w"
        i=$((i + 1))
    done
    echo "$@"
}

# Inside the place (host or guest): PLACE OUT REPS IDLE BUILD
inner() {
    place=$1 out=$2 reps=$3 idle=$4 b=$5/bench
    tmo=120
    [ "$place" = host ] || tmo=300
    mpirun="timeout $tmo mpirun --allow-run-as-root --oversubscribe"
    if [ "$place" = host ]; then
        tr=self,sm lat_iters=20000 mt_iters=1000 mt_warm=200 bind="--bind-to core"
        ompi="--mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism cma"
        wrap=''
    else
        tr=rc,self lat_iters=3000 mt_iters=50 mt_warm=5 bind=''
        ompi="-x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_IB_GID_INDEX=0 --mca pml ucx --mca btl ^openib,uct"
        wrap="sh $top/bench/ucx_dev.sh"
    fi
    modes="no control"
    if RCMSG_TRANSPORTS=$tr RCMSG_ASYNC_PROGRESS=full $mpirun -np 2 $bind -x RCMSG_TRANSPORTS \
        -x RCMSG_ASYNC_PROGRESS "$b/rcmsg_bench" latency --min 8 --max 8 --iters 10 \
        > /dev/null 2>> "$out/full.err"; then
        modes="$modes full"
    else
        echo "RCMSG_ASYNC_PROGRESS=full: not accepted by this build (full.err)"
    fi
    p2p='' idles='ompi'
    for m in $modes; do
        p2p="$p2p single:$m multiple:$m" idles="$idles rcmsg:$m"
    done
    rcmsg() { # thread mode program args...
        BENCH_THREAD=$1 RCMSG_ASYNC_PROGRESS=$2 RCMSG_TRANSPORTS=$tr $mpirun -np 2 $3 \
            -x BENCH_THREAD -x RCMSG_ASYNC_PROGRESS -x RCMSG_TRANSPORTS $4
    }
    for r in $(seq 1 "$reps"); do
        echo "round $r of $reps: $(uptime)"
        for v in $(rotate "$r" $p2p); do
            th=${v%%:*} m=${v#*:}
            rcmsg "$th" "$m" "$bind" "$b/rcmsg_bench latency --min 8 --max 8 --iters $lat_iters \
                --stat median" 2>> "$out/p2p.err" |
                awk -v v="$v" -v r="$r" '/^[0-9]/ {print "p2p", v, "lat_us", $2, r}'
            rcmsg "$th" "$m" "$bind" "$b/rcmsg_bench rate --min 8 --max 8" 2>> "$out/p2p.err" |
                awk -v v="$v" -v r="$r" '/^[0-9]/ {print "p2p", v, "msg_per_s", $2, r}'
        done >> "$out/raw.txt"
        for v in $(rotate "$r" rcmsg:1 rcmsg:2 ompi:1 ompi:2); do
            lib=${v%%:*} t=${v#*:}
            args="rate --threads $t --iters $mt_iters --warmup $mt_warm"
            if [ "$lib" = rcmsg ]; then
                RCMSG_TRANSPORTS=$tr $mpirun -np 2 --bind-to none -x RCMSG_TRANSPORTS \
                    "$b/rcmsg_mt_bench_rcmpi" $args
            else
                $mpirun -np 2 --bind-to none $ompi $wrap "$b/rcmsg_mt_bench_mpi" $args
            fi 2>> "$out/mt.err" | awk -v v="$v" -v r="$r" '/^rate/ {print "mt", v, "msg_per_s", $4, r}'
        done >> "$out/raw.txt"
    done
    for r in 1 2; do
        for v in $(rotate "$r" $idles); do
            if [ "$v" = ompi ]; then
                $mpirun -np 2 $ompi $wrap "$b/rcmsg_mt_bench_mpi" idle --seconds "$idle"
            else
                RCMSG_ASYNC_PROGRESS=${v#*:} RCMSG_TRANSPORTS=$tr $mpirun -np 2 \
                    -x RCMSG_ASYNC_PROGRESS -x RCMSG_TRANSPORTS "$b/rcmsg_mt_bench_rcmpi" idle \
                    --seconds "$idle"
            fi 2>> "$out/idle.err" | tee -a "$out/idle.log" |
                awk -v v="$v" -v r="$r" -v s="$idle" \
                    '/^idle/ {print "idle", v, "cpu_ms_per_" s "s", $3, r; print "idle", v, "threads", $4, r}'
        done >> "$out/raw.txt"
    done
}

[ $# -ge 1 ] || usage
case $1 in
--summary) [ $# -eq 2 ] || usage; summary "$2"; exit 0 ;;
inner) shift; inner "$@"; exit 0 ;;
host | guest) place=$1; shift ;;
*) usage ;;
esac
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || usage
    case $1 in
    --reps) reps=$2 ;;
    --idle) idle=$2 ;;
    --build) build=$(cd "$2" && pwd) ;;
    *) echo "threads_progress.sh: unknown argument '$1'" >&2; usage ;;
    esac
    shift 2
done
for v in "$reps" "$idle"; do
    case $v in '' | *[!0-9]*) echo "threads_progress.sh: --reps and --idle take a number" >&2; exit 2 ;; esac
done
for p in rcmsg_bench rcmsg_mt_bench_rcmpi rcmsg_mt_bench_mpi; do
    [ -x "$build/bench/$p" ] || { echo "threads_progress.sh: $build/bench/$p is missing (build first)" >&2; exit 2; }
done
out=$build/bench-results/threads-$place-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
echo "$place --reps $reps --idle $idle, $(git -C "$top" rev-parse --short HEAD 2>/dev/null)" > "$out/args"
echo "results in $out"
: > "$out/raw.txt"
if [ "$place" = host ]; then
    inner host "$out" "$reps" "$idle" "$build" 2>&1 | tee "$out/run.log"
else
    "$top/contrib/rxe-vm/rxe-run" --check || exit 77
    rw="--rw $top"
    case $build in "$top"/*) ;; *) rw="$rw --rw $build" ;; esac
    (cd "$build" && env -u MAKEFLAGS "$top/contrib/rxe-vm/rxe-run" --rxe 2 --numa --mem 4G \
        $rw --timeout "${RXE_GUEST_TIMEOUT:-2400}" -- \
        sh "$top/bench/threads_progress.sh" inner guest "$out" "$reps" "$idle" "$build") 2>&1 |
        tee "$out/run.log"
fi
summary "$out" | tee "$out/summary.md"
