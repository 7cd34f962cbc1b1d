#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Boots the two Soft-RoCE guests ONCE (contrib/rxe-vm/rxe-run --nodes 2) and runs
# contrib/rxe-vm/two-node-smoke on node1: a 4-rank job, 2 ranks per node, under
# mpirun --host node1:2,node2:2 and under a two-node Slurm (srun --mpi=pmix -N 2 -n 4); the
# counters must show sm between the ranks of a node (no QP) and rc across. About 80 s.
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
# one boot at a time (make -j runs guest.sh and two_nodes.sh as two tests): the lock is held
# on fd 9, which the runner inherits, until this test ends
mkdir -p "$top_builddir/test/rdma" && exec 9> "$top_builddir/test/rdma/vm.lock" || exit 99
flock 9 || exit 99
exec "$top_srcdir/contrib/rxe-vm/two-node-smoke" "$top_builddir"
