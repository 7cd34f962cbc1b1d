#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# sm's small messages against Open MPI's vader (issue 44): bibw and the message rate (and, with
# --kinds, bw or latency) over shared memory, 2 ranks bound to cores, of rcmsg before
# (--before DIR: another build directory), rcmsg now (--build DIR), Open MPI (ob1, vader, CMA
# single copy: bench/rcmsg_bench_mpi) and any --variant NAME=VAR=VALUE (rcmsg now with one
# or more settings, VAR=VALUE,VAR=VALUE; a NAME starting before_ runs the build before).
# Within a round each runs once per kind, the order rotating from round to round so
# that the machine's drift hits all alike; each round holds flock LOCK.
#   sh bench/sm_small_cost.sh --before DIR [--build DIR] [--rounds N] [--lock FILE]
#       [--kinds "bibw rate"] [--min B] [--max B] [--iters N] [--variant NAME=VAR=VALUE]...
# Prints "impl kind size value round" lines, then per kind and size the medians over the rounds
# and, for each, the median of its per-round ratios to Open MPI's (latency: Open MPI's / its
# own: above 1 is faster).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build before='' rounds=7 lock=/dev/null kinds="bibw rate" min=1 max=8 iters=2000
variants=''
while [ $# -gt 0 ]; do
    case $1 in
    --before) before=$2 shift ;;
    --build) build=$2 shift ;;
    --rounds) rounds=$2 shift ;;
    --lock) lock=$2 shift ;;
    --kinds) kinds=$2 shift ;;
    --min) min=$2 shift ;;
    --max) max=$2 shift ;;
    --iters) iters=$2 shift ;;
    --variant) variants="$variants $2" shift ;;
    *)
        echo "usage: $0 --before DIR [--build DIR] [--rounds N] [--lock FILE] [--kinds K]" \
            "[--min B] [--max B] [--iters N] [--variant NAME=VAR=VALUE]..." >&2
        exit 2
        ;;
    esac
    shift
done
[ -n "$before" ] || { echo "$0: --before DIR (the build to compare with) is required" >&2; exit 2; }
for b in "$before/bench/rcmsg_bench" "$build/bench/rcmsg_bench" "$build/bench/rcmsg_bench_mpi"; do
    [ -x "$b" ] || { echo "$0: no $b (make -C $(dirname "$(dirname "$b")"))" >&2; exit 1; }
done
impls="before after ompi"
for v in $variants; do impls="$impls ${v%%=*}"; done
root=''
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
out=$(mktemp)
trap 'rm -f "$out"' EXIT

one() { # impl kind round
    i=$1 k=$2 r=$3
    case $i in
    before) set -- -x RCMSG_TRANSPORTS=self,sm "$before/bench/rcmsg_bench" ;;
    after) set -- -x RCMSG_TRANSPORTS=self,sm "$build/bench/rcmsg_bench" ;;
    ompi)
        set -- --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism cma \
            "$build/bench/rcmsg_bench_mpi"
        ;;
    *)
        for v in $variants; do
            [ "${v%%=*}" = "$i" ] || continue
            b=$build
            case $i in before_*) b=$before ;; esac
            set -- -x RCMSG_TRANSPORTS=self,sm
            for e in $(echo "${v#*=}" | tr , ' '); do set -- "$@" -x "$e"; done
            set -- "$@" "$b/bench/rcmsg_bench"
        done
        ;;
    esac
    timeout 300 mpirun $root -np 2 --bind-to core "$@" "$k" --min "$min" --max "$max" \
        --iters "$iters" --stat median |
        awk -v i="$i" -v k="$k" -v r="$r" '/^[0-9]/ {print i, k, $1, $2, r}'
}

for r in $(seq 1 "$rounds"); do
    # rotate the order: each implementation goes first in turn
    order=$impls
    for _ in $(seq 2 "$r"); do order="${order#* } ${order%% *}"; done
    exec 9> "$lock"
    flock 9
    for k in $kinds; do
        for i in $order; do one "$i" "$k" "$r"; done
    done | tee -a "$out"
    flock -u 9
done

med() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo
echo "$rounds rounds, $iters iterations (windows of 64) per size; $(uptime | sed 's/.*load/load/')"
printf 'kind\tsize'
for i in $impls; do printf '\t%s' "$i"; done
for i in $impls; do [ "$i" = ompi ] || printf '\t%s/ompi' "$i"; done
echo
for k in $kinds; do
    for s in $(awk -v k="$k" '$2 == k {print $3}' "$out" | sort -nu); do
        line="$k	$s" o=''
        for i in $impls; do
            m=$(awk -v i="$i" -v k="$k" -v s="$s" '$1 == i && $2 == k && $3 == s {print $4}' "$out" | med)
            line="$line	$m"
            [ "$i" = ompi ] && o=$m
        done
        for i in $impls; do
            [ "$i" = ompi ] && continue
            # the median over the rounds of the round's ratio: the drift of the machine cancels
            m=$(awk -v i="$i" -v k="$k" -v s="$s" '$2 == k && $3 == s && ($1 == i || $1 == "ompi") {
                    v[$1, $5] = $4; r[$5] = 1 }
                END { for (x in r) if ((i, x) in v && ("ompi", x) in v)
                    print k == "latency" ? v["ompi", x] / v[i, x] : v[i, x] / v["ompi", x] }' "$out" | med)
            line="$line	$(printf '%.3f' "$m")"
        done
        echo "$line"
    done
done
