#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A rank SIGKILLed while rank 0 has a rendezvous send (RTS) or a rendezvous read (RDMA_READ)
# outstanding to it. With the default RCMSG_IB_RETRY_COUNT (6; 7 would retry forever on rxe)
# and RCMSG_IB_TIMEOUT (18) the operation's retries run out after (6 + 1) x 4.096 us x 2^18 =
# 7.5 s. With recovery (the default) the connection then tries to come back: rank 0 reconnects
# through the CM, nobody answers, and after RCMSG_RECOVERY_TIMEOUT (3 s here) the operation
# fails with RCMSG_ERR_CONNECTION: within 7.5 + 3 s, one recovery attempt, no loop. With
# RCMSG_RECOVERY=no it fails at the retry bound, 7.5 s. (Plus slack for the emulated guest.)
# mpirun --enable-recovery keeps rank 0 running after rank 1 dies.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
for run in send:yes read:yes send:no; do
    mode=${run%:*} recovery=${run#*:}
    bound=7.5
    [ "$recovery" = yes ] && bound=10.5
    run_timeout 120 env -u RCMSG_IB_RETRY_COUNT -u RCMSG_IB_TIMEOUT RCMSG_RECOVERY=$recovery \
        RCMSG_RECOVERY_TIMEOUT=3s "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe \
        --enable-recovery "$top_builddir/test/integration/rc/rc_dead_peer_test" --$mode > "$out" 2>&1
    st=$?
    cat "$out"
    what="--$mode, RCMSG_RECOVERY=$recovery"
    [ $st -ne 124 ] || fail "$what: the job hung (a retry count that retries forever?)"
    grep -q '^rank 1: killing itself with SIGKILL' "$out" || fail "$what: rank 1 did not get to the kill"
    line=$(grep '^rank 0: .* to the dead rank 1 returned' "$out") ||
        fail "$what: rank 0's operation never returned"
    echo "$line" | grep -q 'returned RCMSG_ERR_CONNECTION after' ||
        fail "$what: rank 0's operation did not fail with RCMSG_ERR_CONNECTION"
    secs=$(echo "$line" | sed 's/.* after \([0-9.]*\) s$/\1/')
    awk -v s="$secs" -v b="$bound" 'BEGIN { exit !(s <= b + 3) }' ||
        fail "$what: detected after $secs s, beyond the $bound s bound (+3 s slack)"
    if [ "$recovery" = yes ]; then
        l=$(grep -m 2 'rc: connection to peer 1 not recovered: it broke (transport retry counter exceeded' "$out")
        [ -n "$l" ] && [ -z "$(echo "$l" | sed -n 2p)" ] ||
            fail "$what: not exactly one failed recovery naming retry-exceeded"
        grep -q 'cannot connect to peer 1: no REP answered our REQ .*RCMSG_RECOVERY_TIMEOUT' "$out" ||
            fail "$what: the reconnect's end is not logged naming RCMSG_RECOVERY_TIMEOUT"
        ! grep -q 'rc: connection to peer 1 recovered' "$out" || fail "$what: a dead peer 'recovered'"
    else # the operation, or the progress thread's probe (a zero-length RDMA_WRITE), meets it first
        grep -Eq 'error: (SEND|RDMA_READ|flush).* to peer 1 failed: transport retry counter exceeded' "$out" ||
            fail "$what: no retry-exceeded error naming peer 1"
    fi
    grep -q '^rank 0: finalized' "$out" || fail "$what: rank 0 did not finalize"
    echo "ok: $what: rank 0 got RCMSG_ERR_CONNECTION after $secs s (bound $bound s)"
done
pass "an operation outstanding to a dead peer fails within the retry bound (+ RCMSG_RECOVERY_TIMEOUT)"
