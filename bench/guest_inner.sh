#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs INSIDE the Soft-RoCE guest (bench/guest_compare.sh boots it): raw perftest, rcmsg over
# rc and Open MPI + UCX rc_verbs on the same two rxe devices, alternating, REPS times; then
# the wireup cost for growing rank counts. Raw outputs go to $OUT; the host side summarizes.
#   guest_inner.sh OUT REPS SIZES WIREUP_NPS [PARTS [COLLS]]
# PARTS: which of "p2p coll wireup" to run (all by default); COLLS: the collectives (all nine)
set -u
out=$1 reps=$2 sizes=$3 nps=$4 parts=${5:-p2p coll wireup}
colls=${6:-barrier bcast allreduce allgather alltoall reduce gather scatter reduce_scatter_block}
part() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
b=$(pwd)/bench # the build directory's
src=$(cd "$(dirname "$0")" && pwd)
srv=10.55.0.1
mpirun="mpirun --allow-run-as-root --oversubscribe"
mkdir -p "$out"
max=0
for s in $sizes; do [ "$s" -gt "$max" ] && max=$s; done
{
    echo "guest: $(nproc) vCPUs, $(uname -r), $(ib_devinfo 2>/dev/null | head -1)"
    ibv_devinfo -d rxe0 | grep -E 'hca_id|active_mtu|link_layer'
    ompi_info --version 2>/dev/null | head -1
    ucx_info -v 2>/dev/null | head -2
    dpkg -l perftest 2>/dev/null | awk '/^ii/ {print "perftest " $3}'
    "$b/../src/tools/rcmsg_info" 2>/dev/null | grep -E '^device |max inline'
} > "$out/guest.txt" 2>&1

# perftest: server on rxe0, client on rxe1 (GID 1: the IPv4-mapped RoCE v2 GID)
perf() { # test size iters rep
    t=$1 s=$2 n=$3 r=$4
    "$t" -d rxe0 -x 1 -s "$s" -n "$n" -F > /dev/null 2>&1 &
    sp=$!
    i=0
    while [ $i -lt 20 ]; do
        sleep 0.5
        if "$t" -d rxe1 -x 1 -s "$s" -n "$n" -F "$srv" > "$out/perftest.$t.$s.$r" 2>&1; then
            break
        fi
        i=$((i + 1))
    done
    wait $sp
}

# Open MPI + UCX: rc_verbs with ud_verbs for wireup; GID index 0 (the rxe pitfall); each rank
# on its own device as the other two do.
ucx_env="-x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_IB_GID_INDEX=0 --mca pml ucx --mca btl ^openib,uct"
ompi() { # bench args...
    $mpirun -np 2 $ucx_env sh "$src/ucx_dev.sh" "$b/rcmsg_bench_mpi" "$@" 2>&1
}
rcm() {
    RCMSG_TRANSPORTS=rc,self $mpirun -np 2 "$b/rcmsg_bench" "$@" 2>&1
}
# rcmsg through its MPI face (bench/rcmsg_bench_rcmpi, built by rcmsg-mpicc), when built
rcmpi() {
    RCMSG_TRANSPORTS=rc,self $mpirun -np 2 "$b/rcmsg_bench_rcmpi" "$@" 2>&1
}

# latency: medians of per-iteration times everywhere (perftest's t_typical is its median):
# the emulated guest's scheduling stalls make means meaningless. 3000 iterations up to 8 KiB
# (300 gave medians that moved by 10% between runs), 30 above.
lat="--min 8 --max $max --iters 3000 --iters-large 30 --stat median"
bw="--min 8 --max $max --window 16 --iters 30 --iters-large 2"
part p2p && for r in $(seq 1 "$reps"); do
    echo "=== repetition $r of $reps ($(date +%T))"
    for s in $sizes; do
        n=3000 nb=1000
        [ "$s" -ge 65536 ] && n=50 nb=20
        perf ib_send_lat "$s" $n "$r"
        perf ib_read_lat "$s" $n "$r"
        perf ib_send_bw "$s" $nb "$r"
        perf ib_read_bw "$s" $nb "$r"
    done
    # shellcheck disable=SC2086
    {
        rcm latency $lat > "$out/rcmsg.latency.$r"
        ompi latency $lat > "$out/ompi.latency.$r"
        [ ! -x "$b/rcmsg_bench_rcmpi" ] || rcmpi latency $lat > "$out/rcmpi.latency.$r"
        rcm bw $bw > "$out/rcmsg.bw.$r"
        ompi bw $bw > "$out/ompi.bw.$r"
        [ ! -x "$b/rcmsg_bench_rcmpi" ] || rcmpi bw $bw > "$out/rcmpi.bw.$r"
        rcm bibw $bw > "$out/rcmsg.bibw.$r"
        ompi bibw $bw > "$out/ompi.bibw.$r"
        rcm rate --max 8k --iters 10 > "$out/rcmsg.rate.$r"
        ompi rate --max 8k --iters 10 > "$out/ompi.rate.$r"
    }
done
# Open MPI + UCX: which transports its endpoints really use (UCX prints each endpoint
# configuration's lanes at log level info)
part p2p && $mpirun -np 2 $ucx_env -x UCX_LOG_LEVEL=info sh "$src/ucx_dev.sh" "$b/rcmsg_bench_mpi" latency \
    --max 8 --iters 10 2>&1 | grep 'ep_cfg' > "$out/ucx_transports.txt"

# collectives at 4 ranks (ranks share out rxe0/rxe1), alternating, REPS times. Each library
# twice: busy-polling (both libraries' default), and with idle ranks giving up their CPU:
# rcmsg RCMSG_WAIT_MODE=event (sleeps on completion events), Open MPI mpi_yield_when_idle
# (sched_yield; it has no blocking mode with UCX)
coll="--max 64k --iters 50 --stat median"
part coll && for r in $(seq 1 "$reps"); do
    echo "=== collectives, repetition $r of $reps ($(date +%T))"
    for c in $colls; do
        # shellcheck disable=SC2086
        {
            RCMSG_TRANSPORTS=rc,self $mpirun -np 4 "$b/rcmsg_bench" coll $c $coll \
                > "$out/rcmsg.coll.$c.$r" 2>&1
            RCMSG_TRANSPORTS=rc,self RCMSG_WAIT_MODE=event $mpirun -np 4 -x RCMSG_WAIT_MODE \
                "$b/rcmsg_bench" coll $c $coll > "$out/rcmsg_event.coll.$c.$r" 2>&1
            $mpirun -np 4 $ucx_env sh "$src/ucx_dev.sh" "$b/rcmsg_bench_mpi" coll $c $coll \
                > "$out/ompi.coll.$c.$r" 2>&1
            $mpirun -np 4 $ucx_env --mca mpi_yield_when_idle 1 sh "$src/ucx_dev.sh" \
                "$b/rcmsg_bench_mpi" coll $c $coll > "$out/ompi_yield.coll.$c.$r" 2>&1
        }
    done
done
# wireup cost over rc only (sm off), every rank of the job in this one guest
part wireup && for np in $nps; do
    echo "=== wireup, $np ranks ($(date +%T))"
    RCMSG_TRANSPORTS=rc,self timeout 900 $mpirun -np "$np" "$b/rcmsg_wireup_bench" --tsv \
        > "$out/wireup.$np" 2>&1
done
echo "=== done"
