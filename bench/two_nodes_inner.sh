#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs on node1 of contrib/rxe-vm/rxe-run --nodes 2 (bench/two_nodes_compare.sh boots the
# pair): raw perftest, rcmsg and Open MPI + UCX rc_verbs between node1's rxe0 and node2's
# rxe0, one rank per node, alternating, REPS times; then the wireup of 2 x N ranks (N per
# node: sm within a node, rc across). Raw outputs go to OUT under guest_inner.sh's file names,
# so that bench/guest_summary.sh summarizes them.
#   two_nodes_inner.sh OUT REPS SIZES WIREUP_NS
set -u
out=$1 reps=$2 sizes=$3 ns=$4
b=$(pwd)/bench # the build directory's
mpirun="mpirun --allow-run-as-root"
two="--host node1:1,node2:1 -np 2"
mkdir -p "$out"
max=0
for s in $sizes; do [ "$s" -gt "$max" ] && max=$s; done
{
    echo "guest: two nodes: node1 $(nproc) vCPUs, node2 $(rxe-rsh node2 nproc) vCPUs, $(uname -r)"
    ibv_devinfo -d rxe0 | grep -E 'hca_id|active_mtu|link_layer'
    ompi_info --version 2> /dev/null | head -1
    ucx_info -v 2> /dev/null | head -2
    dpkg -l perftest 2> /dev/null | awk '/^ii/ {print "perftest " $3}'
} > "$out/guest.txt" 2>&1

# perftest: server on node2's rxe0, client on node1's (GID 1: the IPv4-mapped RoCE v2 GID)
perf() { # test size iters rep
    t=$1 s=$2 n=$3 r=$4
    rxe-rsh node2 "$t" -d rxe0 -x 1 -s "$s" -n "$n" -F > /dev/null 2>&1 &
    sp=$!
    i=0
    while [ $i -lt 20 ]; do
        sleep 0.5
        "$t" -d rxe0 -x 1 -s "$s" -n "$n" -F 10.55.0.2 > "$out/perftest.$t.$s.$r" 2>&1 && break
        i=$((i + 1))
    done
    wait $sp
}
# Open MPI + UCX: rc_verbs with ud_verbs for wireup, GID index 0 (the rxe pitfall)
ompi() {
    $mpirun $two -x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_IB_GID_INDEX=0 -x UCX_NET_DEVICES=rxe0:1 \
        --mca pml ucx --mca btl ^openib,uct "$b/rcmsg_bench_mpi" "$@" 2>&1
}
rcm() { $mpirun $two "$b/rcmsg_bench" "$@" 2>&1; }

lat="--min 8 --max $max --iters 100 --iters-large 10 --stat median"
bw="--min 8 --max $max --window 16 --iters 20 --iters-large 2"
for r in $(seq 1 "$reps"); do
    echo "=== repetition $r of $reps ($(date +%T))"
    for s in $sizes; do
        n=1000 nb=500
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
        rcm bw $bw > "$out/rcmsg.bw.$r"
        ompi bw $bw > "$out/ompi.bw.$r"
        rcm bibw $bw > "$out/rcmsg.bibw.$r"
        ompi bibw $bw > "$out/ompi.bibw.$r"
        rcm rate --max 8k --iters 10 > "$out/rcmsg.rate.$r"
        ompi rate --max 8k --iters 10 > "$out/ompi.rate.$r"
    }
done
# wireup of 2 x N ranks, N per node
for n in $ns; do
    echo "=== wireup, 2 x $n ranks ($(date +%T))"
    timeout 600 $mpirun --host "node1:$n,node2:$n" -np $((2 * n)) --oversubscribe \
        "$b/rcmsg_wireup_bench" --tsv > "$out/wireup.$((2 * n))" 2>&1
done
echo "=== done"
