#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The connection manager on Soft-RoCE (rc_cm_test: two processes, rank 0 on rxe0 and rank 1 on
# rxe1, that know only each other's 32-byte CM address): one side connects, both connect at
# once; the same with netem dropping 30% of the packets leaving both veths (CM packets and RC
# packets: the CM sends again, and more than once); a peer that has exited: the connect fails
# with RCMSG_ERR_CONNECTION after RCMSG_CM_TIMEOUT x RCMSG_CM_RETRIES (100 ms x 30 = 3 s here,
# checked with 2 s of slack for the emulated guest).
. "$top_srcdir/test/integration/lib.sh"
need_rdma
prog=$top_builddir/test/integration/rc/rc_cm_test
out=$(mktemp)
lossy=
cleanup() {
    for v in $lossy; do tc qdisc del dev "$v" root 2> /dev/null; done
    rm -f "$out"
}
trap cleanup EXIT

run() { # run NAME MODE [ENV...]: one rc_cm_test, output kept in $out
    name=$1 mode=$2
    shift 2
    run_timeout 90 env "$@" "$prog" "$mode" > "$out" 2>&1
    st=$?
    cat "$out"
    [ $st -ne 124 ] || fail "$name: hung"
    [ $st -eq 0 ] || fail "$name: exit status $st"
    for r in 0 1; do
        grep -q "^ok: rank $r: received \"hello from rank $((1 - r)) over qp" "$out" ||
            fail "$name: rank $r did not receive rank $((1 - r))'s message"
    done
}

for mode in one both; do
    run "$mode" "$mode" RCMSG_LOG_LEVEL=debug
    each_pair_logged 2 "$out" "debug: CM: connected to peer " ":" || fail "$mode: not one connection per side: $bad"
    if [ $mode = both ]; then
        grep -q 'dropped: simultaneous connect' "$out" ||
            fail "both: the lower rank did not drop the higher rank's REQ"
        grep -q 'connected to peer 0:.* passive' "$out" && grep -q 'connected to peer 1:.* active' "$out" ||
            fail "both: rank 0 should be the active side and rank 1 the passive one"
    fi
    echo "ok: $mode: one connection, a message each way"
done

# 30% loss on both veths while connecting
for v in veth0 veth1; do
    [ -e "/sys/class/net/$v" ] || continue
    tc qdisc add dev "$v" root netem loss 30% || fail "tc qdisc add dev $v netem (no sch_netem?)"
    lossy="$lossy $v"
done
[ -n "$lossy" ] || skip "no veth0/veth1 to impair here (not the rxe guest?)"
retried=
for i in 1 2 3; do
    for mode in one both; do
        run "loss $mode #$i" "$mode" RCMSG_LOG_LEVEL=debug
        ! grep -q 'CM: retry' "$out" || retried="$retried $mode#$i"
    done
done
echo "ok: 30% loss on$lossy: 6 connections formed, CM retries logged in:${retried:- none}"
[ -n "$retried" ] || fail "30% loss and not a single CM retry: was the loss applied?"

# rcmsg_init's eager connects (every pair through the CM, then the closing fence, during which
# a rank keeps answering a peer whose last packet was lost) under 10% loss of the CM's packets:
# 4 ranks connect and exchange checked messages. Only the CM's UD packets are dropped (RoCE v2,
# UDP 4791, BTH opcode 0x64 UD SEND_ONLY, 28 bytes into the IP packet): rxe does not recover
# RC traffic (RDMA READ responses above all) from random loss within any bound, so loss on the
# data path made this run retransmit ("rdma_rxe: Failed sending ACK") until the timeout
if [ -n "$MPIRUN" ] && [ -x "$top_builddir/test/integration/rc/rc_mesh_test" ]; then
    for v in $lossy; do
        tc qdisc del dev "$v" root
        cm_loss "$v" 10 ||
            fail "tc: cannot drop the CM's packets alone on $v (no sch_prio or cls_u32?)"
    done
    RCMSG_LOG_LEVEL=debug run_timeout 120 \
        "$MPIRUN" --allow-run-as-root -np 4 --oversubscribe "$top_builddir/test/integration/rc/rc_mesh_test" > "$out" 2>&1
    st=$?
    grep -v ' debug: \| info: ' "$out"
    [ $st -eq 0 ] || fail "eager connects under 10% loss: mpirun exited with $st"
    for r in 0 1 2 3; do
        grep -q "^rank $r of 4: 800 messages from 4 ranks checked" "$out" ||
            fail "eager connects under 10% loss: rank $r did not check its 800 messages"
    done
    ranks_passed 4 "$out" || fail "eager connects under 10% loss: not every rank checked its messages"
    each_pair_logged 4 "$out" "debug: CM: connected to peer " ":" ||
        fail "eager connects under 10% loss: not one CM connection per rank and peer: $bad"
    echo "ok: rcmsg_init of 4 ranks under 10% loss of CM packets: one CM connection per rank and peer"
fi
for v in $lossy; do tc qdisc del dev "$v" root; done
lossy=

# a peer that has exited
run_timeout 60 env RCMSG_CM_TIMEOUT=100ms RCMSG_CM_RETRIES=30 "$prog" dead > "$out" 2>&1
st=$?
cat "$out"
[ $st -ne 124 ] || fail "dead: hung"
line=$(grep '^rank 0: connect to the dead rank 1 returned' "$out") || fail "dead: no result"
echo "$line" | grep -q 'returned RCMSG_ERR_CONNECTION after' || fail "dead: not RCMSG_ERR_CONNECTION"
grep -q 'error: cannot connect to peer 1: no REP answered our REQ after 30 sends' "$out" ||
    fail "dead: no error naming peer 1 and the reason"
secs=$(echo "$line" | sed 's/.* after \([0-9.]*\) s .*/\1/')
awk -v s="$secs" 'BEGIN { exit !(s >= 2.9 && s <= 3 + 2) }' ||
    fail "dead: failed after $secs s, not within the 3 s bound (+2 s slack)"
pass "CM connects with and without 30% loss, simultaneous connects give one connection, a dead peer fails in $secs s"
