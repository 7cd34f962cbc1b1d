#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Is the automatic choice of the bcast, reduce, gather and scatter algorithms right? On the
# host over sm, for each rank count: `coll NAME` with RCMSG_COLL_*_ALGORITHM auto and each forced
# algorithm, interleaved ROUNDS times, the first of a round rotating from round to round (each
# run under flock LOCK: no overlap with a guest run or another benchmark); per size the median
# over the rounds, the fastest algorithm, and auto's time over the fastest one's.
#   sh bench/coll_choice.sh [--nps "2 4 8"] [--colls "bcast reduce gather scatter"] [--rounds N]
#       [--max SIZE] [--lock FILE] [--build DIR]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build nps="2 4 8" rounds=3 max=1m lock=/dev/null colls="bcast reduce gather scatter"
while [ $# -gt 0 ]; do
    case $1 in
    --nps) nps=$2; shift 2 ;;
    --colls) colls=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --max) max=$2; shift 2 ;;
    --lock) lock=$2; shift 2 ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    *) echo "coll_choice.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
algs() {
    case $1 in
    bcast) echo "auto binomial scatter_allgather linear" ;;
    reduce) echo "auto binomial reduce_scatter_gather" ;;
    gather | scatter) echo "auto binomial linear" ;;
    esac
}
# rotate K WORDS...: the words starting from the K-th, wrapping around (each round starts with
# another algorithm: this host's first run of a round is slow)
rotate() {
    k=$(($1 % ($# - 1))) && shift
    i=0
    for w in "$@"; do [ $i -ge "$k" ] && printf '%s ' "$w"; i=$((i + 1)); done
    i=0
    for w in "$@"; do [ $i -lt "$k" ] && printf '%s ' "$w"; i=$((i + 1)); done
    :
}
var() { echo "RCMSG_COLL_$(echo "$1" | tr a-z A-Z)_ALGORITHM"; }
echo "host: $(nproc) CPUs online; $(date +%F\ %T)"
for np in $nps; do
    for r in $(seq 1 "$rounds"); do
        for c in $colls; do
            for a in $(rotate "$r" $(algs $c)); do
                flock "$lock" mpirun --allow-run-as-root -np "$np" --bind-to none --oversubscribe \
                    -x RCMSG_TRANSPORTS=self,sm -x "$(var $c)=$a" "$build/bench/rcmsg_bench" coll "$c" \
                    --min 8 --max "$max" --stat median 2> /dev/null | grep -v '^#' > "$out/$np.$c.$a.$r"
            done
        done
    done
    for c in $colls; do
        echo "== $c, $np ranks: median of $rounds rounds (us); best: the fastest forced algorithm"
        printf '%8s' size; for a in $(algs $c); do printf ' %22s' "$a"; done; printf ' %22s %9s\n' best auto/best
        for a in $(algs $c); do
            cat "$out/$np.$c.$a".* | sort -n -k1,1 -k2,2g |
                awk '{ v[$1] = v[$1] " " $2 } END { for (s in v) { n = split(v[s], x, " "); print s, x[int((n + 1) / 2)] } }' |
                sort -n > "$out/$np.$c.$a.med"
        done
        set -- $(algs $c)
        cp "$out/$np.$c.$1.med" "$out/joined"
        shift
        for a in "$@"; do join "$out/joined" "$out/$np.$c.$a.med" > "$out/j2" && mv "$out/j2" "$out/joined"; done
        awk -v names="$*" 'BEGIN { split(names, nm, " ") }
            { best = ""; b = 0
              for (i = 3; i <= NF; i++) if (best == "" || $i < b) { best = nm[i - 2]; b = $i }
              printf "%8s", $1; for (i = 2; i <= NF; i++) printf " %22.2f", $i
              printf " %22s %9.2f\n", best, $2 / b }' "$out/joined"
    done
done
