#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# 4 ranks, 2 per node, under $NODES_LAUNCHER: node2's ranks sleep 4 s before rcmsg_finalize;
# node1's finalize must wait for them in its closing barrier (nodes_fence_test). Under Slurm
# a launcher fence without data collection returned at once on node1, which then tore its
# QPs down under node2's last sends (their flush failed: MPI_Finalize RCMSG_ERR_TIMEOUT).
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/nodes/nodes_lib.sh"
need_nodes
out=$(mktemp "$top_builddir/test/integration/nodes/fence.XXXXXX")
trap 'rm -f "$out"' EXIT
job 120 "$out" -- "$top_builddir/test/integration/nodes/nodes_fence_test" node2 4
grep -e '^rank' -e FAIL "$out"
[ $st -eq 0 ] || { tail -n 30 "$out"; fail "nodes_fence_test: $launcher exited with $st"; }
ranks_passed 4 "$out" || fail "nodes_fence_test: not every rank passed"
pass "$launcher, 4 ranks on 2 nodes: node1's rcmsg_finalize waited for node2's ranks (4 s late)"
