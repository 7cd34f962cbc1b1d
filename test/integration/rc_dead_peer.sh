#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A rank SIGKILLed while rank 0 has a rendezvous send (RTS) or a rendezvous read (RDMA_READ)
# outstanding to it: with the default RCMSG_IB_RETRY_COUNT (6; 7 would retry forever on rxe)
# and RCMSG_IB_TIMEOUT (18), rank 0's operation fails with RCMSG_ERR_CONNECTION within
# (6 + 1) x 4.096 us x 2^18 = 7.5 s (plus slack for the emulated guest). mpirun
# --enable-recovery keeps rank 0 running after rank 1 dies.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
for mode in send read; do
    run_timeout 120 env -u RCMSG_IB_RETRY_COUNT -u RCMSG_IB_TIMEOUT "$MPIRUN" \
        --allow-run-as-root -np 2 --oversubscribe --enable-recovery \
        "$top_builddir/test/integration/rc_dead_peer_test" --$mode > "$out" 2>&1
    st=$?
    cat "$out"
    [ $st -ne 124 ] || fail "--$mode: the job hung (a retry count that retries forever?)"
    grep -q '^rank 1: killing itself with SIGKILL' "$out" || fail "--$mode: rank 1 did not get to the kill"
    line=$(grep '^rank 0: .* to the dead rank 1 returned' "$out") ||
        fail "--$mode: rank 0's operation never returned"
    echo "$line" | grep -q 'returned RCMSG_ERR_CONNECTION after' ||
        fail "--$mode: rank 0's operation did not fail with RCMSG_ERR_CONNECTION"
    secs=$(echo "$line" | sed 's/.* after \([0-9.]*\) s$/\1/')
    awk -v s="$secs" 'BEGIN { exit !(s <= 7.5 + 3) }' ||
        fail "--$mode: detected after $secs s, beyond the 7.5 s bound (+3 s slack)"
    grep -Eq 'error: (SEND|RDMA_READ).* to peer 1 failed: transport retry counter exceeded' "$out" ||
        fail "--$mode: no retry-exceeded error naming peer 1"
    grep -q '^rank 0: finalized' "$out" || fail "--$mode: rank 0 did not finalize"
    echo "ok: --$mode: rank 0 got RCMSG_ERR_CONNECTION after $secs s"
done
pass "an operation outstanding to a dead peer fails within the retry bound"
