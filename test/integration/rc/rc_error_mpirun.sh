#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Rank 0 forces its QP to rank 1 into ERR with RCMSG_RECOVERY=no (fail-stop; the recovery
# is tested by rc_recovery.sh). Both ends must report the failure with the peer, the qp number
# and its state, refuse later sends, and exit cleanly (no hang).
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
# a short ACK timeout so that rank 1's retries run out quickly
RCMSG_RECOVERY=no RCMSG_IB_TIMEOUT=10 RCMSG_IB_RETRY_COUNT=3 run_timeout 400 "$MPIRUN" --allow-run-as-root -np 3 \
    --oversubscribe "$top_builddir/test/integration/rc/rc_mesh_test" --force-error > "$out" 2>&1
st=$?
cat "$out"
[ $st -ne 124 ] || fail "the job hung"
[ $st -eq 0 ] || fail "mpirun exited with $st"
! grep FAIL "$out" || fail "a rank reported a FAIL line (the messages before the error must arrive intact)"
grep -q 'warn: forcing qp 0x[0-9a-f]* (peer 1) from RTS into ERR' "$out" || fail "no forcing line"
# rank 0: its own send flushed; rank 1: its retries exhausted (whichever request meets the
# broken QP first: a message, or the progress thread's probe, a zero-length RDMA_WRITE)
grep -Eq '\[rcmsg [^ ]*:0 [0-9]+\] error: (SEND|flush).* to peer 1 failed: .* qp 0x[0-9a-f]+ \(state ERR\)' "$out" ||
    fail "rank 0 did not report the failed send with peer, qp and state"
grep -Eq '\[rcmsg [^ ]*:1 [0-9]+\] error: (SEND|flush).* to peer 0 failed: transport retry counter exceeded .* qp 0x[0-9a-f]+ \(state ERR\)' "$out" ||
    fail "rank 1 did not report retry-exceeded with peer, qp and state"
grep -q 'connection to peer 1 lost: qp 0x[0-9a-f]* on .* is in state ERR' "$out" || fail "rank 0 did not report the lost connection"
grep -q 'connection to peer 0 lost: qp 0x[0-9a-f]* on .* is in state ERR' "$out" || fail "rank 1 did not report the lost connection"
each_rank 2 "$out" 'failure callback called; a send after the failure returns RCMSG_ERR_CONNECTION$' ||
    fail "both ends must refuse later sends (rank $_r did not say so)"
pass "a QP in ERR is reported on both sides and nobody hangs"
