#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# On node1 of contrib/rxe-vm/rxe-run --nodes 2 (test/rdma/two_nodes.sh boots the pair and runs
# this there): starts the two-node Slurm (contrib/rxe-vm/slurm-two-nodes), then the where=nodes
# lines of test/integration/nodes/testlist through run.sh (each its own PASS, FAIL or SKIP line;
# every line's output in test/integration/nodes/nodes.log, printed after them), then stops Slurm.
#   nodes_run.sh        (in the build tree; top_srcdir, top_builddir, MPIRUN in the environment)
# exit: 0 every line passed or skipped (one at least passed), 1 a line failed, 77 all skipped.
set -u
[ "$(hostname)" = node1 ] || { echo "SKIP: not on node1 of rxe-run --nodes 2"; exit 77; }
t0=$SECONDS
area=$top_builddir/test/integration/nodes
mkdir -p "$area"
slurm=$(mktemp -d "$area/slurm.XXXXXX")
if "$top_srcdir/contrib/rxe-vm/slurm-two-nodes" up "$slurm"; then
    export SLURM_CONF=$slurm/slurm.conf NODES_SLURM=up
    echo "slurm: both nodes idle after $((SECONDS - t0)) s"
else
    echo "note: no two-node Slurm: the srun lines skip"
fi
log=$area/nodes.log trs=$area/nodes.trs
sh "$top_srcdir/test/integration/run.sh" --test-name test/integration/nodes/nodes.testlist \
    --log-file "$log" --trs-file "$trs" -- "$top_srcdir/test/integration/nodes/nodes.testlist"
"$top_srcdir/contrib/rxe-vm/slurm-two-nodes" down "$slurm"
rm -rf "$slurm"
echo "---- each line's output (test/integration/nodes/nodes.log):"
cat "$log"
echo "nodes_run.sh: the testlist took $((SECONDS - t0)) s"
grep -q '^:test-result: \(FAIL\|ERROR\)' "$trs" && exit 1
grep -q '^:test-result: PASS' "$trs" || exit 77
exit 0
