#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The small bcast on the host (issue 18): rcmsg (bench/rcmsg_bench over self,sm), Open MPI
# (ob1/vader) and MPICH (when built), each run as `coll bcast --min 8 --max MAX --stat median
# --span`: the OSU-style number (the maximum over the ranks of each rank's median, each rank
# counted from its own exit of the untimed barrier) and the span (the last rank's end - the
# first rank's start: one host's clock, immune to the order in which the barrier lets the ranks
# out). 2 ranks are bound to the 2 cores; 4 and 8 run unbound, oversubscribed (not MPICH, which
# busy-polls: each call would wait for the scheduler). Within each
# round every library runs once, the first one rotating from round to round, and each round
# holds flock LOCK (a host benchmark must not overlap a guest run on a shared machine).
# --coll NAME measures another collective the same way (issue 19: gather, scatter, reduce);
# --min B starts the sizes there (8 by default: rendezvous sizes alone with --min 8k).
#   sh bench/bcast_span.sh [--rounds N] [--lock FILE] [--build DIR] [--nps "2 4 8"] [--min B]
#       [--max B] [--coll NAME]
# Prints "impl np size osu span round" lines, then the medians over the rounds.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build rounds=5 lock=/dev/null nps="2 4 8" min=8 max=64 coll=bcast
while [ $# -gt 0 ]; do
    case $1 in
    --rounds) rounds=$2 shift ;;
    --lock) lock=$2 shift ;;
    --build) build=$2 shift ;;
    --nps) nps=$2 shift ;;
    --min) min=$2 shift ;;
    --max) max=$2 shift ;;
    --coll) coll=$2 shift ;;
    *)
        echo "usage: $0 [--rounds N] [--lock FILE] [--build DIR] [--nps LIST] [--min B] [--max B] [--coll NAME]" >&2
        exit 2
        ;;
    esac
    shift
done
bin=$build/bench
[ -x "$bin/rcmsg_bench_mpi" ] || { echo "$0: no $bin/rcmsg_bench_mpi (make -C $build)" >&2; exit 1; }
impls="rcmsg ompi"
[ -x "$bin/rcmsg_bench_mpich" ] && command -v mpirun.mpich > /dev/null && impls="$impls mpich"
root=''
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
out=$(mktemp)
trap 'rm -f "$out"' EXIT

one() { # impl np round
    i=$1 np=$2 r=$3
    if [ "$np" = 2 ]; then ob="--bind-to core" mb="-bind-to core"; else ob="--oversubscribe --bind-to none" mb="-bind-to none"; fi
    set -- coll "$coll" --min "$min" --max "$max" --stat median --span
    # shellcheck disable=SC2086
    case $i in
    rcmsg) timeout 300 mpirun $root -np "$np" $ob -x RCMSG_TRANSPORTS=self,sm "$bin/rcmsg_bench" "$@" ;;
    ompi) timeout 300 mpirun $root -np "$np" $ob --mca pml ob1 --mca btl self,vader \
        --mca btl_vader_single_copy_mechanism cma "$bin/rcmsg_bench_mpi" "$@" ;;
    mpich) timeout 300 mpirun.mpich -np "$np" $mb "$bin/rcmsg_bench_mpich" "$@" ;;
    esac | awk -v i="$i" -v np="$np" -v r="$r" '/^[0-9]/ {print i, np, $1, $2, $3, r}'
}

for r in $(seq 1 "$rounds"); do
    order=$(echo "$impls" | awk -v r="$r" '{ for (i = 0; i < NF; i++) printf "%s ", $(1 + (i + r - 1) % NF) }')
    exec 9> "$lock"
    flock 9
    for np in $nps; do
        for i in $order; do
            # MPICH busy-polls: oversubscribed, each call waits for the scheduler (ms)
            [ "$i.$np" = mpich.2 ] || [ "$i" != mpich ] || continue
            one "$i" "$np" "$r"
        done
    done | tee -a "$out"
    flock -u 9
done

echo
echo "$rounds rounds; medians over the rounds (us): OSU-style / span"
printf 'np\tsize'
for i in $impls; do printf '\t%s' "$i"; done
echo
for np in $nps; do
    for s in $(awk -v np="$np" '$2 == np {print $3}' "$out" | sort -un); do
        printf '%s\t%s' "$np" "$s"
        for i in $impls; do
            for col in 4 5; do
                awk -v i="$i" -v np="$np" -v s="$s" -v c="$col" '$1 == i && $2 == np && $3 == s {print $c}' "$out" |
                    sort -g | awk -v c="$col" '{a[NR] = $1}
                        END {v = NR == 0 ? "-" : sprintf("%.2f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)
                             printf "%s%s", c == 4 ? "\t" : " / ", v}'
            done
        done
        echo
    done
done
