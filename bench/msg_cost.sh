#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 18: what one small message costs the CPU over rc, rcmsg (RCMSG_EAGER_RDMA=no and yes)
# against Open MPI + UCX rc_verbs, in ONE boot of the Soft-RoCE guest. Under emulation the
# user-space instructions and the system calls of each round trip are what separate the
# libraries, not the wire; this counts both, per 8-byte round trip of bench's `latency`:
#   - instructions (valgrind --tool=callgrind, collected only inside bench_send and
#     bench_recv): per rank and round trip, the send, the receive (its polling included), and
#     the functions that cost most;
#   - system calls (strace -c -f of a run of ITERS + 2000 round trips minus one of ITERS): per
#     round trip, by name;
#   - the guest CPU's instruction rate (bench/guest_ips.c, timed, and counted by callgrind),
#     to turn instructions into microseconds.
# Run from the top of a built tree:
#   sh bench/msg_cost.sh [--iters N] [--build DIR]
#   sh bench/msg_cost.sh --summary DIR     (the tables again, from a boot's outputs)
# Keeps the raw outputs in DIR/bench-results/msg-cost-<date>/ (callgrind.*.out, strace.*).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build iters=1000 out=
if [ "${1:-}" = --rank ]; then
    # one rank of a job: --rank OUT KIND TOOL PROGRAM ARGS...
    out=$2 kind=$3 tool=$4
    shift 4
    r=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}}
    case $tool in
    callgrind)
        exec valgrind -q --tool=callgrind --collect-atstart=no --toggle-collect=bench_send \
            --toggle-collect=bench_recv "--callgrind-out-file=$out/callgrind.$kind.$r.out" "$@"
        ;;
    strace*) exec strace -f -c -o "$out/$tool.$kind.$r" "$@" ;;
    *) exec "$@" ;;
    esac
fi
if [ "${1:-}" = --inner ]; then
    # inside the guest: OUT ITERS BUILD
    out=$2 iters=$3 b=$4
    mpirun="mpirun --allow-run-as-root --oversubscribe -np 2"
    ucx="-x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_IB_GID_INDEX=0 --mca pml ucx --mca btl ^openib,uct"
    export LD_LIBRARY_PATH="$b/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    job() { # KIND TOOL N: one latency job of N round trips at 8 B
        args="latency --min 8 --max 8 --iters $3 --warmup 100 --stat median"
        echo "== $1 $2 $3 ($(date +%T))"
        case $1 in
        ucx)
            # shellcheck disable=SC2086
            $mpirun $ucx sh "$top/bench/ucx_dev.sh" sh "$top/bench/msg_cost.sh" --rank "$out" \
                "$1" "$2" "$b/bench/rcmsg_bench_mpi" $args
            ;;
        *)
            # shellcheck disable=SC2086
            RCMSG_TRANSPORTS=rc,self RCMSG_EAGER_RDMA=${1#rcmsg_} $mpirun sh \
                "$top/bench/msg_cost.sh" --rank "$out" "$1" "$2" "$b/bench/.libs/rcmsg_bench" $args
            ;;
        esac
    }
    # the guest CPU's instruction rate: timed natively, counted under callgrind
    echo "== instruction rate ($(date +%T))"
    "$b/bench/.libs/rcmsg_guest_ips" 20000000 > "$out/ips.time" || true
    valgrind -q --tool=callgrind --collect-atstart=no '--toggle-collect=ips_alu*' \
        '--toggle-collect=ips_mem*' "--callgrind-out-file=$out/callgrind.ips.out" \
        "$b/bench/.libs/rcmsg_guest_ips" 100000 > /dev/null || true
    # and of rcmsg's own code: send and receive to self (20,000 counted + 1,000 warm-up)
    RCMSG_TRANSPORTS=self $mpirun -np 1 "$b/bench/.libs/rcmsg_guest_ips" --self 200000 \
        >> "$out/ips.time" || true
    RCMSG_TRANSPORTS=self $mpirun -np 1 valgrind -q --tool=callgrind --collect-atstart=no \
        '--toggle-collect=ips_self*' "--callgrind-out-file=$out/callgrind.ipsself.out" \
        "$b/bench/.libs/rcmsg_guest_ips" --self 20000 > /dev/null || true
    for kind in rcmsg_no rcmsg_yes ucx; do
        job $kind none 2000 || true
        job $kind strace0 "$iters" || true
        job $kind strace1 $((iters + 2000)) || true
        job $kind callgrind "$iters" || true
    done
    exit 0
fi
while [ $# -gt 0 ]; do
    case $1 in
    --iters) iters=$2; shift 2 ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --summary) out=$(cd "$2" && pwd); shift 2 ;;
    *) echo "msg_cost.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
