#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# In a 2-NUMA-node guest, ranks bound to node 1 (and then node 0) get their receive pool on
# that node, as the kernel reports it.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
command -v hwloc-bind >/dev/null || skip "hwloc-bind not installed (apt-get install hwloc)"
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
[ "$nodes" -ge 2 ] || skip "one NUMA node here (the guest runs with --numa for this test)"
out=$(mktemp); trap 'rm -f "$out"' EXIT
for node in 1 0; do
    RCMSG_LOG_LEVEL=info run_timeout 300 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe \
        --bind-to none hwloc-bind node:$node -- \
        "$top_builddir/test/integration/rc/numa_test" $node > "$out" 2>&1
    st=$?
    grep -e 'buffers' -e '^rank' -e FAIL "$out"
    [ $st -eq 0 ] || fail "node $node: exit $st"
    each_rank 2 "$out" "[0-9]*-byte receive pool bound to node $node, pages on node(s) $node\$" ||
        fail "rank $_r: pool not on node $node"
done
pass "receive pools follow the process's NUMA binding"
