#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Two nodes (contrib/rxe-vm/rxe-run --nodes 2, ONE boot): rcmsg against perftest and Open MPI
# + UCX rc_verbs between node1's and node2's Soft-RoCE devices, one rank per node, side by
# side (latency, bandwidth, message rate), then the wireup time of 2 x N ranks (N per node).
# Run from a built tree, under both locks:
#   flock /tmp/rxe.lock flock /tmp/bench.lock sh ../bench/two_nodes_compare.sh \
#       [--reps N] [--sizes "8 1024 ..."] [--ns "1 2 4"] [--build DIR]
# Writes DIR/bench-results/two-nodes-<date>/: raw outputs, latency.tsv, bandwidth.tsv,
# wireup.tsv and summary.md (bench/guest_summary.sh; also printed).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build reps=3 sizes="8 1024 65536 1048576" ns="1 2 4"
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --ns) ns=$2; shift 2 ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    *) echo "two_nodes_compare.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
case $reps in '' | *[!0-9]*) echo "two_nodes_compare.sh: --reps takes a number" >&2; exit 2 ;; esac
for p in bench/rcmsg_bench bench/rcmsg_bench_mpi bench/rcmsg_wireup_bench; do
    [ -x "$build/$p" ] || { echo "two_nodes_compare.sh: $build/$p is missing (build first)" >&2; exit 2; }
done
"$top/contrib/rxe-vm/rxe-run" --check || exit 77
out=$build/bench-results/two-nodes-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
echo "results in $out"
cd "$build"
t0=$(date +%s)
env -u MAKEFLAGS -u RCMSG_TRANSPORTS "$top/contrib/rxe-vm/rxe-run" --nodes 2 --rw "$top" \
    --timeout "${RXE_GUEST_TIMEOUT:-3600}" -- sh "$top/bench/two_nodes_inner.sh" "$out" "$reps" \
    "$sizes" "$ns" 2>&1 | tee "$out/guest.log"
{
    echo "Command: \`sh bench/two_nodes_compare.sh --reps $reps --sizes \"$sizes\" --ns \"$ns\"\`" \
        "($(($(date +%s) - t0)) s, one boot)"
    echo
    echo "Host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores;" \
        "guests: qemu TCG (emulated), $(head -1 "$out/guest.txt" | sed 's/^guest: //')"
    echo
    sh "$top/bench/guest_summary.sh" "$out" "$sizes"
} > "$out/summary.md"
cat "$out/summary.md"
