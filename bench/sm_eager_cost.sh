#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# sm's own eager limit (issue 18): the 4 KiB and 8 KiB ping-pong latency (median, us) and the
# 1-8 B bibw (median window, MB/s) over shared memory, 2 ranks bound to cores, of rcmsg before
# (--before DIR: another build directory, e.g. of the parent commit), rcmsg now (--build DIR)
# and Open MPI (ob1, vader, CMA single copy: bench/rcmsg_bench_mpi). Within each round the
# three run once each, the order rotating from round to round, so that the machine's drift
# hits all alike; each round holds flock LOCK (a host benchmark must not overlap a guest run
# on a shared machine).
#   sh bench/sm_eager_cost.sh --before DIR [--build DIR] [--rounds N] [--lock FILE]
#       [--lat-iters N] [--bw-iters N]
# Prints "impl what size value round" lines, then per measure the medians over the rounds and
# the ratios rcmsg / Open MPI before and after.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build before='' rounds=10 lock=/dev/null lat_iters=50000 bw_iters=2000
while [ $# -gt 0 ]; do
    case $1 in
    --before) before=$2 shift ;;
    --build) build=$2 shift ;;
    --rounds) rounds=$2 shift ;;
    --lock) lock=$2 shift ;;
    --lat-iters) lat_iters=$2 shift ;;
    --bw-iters) bw_iters=$2 shift ;;
    *)
        echo "usage: $0 --before DIR [--build DIR] [--rounds N] [--lock FILE] [--lat-iters N]" \
            "[--bw-iters N]" >&2
        exit 2
        ;;
    esac
    shift
done
[ -n "$before" ] || { echo "$0: --before DIR (the build to compare with) is required" >&2; exit 2; }
for b in "$before/bench/rcmsg_bench" "$build/bench/rcmsg_bench" "$build/bench/rcmsg_bench_mpi"; do
    [ -x "$b" ] || { echo "$0: no $b (make -C $(dirname "$(dirname "$b")"))" >&2; exit 1; }
done
root=''
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
out=$(mktemp)
trap 'rm -f "$out"' EXIT

one() { # impl round
    case $1 in
    before) set -- "$1" "$2" -x RCMSG_TRANSPORTS=self,sm "$before/bench/rcmsg_bench" ;;
    after) set -- "$1" "$2" -x RCMSG_TRANSPORTS=self,sm "$build/bench/rcmsg_bench" ;;
    ompi)
        set -- "$1" "$2" --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism \
            cma "$build/bench/rcmsg_bench_mpi"
        ;;
    esac
    i=$1 r=$2
    shift 2
    # shellcheck disable=SC2086
    timeout 300 mpirun $root -np 2 --bind-to core "$@" latency --min 4k --max 8k \
        --iters "$lat_iters" --stat median | awk -v i="$i" -v r="$r" '/^[0-9]/ {print i, "lat", $1, $2, r}'
    # shellcheck disable=SC2086
    timeout 300 mpirun $root -np 2 --bind-to core "$@" bibw --min 1 --max 8 \
        --iters "$bw_iters" --stat median | awk -v i="$i" -v r="$r" '/^[0-9]/ {print i, "bibw", $1, $2, r}'
}

for r in $(seq 1 "$rounds"); do
    case $((r % 3)) in
    1) order="before after ompi" ;;
    2) order="after ompi before" ;;
    0) order="ompi before after" ;;
    esac
    exec 9> "$lock"
    flock 9
    for i in $order; do one "$i" "$r"; done | tee -a "$out"
    flock -u 9
done

med() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo
echo "$rounds rounds; latency: $lat_iters ping-pongs, bibw: $bw_iters windows of 64 each way"
printf 'what\tsize\tbefore\tafter\tOpen MPI\tbefore/Open MPI\tafter/Open MPI\n'
for k in lat bibw; do
    for s in $(awk -v k="$k" '$2 == k {print $3}' "$out" | sort -nu); do
        b=$(awk -v k="$k" -v s="$s" '$1 == "before" && $2 == k && $3 == s {print $4}' "$out" | med)
        a=$(awk -v k="$k" -v s="$s" '$1 == "after" && $2 == k && $3 == s {print $4}' "$out" | med)
        o=$(awk -v k="$k" -v s="$s" '$1 == "ompi" && $2 == k && $3 == s {print $4}' "$out" | med)
        awk -v k="$k" -v s="$s" -v b="$b" -v a="$a" -v o="$o" 'BEGIN {
            printf "%s\t%s\t%.2f\t%.2f\t%.2f\t%.3f\t%.3f\n", k == "lat" ? "latency (us)" : "bibw (MB/s)",
                s, b, a, o, b / o, a / o }'
    done
done
