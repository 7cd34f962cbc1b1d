#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hwloc placement on each node, the two guests of different NUMA shapes (two_nodes.sh boots
# node1 with two NUMA nodes of one vCPU each, node2 with one NUMA node of two vCPUs:
# rxe-run --numa-only 1 --smp 2): 4 ranks, 2 per node, under mpirun, each bound by hwloc-bind
# to the core of its local rank; nodes_place_test asserts on every rank that btl_rc's
# receive pool is bound to the NUMA node of the rank's own binding on its own node, and the
# pages are there. Asserted here: node1's ranks on NUMA nodes 0 and 1 of 2, node2's both on
# node 0 of 1.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/nodes/nodes_lib.sh"
need_nodes
launcher=mpirun # the binding reads mpirun's OMPI_COMM_WORLD_LOCAL_RANK
command -v hwloc-bind > /dev/null || skip "hwloc-bind not installed (apt-get install hwloc)"
n1=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
n2=$(rxe-rsh node2 'ls -d /sys/devices/system/node/node[0-9]*' | wc -l)
echo "NUMA nodes: node1 $n1, node2 $n2"
[ "$n1" = 2 ] && [ "$n2" = 1 ] || skip "the guests are not of the shapes this test needs (node1 2 NUMA nodes, node2 1: rxe-run --nodes 2 --numa-only 1 --smp 2)"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
job 120 "$out" RCMSG_LOG_LEVEL=info -- --bind-to none sh -c \
    'exec hwloc-bind core:$OMPI_COMM_WORLD_LOCAL_RANK -- "$0"' \
    "$top_builddir/test/integration/nodes/nodes_place_test"
grep -e '^rank' -e FAIL -e 'buffers bound' "$out"
[ $st -eq 0 ] || fail "$launcher exited with $st"
ranks_passed 4 "$out" || fail "not every rank's pool on its own NUMA node"
for want in "0 node1: 2 NUMA node(s), bound to NUMA node 0, pool bound to node 0" \
    "1 node1: 2 NUMA node(s), bound to NUMA node 1, pool bound to node 1" \
    "2 node2: 1 NUMA node(s), bound to NUMA node 0, pool bound to node 0" \
    "3 node2: 1 NUMA node(s), bound to NUMA node 0, pool bound to node 0"; do
    grep -q "^rank ${want%% *}: host ${want#* }, pages on node(s) [01]$" "$out" ||
        fail "rank ${want%% *}: not on host ${want#* }"
done
pass "placement on two nodes of different NUMA shapes: each rank's pool on its own node's NUMA node"
