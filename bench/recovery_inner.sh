#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs INSIDE the Soft-RoCE guest (bench/recovery.sh boots it), 2 ranks over rc on rxe0/rxe1:
#   recovery  rcmsg_recovery_bench: ERRORS breaks of rank 0's qp (reset, then fatal: the qp
#             re-created), 1 KiB messages, a run without breaks (the undisturbed gaps), and
#             ERRORS resets with 8 B, 1 KiB and 64 KiB messages in turn (rendezvous reads too)
#   steady    rcmsg_bench latency (8 B..8 KiB, 3000 iterations, median) and rate (8 B..8 KiB)
#             with RCMSG_RECOVERY=yes and =no, and OLD_TREE's build (before recovery) when
#             given, interleaved, REPS times
# Raw outputs go to OUT (rec.KIND.out/.err, steady.tsv: "variant lat|rate size value rep").
#   recovery_inner.sh OUT PHASES ERRORS REPS [OLD_TREE]
set -u
out=$1 phases=$2 errors=$3 reps=$4 old=${5:-}
b=$(pwd)/bench # the build directory's
mpirun="mpirun --allow-run-as-root --oversubscribe -np 2"
export RCMSG_TRANSPORTS=rc,self
mkdir -p "$out"
echo "guest: $(nproc) vCPUs, $(uname -r)" > "$out/guest.txt"

case " $phases " in *" recovery "*)
    for tag in none reset fatal mixed; do
        n=$errors kind=$tag sizes=1024 between=400
        [ $tag = none ] && n=0 kind=reset between=$((400 * (errors + 1))) # as many messages
        [ $tag = mixed ] && kind=reset sizes=8,1024,65536 # eager, and rendezvous reads
        echo "=== recovery: $tag, $n breaks ($(date +%T))"
        timeout 300 $mpirun "$b/rcmsg_recovery_bench" --errors "$n" --kind $kind --between $between \
            --sizes $sizes --window 16 --timeout 240 > "$out/rec.$tag.out" 2> "$out/rec.$tag.err"
        echo "exit $?" >> "$out/rec.$tag.out"
        grep -E '^(summary|recoveries|FAIL|SKIP|exit)' "$out/rec.$tag.out"
    done
    ;;
esac

# one run of one variant: "variant lat|rate size value rep" lines
steady() { # variant bench rep
    v=$1 bin=$2 r=$3 env="env RCMSG_RECOVERY=$v"
    [ "$v" = old ] && env="env -u RCMSG_RECOVERY" # the old tree does not know it
    $env timeout 300 $mpirun "$bin" latency --min 8 --max 8k --iters 3000 \
        --stat median 2> "$out/steady.$v.lat.$r.err" |
        awk -v v="$v" -v r="$r" '/^[0-9]/ {print v, "lat", $1, $2, r}'
    $env timeout 300 $mpirun "$bin" rate --min 8 --max 8k --stat median \
        2> "$out/steady.$v.rate.$r.err" | awk -v v="$v" -v r="$r" '/^[0-9]/ {print v, "rate", $1, $2, r}'
}
case " $phases " in *" steady "*)
    variants="yes no"
    [ -n "$old" ] && variants="$variants old"
    for r in $(seq 1 "$reps"); do
        echo "=== steady state, repetition $r of $reps ($(date +%T))"
        # the order rotates from one repetition to the next
        # shellcheck disable=SC2086
        set -- $variants
        k=$(((r - 1) % $#))
        while [ $k -gt 0 ]; do
            first=$1
            shift
            set -- "$@" "$first"
            k=$((k - 1))
        done
        for v in "$@"; do
            bin=$b/rcmsg_bench
            [ "$v" = old ] && bin=$old/build/bench/rcmsg_bench
            steady "$v" "$bin" "$r" >> "$out/steady.tsv"
        done
    done
    ;;
esac
echo "=== done ($(date +%T))"
