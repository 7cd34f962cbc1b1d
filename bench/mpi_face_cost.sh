#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The cost of the MPI face (issue 17): 8 B ping-pong latency (median, us) and 1 MiB bandwidth
# (median window, MB/s) of native rcmsg (bench/rcmsg_bench) against rcmsg through MPI
# (bench/rcmsg_bench_rcmpi, built by rcmsg-mpicc), 2 ranks bound to cores, over sm by default.
# Within each round both run once, the first one alternating from round to round, so that the
# machine's drift hits both alike; each round holds flock LOCK (a host benchmark must not
# overlap a guest run on a shared machine).
#   sh bench/mpi_face_cost.sh [--rounds N] [--lock FILE] [--build DIR]
#       [--transports LIST] [--lat-iters N] [--bw-iters N]
# Over rc in the Soft-RoCE guest (one boot; the guest is 20-50x slower, hence fewer iterations):
#   contrib/rxe-vm/rxe-run --rxe 2 --numa --mem 4G --rw "$PWD" -- sh bench/mpi_face_cost.sh \
#       --transports rc,self --rounds 10 --lat-iters 3000 --bw-iters 10
# Prints "impl lat|bw value round" lines, then the medians over the rounds and their ratio.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build rounds=10 lock=/dev/null transports=self,sm lat_iters=100000 bw_iters=200
while [ $# -gt 0 ]; do
    case $1 in
    --rounds) rounds=$2 shift ;;
    --lock) lock=$2 shift ;;
    --build) build=$2 shift ;;
    --transports) transports=$2 shift ;;
    --lat-iters) lat_iters=$2 shift ;;
    --bw-iters) bw_iters=$2 shift ;;
    *)
        echo "usage: $0 [--rounds N] [--lock FILE] [--build DIR] [--transports LIST]" \
            "[--lat-iters N] [--bw-iters N]" >&2
        exit 2
        ;;
    esac
    shift
done
bin=$build/bench
[ -x "$bin/rcmsg_bench_rcmpi" ] || { echo "$0: no $bin/rcmsg_bench_rcmpi (make -C $build)" >&2; exit 1; }
root=''
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
out=$(mktemp)
trap 'rm -f "$out"' EXIT

one() { # impl round
    case $1 in rcmsg) b=$bin/rcmsg_bench ;; rcmpi) b=$bin/rcmsg_bench_rcmpi ;; esac
    # shellcheck disable=SC2086
    set -- "$1" "$2" timeout 300 mpirun $root -np 2 --bind-to core -x RCMSG_TRANSPORTS="$transports" "$b"
    i=$1 r=$2
    shift 2
    "$@" latency --min 8 --max 8 --iters "$lat_iters" --stat median | awk -v i="$i" -v r="$r" '/^[0-9]/ {print i, "lat", $2, r}'
    "$@" bw --min 1m --max 1m --iters-large "$bw_iters" --stat median | awk -v i="$i" -v r="$r" '/^[0-9]/ {print i, "bw", $2, r}'
}

for r in $(seq 1 "$rounds"); do
    if [ $((r % 2)) = 1 ]; then order="rcmsg rcmpi"; else order="rcmpi rcmsg"; fi

    exec 9> "$lock"
    flock 9
    for i in $order; do one "$i" "$r"; done | tee -a "$out"
    flock -u 9
done

med() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo
echo "transports $transports, $rounds rounds, $lat_iters ping-pongs, $bw_iters windows"
printf 'what\trcmsg\trcmsg-mpi\trcmsg-mpi/rcmsg\trounds where rcmsg-mpi is worse\n'
for k in lat bw; do
    ma=$(awk -v k="$k" '$1 == "rcmsg" && $2 == k {print $3}' "$out" | med)
    mb=$(awk -v k="$k" '$1 == "rcmpi" && $2 == k {print $3}' "$out" | med)
    worse=$(awk -v k="$k" '$2 == k {v[$1, $4] = $3; n[$4] = 1}
        END { for (r in n) { m++; w += (k == "lat") ? (v["rcmpi", r] > v["rcmsg", r]) : (v["rcmpi", r] < v["rcmsg", r]) }
              print w " of " m }' "$out")
    awk -v k="$k" -v a="$ma" -v b="$mb" -v w="$worse" 'BEGIN {
        printf "%s\t%.2f\t%.2f\t%.3f\t%s\n", k == "lat" ? "8 B latency (us)" : "1 MiB bw (MB/s)", a, b, b / a, w }'
done
