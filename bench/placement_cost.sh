#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 18: does where the two processes run explain what separates rcmsg (and Open MPI + UCX)
# from perftest's ib_write_lat over rc in the Soft-RoCE guest? In ONE boot, REPS times in turn,
# the 8-byte latency of:
#   wlat        ib_write_lat as eager_rdma_compare.sh runs it (two processes, not bound)
#   wlat_bound  the same, bound with taskset to CPUs 0 and 1 (where mpirun binds 2 ranks)
#   wlat_mpirun the same, started by mpirun -np 2 (bound as mpirun binds ranks)
#   rcmsg       rcmsg_bench latency under mpirun (bound, the default)
#   rcmsg_free  the same with --bind-to none
# Run from the top of a built tree:
#   sh bench/placement_cost.sh [--reps N] [--build DIR]
# Prints the median of each over the repetitions, and the raw outputs stay in
# DIR/bench-results/placement-<date>/.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build reps=5
if [ "${1:-}" = --inner ]; then
    out=$2 reps=$3 b=$4/bench srv=10.55.0.1
    mpirun="mpirun --allow-run-as-root --oversubscribe -np 2"
    wl="-x 1 -s 8 -n 3000 -F"
    pair() { # KIND SERVER-PREFIX CLIENT-PREFIX: ib_write_lat server and client
        # shellcheck disable=SC2086
        $2 ib_write_lat -d rxe0 $wl > /dev/null 2>&1 &
        sp=$!
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            sleep 0.5
            # shellcheck disable=SC2086
            $3 ib_write_lat -d rxe1 $wl "$srv" > "$out/$1.$r" 2>&1 && break
        done
        wait $sp
    }
    for r in $(seq 1 "$reps"); do
        echo "=== repetition $r of $reps ($(date +%T))"
        pair wlat "" ""
        pair wlat_bound "taskset -c 0" "taskset -c 1"
        # shellcheck disable=SC2016,SC2086
        $mpirun sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 0 ]; then exec ib_write_lat -d rxe0 '"$wl"';
            else sleep 1; exec ib_write_lat -d rxe1 '"$wl $srv"'; fi' > "$out/wlat_mpirun.$r" 2>&1 || true
        for kind in rcmsg rcmsg_free; do
            bind=
            [ $kind = rcmsg ] || bind="--bind-to none"
            # shellcheck disable=SC2086
            RCMSG_TRANSPORTS=rc,self $mpirun $bind "$b/rcmsg_bench" latency --min 8 --max 8 \
                --iters 3000 --stat median > "$out/$kind.$r" 2>&1 || true
        done
    done
    exit 0
fi
while [ $# -gt 0 ]; do
    case $1 in
    --reps) reps=$2; shift 2 ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    *) echo "placement_cost.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
"$top/contrib/rxe-vm/rxe-run" --check || exit 77
out=$build/bench-results/placement-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
cd "$build"
env -u MAKEFLAGS "$top/contrib/rxe-vm/rxe-run" --rxe 2 --numa --mem 4G --rw "$top" \
    --timeout "${RXE_GUEST_TIMEOUT:-3600}" -- sh "$top/bench/placement_cost.sh" --inner \
    "$out" "$reps" "$build" > "$out/guest.log" 2>&1 || { tail -20 "$out/guest.log"; exit 1; }
# one value per file: perftest's t_typical (column 5 of its 8-byte line; for wlat_mpirun the
# client's, the only one printed with the column), rcmsg_bench's median
val() {
    case $1 in
    wlat*) awk '$1 == 8 && NF >= 5 { print $5 }' "$2" ;;
    *) awk '$1 == 8 { print $2 }' "$2" ;;
    esac
}
echo "results in $out (8-byte one-way latency, us; $reps repetitions)"
for kind in wlat wlat_bound wlat_mpirun rcmsg rcmsg_free; do
    vals=$(for r in $(seq 1 "$reps"); do val $kind "$out/$kind.$r" 2> /dev/null | head -1; done)
    med=$(echo "$vals" | sort -g | awk 'NF { v[++n] = $1 } END { if (n) print v[int((n + 1) / 2)]; else print "-" }')
    printf '%-12s median %8s   each: %s\n' $kind "$med" "$(echo "$vals" | tr '\n' ' ')"
done
