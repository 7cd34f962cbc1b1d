#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Shared memory's own eager limit (RCMSG_SM_EAGER_LIMIT, and RCMSG_SM_CELL_SIZE that caps it):
# 1. the protocol each size takes, from the counters (RCMSG_STATS_FILE): rank 0 sends rank 1
#    20 messages just at the limit and 20 one byte above, and the first 20 go eagerly, the
#    others by rendezvous (one CMA read each on rank 1), for the default (8 KiB), for 100
#    bytes with RCMSG_EAGER_LIMIT=0 (rc's limit is not sm's), for 0 (every byte rendezvous), for
#    the largest (1 MiB) and for cells of 1 KiB that cap the limit to 960 bytes.
#    RCMSG_EAGER_CREDITS=256: no eager send runs out of credits and falls back to rendezvous.
# 2. the point-to-point semantics set (p2p_test, 3 ranks, sizes across both limits) with the
#    sm limit at 0 and at 1 MiB.
# 3. sm's own eager credits (RCMSG_SM_EAGER_CREDITS, 256): 200 small messages sent back to back
#    while rank 1 receives them one by one never wait for a credit (at most 200 are unmatched).
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
. "$top_srcdir/test/integration/monitor_lib.sh"
RCMSG_TRANSPORTS=sm,self
export RCMSG_TRANSPORTS

# boundary NAME AT VAR=VALUE...: AT bytes go eagerly, AT + 1 by rendezvous
boundary() {
    name=$1 at=$2
    shift 2
    job "$name" 120 2 RCMSG_STATS=peer "RCMSG_STATS_FILE=$work/$name.%r.json" \
        RCMSG_EAGER_CREDITS=256 "$@" -- traffic "20x$at" "20x$((at + 1))"
    [ $st -eq 0 ] || jobfail "$name: mpirun exited with $st"
    grep -q '^rank 1: traffic: 40 messages received and checked, 0 failures$' "$out" ||
        jobfail "$name: rank 1 did not receive the 40 messages intact"
    expect_json "$name" "$work/$name.0.json" '.scope == "peer" and .rank == 0 and .peer == 1' \
        transport=sm msgs_sent_eager=20 bytes_sent_eager=$((20 * at)) msgs_sent_rndv=20 \
        bytes_sent_rndv=$((20 * (at + 1))) credit_waits=0 rndv_fallbacks=0
    expect_json "$name" "$work/$name.1.json" '.scope == "peer" and .rank == 1 and .peer == 0' \
        msgs_recv_eager=20 bytes_recv_eager=$((20 * at)) msgs_recv_rndv=20 reads=20 \
        reads_bytes=$((20 * (at + 1)))
    echo "ok: $name ($*): $at bytes eager, $((at + 1)) by rendezvous"
}

echo "== 1. the protocol on either side of the sm eager limit"
boundary default 8192
boundary limit100 100 RCMSG_SM_EAGER_LIMIT=100 RCMSG_EAGER_LIMIT=0
boundary limit0 0 RCMSG_SM_EAGER_LIMIT=0
boundary limit1m 1048576 RCMSG_SM_EAGER_LIMIT=1m
boundary cells1k 960 RCMSG_SM_CELL_SIZE=1k

echo "== 2. the semantics set with the sm eager limit at its extremes"
prog=$top_builddir/test/integration/p2p/p2p_test
for lim in 0 1m; do
    RCMSG_SM_EAGER_LIMIT=$lim run_timeout 300 "$MPIRUN" --allow-run-as-root -np 3 --oversubscribe \
        -x RCMSG_SM_EAGER_LIMIT "$prog" > "$work/p2p.out" 2>&1
    st=$?
    [ $st -eq 0 ] && ranks_passed 3 "$work/p2p.out" ||
        { cat "$work/p2p.out"; fail "p2p_test with RCMSG_SM_EAGER_LIMIT=$lim: exit $st"; }
    echo "ok: p2p_test on 3 ranks with RCMSG_SM_EAGER_LIMIT=$lim"
done
echo "== 3. sm's own eager credits"
job credits 120 2 RCMSG_STATS=peer "RCMSG_STATS_FILE=$work/credits.%r.json" -- traffic 200x8
[ $st -eq 0 ] || jobfail "credits: mpirun exited with $st"
expect_json credits "$work/credits.0.json" '.scope == "peer" and .rank == 0 and .peer == 1' \
    transport=sm credit_waits=0 rndv_fallbacks=0
echo "ok: credits: 200 small messages in a row, none waited for a credit"
pass "the sm eager limit picks the protocol; the semantics hold at 0 and 1 MiB; sm's credits"
