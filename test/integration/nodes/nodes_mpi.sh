#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The MPI face with 4 ranks, 2 per node, under $NODES_LAUNCHER: a representative set of
# test/integration/mpi (point-to-point, collectives, nonblocking collectives mixed with p2p,
# derived datatypes over p2p, Comm_split_type by host: HW_UNGUIDED splits by node here), each
# checked by the program. (mpi_group_test is not among them:
# it assumes one host, a node communicator of MPI_COMM_TYPE_SHARED that is the world.)
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/nodes/nodes_lib.sh"
need_nodes
work=$(mktemp -d "$top_builddir/test/integration/nodes/mpi.XXXXXX")
trap 'rm -rf "$work"' EXIT
for name in mpi_p2p_test mpi_coll_test mpi_nbc_mixed mpi_types_p2p mpi_split_hosts_test; do
    t0=$(date +%s)
    job 300 "$work/$name.out" -- "$top_builddir/test/integration/mpi/$name"
    grep FAIL "$work/$name.out" | head -20
    [ $st -eq 0 ] && ranks_passed 4 "$work/$name.out" ||
        { tail -n 30 "$work/$name.out"; fail "$name: $launcher exited with $st, or a rank failed"; }
    echo "ok: $name, 4 ranks on 2 nodes ($(($(date +%s) - t0)) s)"
done
[ "$(grep -c '^rank [0-3]: 2 host(s), 2 rank(s) on mine$' "$work/mpi_split_hosts_test.out")" -eq 4 ] ||
    fail "mpi_split_hosts_test: not every rank saw 2 hosts with 2 ranks each"
pass "$launcher, 4 ranks on 2 nodes: the MPI face's p2p, collectives, nbc mixed, datatypes, split by host"
