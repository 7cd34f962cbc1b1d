#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rcmsg over rc vs raw verbs (perftest) vs Open MPI + UCX rc_verbs (and vs rcmsg through its MPI
# face, bench/rcmsg_bench_rcmpi, when built), side by side on the same
# two Soft-RoCE devices, inside ONE boot of the guest (contrib/rxe-vm/rxe-run); then the
# wireup cost for growing rank counts. Run from the top of a built tree (build/ by default):
#   sh bench/guest_compare.sh [--reps N] [--sizes "8 1024 ..."] [--nps "2 4 ..."] [--build DIR]
#       [--parts "p2p coll wireup"] [--colls "bcast reduce ..."]   (all by default)
# Writes DIR/bench-results/guest-<date>/: raw outputs, latency.tsv, bandwidth.tsv,
# wireup.tsv, summary.md (also printed), and PNG plots when gnuplot is installed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build reps=3 sizes="8 64 1024 8192 65536 1048576" nps="2 4 8 16 32"
parts="p2p coll wireup" colls="barrier bcast allreduce allgather alltoall reduce gather scatter reduce_scatter_block"
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --nps) nps=$2; shift 2 ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --parts) parts=$2; shift 2 ;;
    --colls) colls=$2; shift 2 ;;
    *) echo "guest_compare.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
case $reps in '' | *[!0-9]*) echo "guest_compare.sh: --reps takes a number" >&2; exit 2 ;; esac
for p in $parts; do
    case $p in p2p | coll | wireup) ;; *) echo "guest_compare.sh: --parts: unknown part '$p' (p2p, coll, wireup)" >&2; exit 2 ;; esac
done
for p in bench/rcmsg_bench bench/rcmsg_bench_mpi bench/rcmsg_wireup_bench; do
    [ -x "$build/$p" ] || { echo "guest_compare.sh: $build/$p is missing (build first)" >&2; exit 2; }
done
"$top/contrib/rxe-vm/rxe-run" --check || exit 77
out=$build/bench-results/guest-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
echo "results in $out"
cd "$build"
# ONE boot: everything runs inside it
env -u MAKEFLAGS "$top/contrib/rxe-vm/rxe-run" --rxe 2 --numa --mem 4G --rw "$top" \
    --timeout "${RXE_GUEST_TIMEOUT:-5400}" -- sh "$top/bench/guest_inner.sh" "$out" "$reps" \
    "$sizes" "$nps" "$parts" "$colls" 2>&1 | tee "$out/guest.log"
{
    echo "Command: \`sh bench/guest_compare.sh --reps $reps --sizes \"$sizes\" --nps \"$nps\" --parts \"$parts\" --colls \"$colls\"\`"
    echo
    echo "Host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores;" \
        "guest: qemu TCG (emulated), $(head -1 "$out/guest.txt" | sed 's/^guest: //')"
    echo
    sh "$top/bench/guest_summary.sh" "$out" "$sizes"
} > "$out/summary.md"
cat "$out/summary.md"
# the plots are of point-to-point latency and bandwidth: none without the p2p part
if command -v gnuplot > /dev/null && echo " $parts " | grep -q ' p2p '; then
    gnuplot -e "dir='$out'" "$top/bench/guest_plot.gp" && echo "plots: $out/*.png"
fi
