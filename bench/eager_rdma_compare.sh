#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 18's benchmark: small messages over rc with and without the RDMA-write eager path
# (RCMSG_EAGER_RDMA=yes / no), against Open MPI + UCX rc_verbs and raw perftest (ib_write_lat,
# ib_send_lat), on the same two Soft-RoCE devices inside ONE boot of the guest, interleaved REPS
# times (perftest first, then rcmsg and UCX in a balanced order, see below): latency (median of
# per-iteration times) and message rate, 8 B, 64 B, 1 KiB, 8 KiB.
# Run from the top of a built tree; boot it 3 times for the boot-to-boot noise:
#   sh bench/eager_rdma_compare.sh [--reps N] [--max 64|8192] [--build DIR] [--before DIR]
#                                  [--smp 2]
#   sh bench/eager_rdma_compare.sh --summary DIR     (the tables again, from a boot's outputs)
# (--max 64: 8 B and 64 B only, for many short repetitions.) Prints one table per boot (medians
# over the repetitions), then, per size, in how many repetitions the fast path was faster than
# without it, than UCX, and ib_write_lat than ib_send_lat (pairs run back to back); keeps the raw
# outputs in DIR/bench-results/eager-rdma-<date>/. --before DIR: another built tree (an older
# commit) runs too, without the fast path, in each repetition next to this one: a hot-path
# change's before/after in the same boot. --smp 2: a guest of 2 vCPUs, one NUMA node (the
# default is 4 vCPUs in two nodes, as the test suite boots). Tried for less noise, it was not
# less: one program's median spreads from run to run by up to 1.7x with 2 vCPUs as with 4.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build reps=3 max=8192 out= before= vm="--numa"
if [ "${1:-}" = --inner ]; then
    # inside the guest: OUT REPS BUILD MAX [BEFORE]
    out=$2 reps=$3 b=$4/bench max=$5 before=${6:-} srv=10.55.0.1 sizes="8 64 1024 8192"
    [ "$max" = 8192 ] || sizes="8 64"
    mpirun="mpirun --allow-run-as-root --oversubscribe"
    ucx="-x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_IB_GID_INDEX=0 --mca pml ucx --mca btl ^openib,uct"
    perf() { # test size rep
        "$1" -d rxe0 -x 1 -s "$2" -n 3000 -F > /dev/null 2>&1 &
        sp=$!
        for i in 1 2 3 4 5 6 7 8 9 10; do
            sleep 0.5
            "$1" -d rxe1 -x 1 -s "$2" -n 3000 -F "$srv" > "$out/$1.$2.$3" 2>&1 && break
        done
        wait $sp
    }
    lat="--min 8 --max $max --iters 3000 --stat median"
    rate="--min 8 --max $max --iters 10"
    for r in $(seq 1 "$reps"); do
        echo "=== repetition $r of $reps ($(date +%T), clocksource" \
            "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource))"
        for s in $sizes; do
            perf ib_write_lat "$s" "$r"
            perf ib_send_lat "$s" "$r"
        done
        # KIND: no and yes (this tree, the fast path off and on), before (--before, off), ucx.
        # A place in the order was seen to matter, so the order is balanced: repetition 2k-1
        # rotates the list by k-1, repetition 2k runs that backwards; over each such pair of
        # repetitions every kind runs before every other once and after it once.
        kinds="no yes ${before:+before} ucx"
        # shellcheck disable=SC2086
        set -- $kinds
        i=1
        while [ $i -lt $(((r + 1) / 2)) ]; do set -- "$@" "$1"; shift; i=$((i + 1)); done
        order=
        for kind in "$@"; do
            if [ $((r % 2)) -eq 0 ]; then order="$kind $order"; else order="$order $kind"; fi
        done
        echo "order: $order"
        for kind in $order; do
            tree=$b fast=$kind
            [ "$kind" != before ] || tree=$before/bench fast=no
            for what in latency rate; do
                args=$lat
                [ $what = latency ] || args="$rate"
                if [ "$kind" = ucx ]; then
                    # shellcheck disable=SC2086
                    $mpirun -np 2 $ucx sh "$top/bench/ucx_dev.sh" "$b/rcmsg_bench_mpi" $what $args \
                        > "$out/ucx.$what.$r" 2>&1
                else
                    # shellcheck disable=SC2086
                    RCMSG_TRANSPORTS=rc,self RCMSG_EAGER_RDMA=$fast $mpirun -np 2 \
                        "$tree/rcmsg_bench" $what $args > "$out/rcmsg_$kind.$what.$r" 2>&1
                fi
            done
        done
    done
    exit 0
fi
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift 2 ;;
    --max)
        max=$2
        case $max in 64 | 8192) ;; *) echo "eager_rdma_compare.sh: --max is 64 or 8192" >&2; exit 2 ;; esac
        shift 2
        ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --before) before=$(cd "$2" && pwd); shift 2 ;;
    --smp)
        case $2 in 2) vm="--smp 2" ;; *) echo "eager_rdma_compare.sh: --smp is 2" >&2; exit 2 ;; esac
        shift 2
        ;;
    --summary) out=$(cd "$2" && pwd); shift 2 ;;
    *) echo "eager_rdma_compare.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
if [ -z "$out" ]; then
    "$top/contrib/rxe-vm/rxe-run" --check || exit 77
    out=$build/bench-results/eager-rdma-$(date +%Y%m%d-%H%M%S)
    mkdir -p "$out"
    cd "$build"
    rw=
    [ -z "$before" ] || rw="--rw $before"
    # shellcheck disable=SC2086
    env -u MAKEFLAGS "$top/contrib/rxe-vm/rxe-run" --rxe 2 $vm --mem 4G --rw "$top" $rw \
        --timeout "${RXE_GUEST_TIMEOUT:-3600}" -- sh "$top/bench/eager_rdma_compare.sh" --inner \
        "$out" "$reps" "$build" "$max" "$before" > "$out/guest.log" 2>&1 || { tail -20 "$out/guest.log"; exit 1; }
