#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Boots the two Soft-RoCE guests ONCE (contrib/rxe-vm/rxe-run --nodes 2: node1 with two NUMA
# nodes of one vCPU, node2 with one NUMA node of two vCPUs) and runs on node1
# test/integration/nodes/nodes_run.sh: a two-node Slurm, then the where=nodes lines of
# test/integration/nodes/testlist, each its own PASS, FAIL or SKIP line in this test's log
# (4 ranks, 2 per node, under mpirun --host node1:2,node2:2 and srun -N 2 -n 4: p2p, every
# collective, the MPI face, counters per pair, lazy connect churn, placement, a link down, a
# bad environment on one node, a whole node lost). About 7 minutes.
# SKIP (77) when the guests cannot be booted here, or without verbs; the reason is printed.
set -u
if [ "${VERBS_BUILD:-yes}" = no ]; then
    echo "SKIP: built without verbs (configure --without-verbs): no rc transport to test"
    exit 77
fi
if [ "${SANITIZER_BUILD:-no}" = yes ]; then
    echo "SKIP: sanitizer build: too slow under the guests' emulation (see test/rdma/guest.sh)"
    exit 77
fi
runner="$top_srcdir/contrib/rxe-vm/rxe-run"
if ! why=$("$runner" --check 2>&1); then
    echo "SKIP: the Soft-RoCE guests cannot run here: $why"
    exit 77
fi
# one boot at a time (make -j runs guest.sh and two_nodes.sh as two tests): the lock is held
# on fd 9, which the runner inherits, until this test ends
mkdir -p "$top_builddir/test/rdma" && exec 9> "$top_builddir/test/rdma/vm.lock" || exit 99
flock 9 || exit 99
cd "$top_builddir" || exit 1
t0=$(date +%s)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u RCMSG_TRANSPORTS "$runner" --nodes 2 --numa-only 1 \
    --smp 2 --rw "$top_srcdir" --timeout "${TWO_NODE_TIMEOUT:-1200}" -- \
    bash "$top_srcdir/test/integration/nodes/nodes_run.sh"
st=$?
echo "two_nodes.sh: status $st after $(($(date +%s) - t0)) s (both guests' boot included)"
exit $st
