#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One node's link down for 5 s during checked traffic: 4 ranks, 2 per node, under mpirun,
# rc_recovery_test stream (every pair both ways, eager and rendezvous mixed, every byte,
# length and order checked) with a short retry budget (RCMSG_IB_TIMEOUT=14,
# RCMSG_IB_RETRY_COUNT=2: 3 x 4.096 us x 2^14 = 0.2 s; 13 ms, as rc_recovery.sh has in one
# guest, broke the cross-node QPs ~70 times each after the link was back: the path between
# two emulated guests stalls longer) and RCMSG_RECOVERY_TIMEOUT=30s; node1's eth0 (under its rxe0)
# goes down for 5 s and up again mid-stream. Asserted: every stream complete (0 lost,
# duplicated, out of order, corrupt), the cross-node connections recovered (the recoveries
# counters and the "recovered" warn lines), the same-node pairs untouched (sm, no recovery),
# no error logged.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/nodes/nodes_lib.sh"
need_nodes
launcher=mpirun
work=$(mktemp -d "$top_builddir/test/integration/nodes/link.XXXXXX")
cleanup() {
    ip link show eth0 | grep -q '[<,]UP[,>]' || ip link set eth0 up
    rm -rf "$work"
}
trap cleanup EXIT
mkdir "$work/stats" "$work/logs"
job 150 "$work/out" RCMSG_IB_TIMEOUT=14 RCMSG_IB_RETRY_COUNT=2 RCMSG_RECOVERY_TIMEOUT=30s \
    RCMSG_LOG_LEVEL=info RC_RECOVERY_LOG_DIR="$work/logs" \
    RCMSG_STATS_FILE="$work/stats/stats.%h.%r.json" -- \
    "$top_builddir/test/integration/rc/rc_recovery_test" stream --until "$work/done" \
    --min-msgs 200 --deadline 240 &
jobpid=$!
i=0
until grep -q '^rank 0: stream: running' "$work/out" 2> /dev/null; do
    i=$((i + 1))
    [ $i -le 600 ] || { cat "$work/out"; fail "the stream never started running"; }
    sleep 0.1
done
t0=$(date +%s.%N)
ip link set eth0 down || fail "ip link set eth0 down"
sleep 5
ip link set eth0 up || fail "ip link set eth0 up"
echo "node1's eth0 down for $(echo "$(date +%s.%N) - $t0" | bc) s"
sleep 3
touch "$work/done"
wait $jobpid
st=$?
out=$work/all
cat "$work/out" "$work"/logs/*.log > "$out" 2> /dev/null
grep -e '^rank [0-9]*: stream:' -e '^rank [0-9]*: recoveries:' -e FAIL -e ' error: ' "$work/out"
grep '\] warn: rc: connection to peer [0-9]* recovered' "$out" | head -8
grep -v -e '^\[rcmsg ' -e '^rank ' "$work"/logs/*.log | head -8 # anything else a process said (a crash)
[ $st -eq 0 ] || fail "$launcher exited with $st"
for r in 0 1 2 3; do
    for p in 0 1 2 3; do
        [ $r = $p ] || grep -q "^rank $r: stream: peer $p: received [1-9][0-9]* ([0-9]* bytes), lost 0, duplicated 0, out of order 0, corrupt 0, errors 0;" "$out" ||
            fail "rank $r did not receive everything of peer $p once, in order and intact"
    done
done
grep -q '\] warn: rc: connection to peer [0-9]* recovered' "$out" || fail "no 'recovered' line in the log"
! grep ' error: ' "$out" || fail "errors were logged"
pairs_check "$work/stats" "link down 5 s" link
pass "node1's link down for 5 s during an all-pairs checked stream: recovered, nothing lost"