else # --summary: the repetitions and sizes that boot ran
    reps=$(ls "$out"/rcmsg_no.latency.* | sed 's/.*\.//' | sort -n | tail -1)
    awk '$1 == 1024' "$out/rcmsg_no.latency.1" | grep -q . || max=64
fi
# medians over the repetitions: OSU-style "size value" lines, perftest's t_typical (column 5)
med() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }
osu() { cat "$out/$1".* 2> /dev/null | awk -v s="$2" '$1 == s { print $2 }' | med; }
# (perftest prints "inf" for every latency of a run now and then, its clock's rate read as 0:
# such a run is left out, and counted below the tables)
ptv() { awk '$1 ~ /^[0-9]+$/ && NF >= 5 && $5 ~ /^[0-9.]+$/ { print $5 }' "$@" 2> /dev/null; }
pt() { for f in "$out/$1.$2".*; do ptv "$f"; done | med; }
echo "results in $out ($reps repetitions, medians)"
printf '%6s %9s %9s %9s %9s %9s %7s %7s | %11s %11s %11s\n' size write_lat send_lat \
    rc_no rc_yes ucx yes/ucx yes/wlat rate_no rate_yes rate_ucx
sizes="8 64 1024 8192"
[ "$max" = 8192 ] || sizes="8 64"
for s in $sizes; do
    w=$(pt ib_write_lat "$s") sl=$(pt ib_send_lat "$s")
    n=$(osu rcmsg_no.latency "$s") y=$(osu rcmsg_yes.latency "$s") u=$(osu ucx.latency "$s")
    rn=$(osu rcmsg_no.rate "$s") ry=$(osu rcmsg_yes.rate "$s") ru=$(osu ucx.rate "$s")
    printf '%6s %9s %9s %9s %9s %9s %7s %7s | %11s %11s %11s\n' "$s" "$w" "$sl" "$n" "$y" "$u" \
        "$(awk -v a="$y" -v b="$u" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
        "$(awk -v a="$y" -v b="$w" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
        "$rn" "$ry" "$ru"
done
# paired: repetition by repetition (run back to back), is A below B? "K of N"
at() { awk -v s="$2" '$1 == s { print $2 }' "$out/$1" 2> /dev/null; }
ptat() { ptv "$out/$1"; }
below() { # SIZE KIND_A KIND_B (osu files; perftest files when KIND is ib_*)
    k=0 n=0
    for r in $(seq 1 "$reps"); do
        case $2 in ib_*) a=$(ptat "$2.$1.$r") b=$(ptat "$3.$1.$r") ;; *) a=$(at "$2.$r" "$1") b=$(at "$3.$r" "$1") ;; esac
        [ -n "$a" ] && [ -n "$b" ] || continue
        n=$((n + 1))
        awk -v a="$a" -v b="$b" 'BEGIN { exit !(a < b) }' && k=$((k + 1))
    done
    echo "$k of $n"
}
bad=$(for f in "$out"/ib_*_lat.*; do [ -e "$f" ] || continue; awk '$1 ~ /^[0-9]+$/ && NF >= 5 && $5 !~ /^[0-9.]+$/ { print FILENAME; exit }' "$f"; done | sed 's|.*/||' | tr '\n' ' ')
[ -z "$bad" ] || echo "perftest runs left out (they printed no latency, e.g. inf): $bad"
echo "paired, latency: in how many repetitions A took less time than B"
printf '%6s %14s %14s %14s %18s\n' size yes\<no yes\<ucx no\<ucx write\<send
for s in $sizes; do
    printf '%6s %14s %14s %14s %18s\n' "$s" "$(below "$s" rcmsg_yes.latency rcmsg_no.latency)" \
        "$(below "$s" rcmsg_yes.latency ucx.latency)" "$(below "$s" rcmsg_no.latency ucx.latency)" \
        "$(below "$s" ib_write_lat ib_send_lat)"
done
echo "paired, message rate: in how many repetitions A sent more messages per second than B"
printf '%6s %14s %14s %14s\n' size yes\>no yes\>ucx no\>ucx
for s in $sizes; do
    printf '%6s %14s %14s %14s\n' "$s" "$(below "$s" rcmsg_no.rate rcmsg_yes.rate)" \
        "$(below "$s" ucx.rate rcmsg_yes.rate)" "$(below "$s" ucx.rate rcmsg_no.rate)"
done
if ls "$out"/rcmsg_before.latency.* > /dev/null 2>&1; then
    echo "before/after (--before): without the fast path, this tree (no) against the other (before)"
    printf '%6s %9s %9s %9s %14s | %11s %11s %14s\n' size before no no/before no\<before rate_before \
        rate_no no\>before
    for s in $sizes; do
        bf=$(osu rcmsg_before.latency "$s") n=$(osu rcmsg_no.latency "$s")
        printf '%6s %9s %9s %9s %14s | %11s %11s %14s\n' "$s" "$bf" "$n" \
            "$(awk -v a="$n" -v b="$bf" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
            "$(below "$s" rcmsg_no.latency rcmsg_before.latency)" "$(osu rcmsg_before.rate "$s")" \
            "$(osu rcmsg_no.rate "$s")" "$(below "$s" rcmsg_before.rate rcmsg_no.rate)"
    done
fi
