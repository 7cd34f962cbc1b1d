#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Lazy connect and recycling across nodes: 4 ranks, 2 per node, under mpirun, RCMSG_CONNECT=lazy
# and RCMSG_QP_MAX_ACTIVE=1 (each rank has two rc peers on the other node and one connection at
# a time): rc_lazy_test's all-to-all, ring and random-peer traffic, then 10 rounds of 10
# messages to random derangement peers (eager and rendezvous alternately), every byte, length
# and the per-pair order checked by the program; rank 0's totals (from the rc events) show the
# churn; the counters: sm within a node (no QP, never connected over rc), rc across, connected
# at least once per pair, disconnects > 0.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/nodes/nodes_lib.sh"
need_nodes
prog=$top_builddir/test/integration/rc/rc_lazy_test
work=$(mktemp -d "$top_builddir/test/integration/nodes/lazy.XXXXXX")
trap 'rm -rf "$work"' EXIT
vars="RCMSG_CONNECT=lazy RCMSG_QP_MAX_ACTIVE=1 RCMSG_EAGER_LIMIT=2048"
mkdir "$work/traffic" "$work/lru"
# shellcheck disable=SC2086
job 300 "$work/traffic.out" $vars RCMSG_STATS_FILE="$work/traffic/stats.%h.%r.json" -- "$prog" traffic
grep -e '^rank' -e FAIL -e ' error: ' "$work/traffic.out" | head -20
[ $st -eq 0 ] || fail "traffic: $launcher exited with $st"
each_rank 4 "$work/traffic.out" "traffic: [0-9]* received, [0-9]* sent, checked$" ||
    fail "traffic: not every rank checked its messages"
pairs_check "$work/traffic" "traffic, lazy, max active 1" lazy
# shellcheck disable=SC2086
job 300 "$work/lru.out" $vars RCMSG_STATS_FILE="$work/lru/stats.%h.%r.json" -- "$prog" lru 10 10
grep -e '^rank' -e FAIL -e ' error: ' "$work/lru.out" | head -20
[ $st -eq 0 ] || fail "lru: $launcher exited with $st"
each_rank 4 "$work/lru.out" "lru: [0-9]* received, [0-9]* sent, checked$" ||
    fail "lru: not every rank checked its messages"
line=$(grep '^rank 0: lru: 400 of 400 messages received, ' "$work/lru.out") ||
    fail "lru: not 400 of 400 messages received"
disc=$(echo "$line" | sed 's/.* and \([0-9]*\) disconnections.*/\1/')
[ "$disc" -gt 10 ] || fail "lru: $disc disconnections with one connection at a time: no churn"
pairs_check "$work/lru" "lru, lazy, max active 1" lazy
pass "$launcher, 4 ranks on 2 nodes, RCMSG_CONNECT=lazy RCMSG_QP_MAX_ACTIVE=1: traffic and churn checked ($disc disconnections)"
