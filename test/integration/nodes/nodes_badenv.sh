#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A bad environment on one node only: under $NODES_LAUNCHER, 4 ranks, 2 per node, node2's
# ranks with RCMSG_SRQ_BUF_SIZE=16k (node1's the default 9k): every rank's rcmsg_init fails,
# promptly (no hang), each logging that a peer of the other node uses other receive buffers,
# with both sizes and the variable to set the same on every rank.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/nodes/nodes_lib.sh"
need_nodes
out=$(mktemp)
trap 'rm -f "$out"' EXIT
t0=$(date +%s)
job 120 "$out" -- sh -c '[ "$(hostname)" != node2 ] || export RCMSG_SRQ_BUF_SIZE=16k; exec "$0"' \
    "$top_builddir/test/integration/p2p/p2p_test"
secs=$(($(date +%s) - t0))
grep -e 'error: ' -e FAIL "$out" | head -20
echo "$launcher: status $st after $secs s"
# (mpirun with orte_abort_on_non_zero_status 0, which lets every rank say why, exits 0: the
# ranks' own errors below are the assertion)
[ $st -ne 0 ] || [ "$launcher" = mpirun ] || fail "the job succeeded with two receive buffer sizes"
for r in 0 1; do
    [ -n "$(rank_logged $r "$out" "error: peer [23] uses 16384-byte receive buffers, this rank 9216: set the same RCMSG_SRQ_BUF_SIZE on every rank")" ] ||
        fail "rank $r (node1) did not name a node2 peer's buffer size and RCMSG_SRQ_BUF_SIZE"
done
for r in 2 3; do
    [ -n "$(rank_logged $r "$out" "error: peer [01] uses 9216-byte receive buffers, this rank 16384: set the same RCMSG_SRQ_BUF_SIZE on every rank")" ] ||
        fail "rank $r (node2) did not name a node1 peer's buffer size and RCMSG_SRQ_BUF_SIZE"
done
each_rank_logged 4 "$out" 'error: rcmsg_init failed' ||
    fail "not every rank's rcmsg_init failed: $bad"
pass "$launcher: RCMSG_SRQ_BUF_SIZE=16k on node2 only: every rank's rcmsg_init failed naming it ($secs s)"