if [ -z "$out" ]; then
    "$top/contrib/rxe-vm/rxe-run" --check || exit 77
    out=$build/bench-results/msg-cost-$(date +%Y%m%d-%H%M%S)
    mkdir -p "$out"
    echo "$iters" > "$out/iters"
    env -u MAKEFLAGS "$top/contrib/rxe-vm/rxe-run" --rxe 2 --numa --mem 4G --rw "$top" \
        --timeout "${RXE_GUEST_TIMEOUT:-3600}" -- sh "$top/bench/msg_cost.sh" --inner "$out" \
        "$iters" "$build" > "$out/guest.log" 2>&1 || { tail -20 "$out/guest.log"; exit 1; }
fi
iters=$(cat "$out/iters")
echo "results in $out (8 B latency, $iters timed + 100 warm-up round trips under callgrind)"
n=$((iters + 100))
# sys_diff KIND RANK: "syscall calls-per-round-trip" of the 2000 round trips more in strace1
sys_diff() {
    for k in 0 1; do
        awk -v k=$k '$4 ~ /^[0-9]+$/ && $NF != "total" { print k, $NF, $4 }' "$out/strace$k.$1.$2" 2> /dev/null
    done | awk '{ c[$2] += ($1 ? $3 : -$3) } END { for (s in c) if (c[s] > 0) printf "%s %.2f\n", s, c[s] / 2000 }' | sort -k2 -gr
}
printf '%-10s %5s %14s %14s %14s %16s\n' kind rank "Ir/round trip" "in send" "in recv" "syscalls/rt"
for kind in rcmsg_no rcmsg_yes ucx; do
    for r in 0 1; do
        f=$out/callgrind.$kind.$r.out
        [ -f "$f" ] || continue
        inc() { callgrind_annotate --inclusive=yes "$f" 2> /dev/null |
            awk -v fn="$1" '$0 ~ fn { gsub(",", "", $1); print $1; exit }'; }
        tot=$(callgrind_annotate "$f" 2> /dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
        s=$(inc ':bench_send ') rv=$(inc ':bench_recv ')
        printf '%-10s %5s %14s %14s %14s %16s\n' "$kind" "$r" "$((${tot:-0} / n))" \
            "$((${s:-0} / n))" "$((${rv:-0} / n))" "$(sys_diff "$kind" "$r" | awk '{ n += $2 } END { printf "%.2f", n }')"
    done
done
# ips_rate LOOP: millions of instructions a second of the guest CPU in loop LOOP (alu, mem:
# 100,000 iterations counted, 20,000,000 timed; self: 21,000 counted, 200,000 timed)
ips_rate() {
    f=$out/callgrind.ips.out cnt=100000 timed=20000000
    [ "$1" != self ] || f=$out/callgrind.ipsself.out cnt=21000 timed=200000
    ir=$(callgrind_annotate --inclusive=yes "$f" 2> /dev/null |
        awk -v fn=":ips_$1" '$0 ~ fn { gsub(",", "", $1); print $1; exit }')
    awk -v ir="${ir:-0}" -v loop="$1" -v cnt=$cnt -v timed=$timed '
        { for (i = 1; i < NF; i++) if ($i == loop) t = $(i + 1) }
        END { if (t > 0 && ir > 0) printf "%.0f %.0f", ir / cnt * timed / t / 1e6, ir / cnt; else printf "? ?" }' "$out/ips.time"
}
if [ -f "$out/ips.time" ]; then
    # shellcheck disable=SC2046 # each gives two words
    set -- $(ips_rate alu) $(ips_rate mem) $(ips_rate self)
    echo "guest CPU (bench/guest_ips.c), millions of instructions a second: $1 in registers," \
        "$3 with loads and stores, $5 in rcmsg (an 8-byte send and receive to self, $6" \
        "instructions): 1,000 of rcmsg's instructions take" \
        "$(awk -v r="$5" 'BEGIN { if (r > 0) printf "%.2f", 1000 / r; else printf "?" }') us"
fi
for kind in rcmsg_no rcmsg_yes ucx; do
    echo "== $kind: system calls per round trip (rank 0; rank 1)"
    sys_diff $kind 0 | head -8 | tr '\n' ' '
    echo
    sys_diff $kind 1 | head -8 | tr '\n' ' '
    echo
    echo "== $kind: the functions that cost most, rank 0, inclusive, per round trip"
    [ -f "$out/callgrind.$kind.0.out" ] && callgrind_annotate --inclusive=yes "$out/callgrind.$kind.0.out" 2> /dev/null |
        awk -v n=$n '/^ *[0-9,]+ / { c = $1; gsub(",", "", c); $1 = ""; printf "%10d %s\n", c / n, $0; k++ } k == 25 { exit }'
done
