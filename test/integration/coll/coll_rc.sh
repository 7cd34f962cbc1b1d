#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The collectives over rc in the Soft-RoCE guest with 2, 3 and 4 ranks: every collective,
# every algorithm (forced, then auto), a short (7 elements) and a long (256 KiB) size, four
# (datatype, op) pairs, in-place variants, a split and a dup, bitwise floating point; then
# coll_v_test (issue 39: v-variants, scans, user ops, nonblocking collectives with p2p).
# 256 KiB is past every RCMSG_COLL_*_LONG default, so auto picks the long algorithms (but for
# bcast and reduce, which stay binomial when the guest has fewer CPUs than ranks).
# Eager over RDMA WRITE is forced off (RCMSG_EAGER_RDMA=no; the counters show no message
# written): rc_eager_rdma.sh runs the suite forced on.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
out=$(mktemp) stats=$(mktemp -d); trap 'rm -rf "$out" "$stats"' EXIT
for np in 2 3 4; do
    rm -f "$stats"/*
    RCMSG_LOG_LEVEL=info RCMSG_EAGER_RDMA=no RCMSG_STATS_FILE="$stats/stats.%r.json" \
        run_timeout 900 "$MPIRUN" --allow-run-as-root -np $np --oversubscribe \
        "$top_builddir/test/integration/coll/coll_test" --ops some --sizes 7,256k > "$out" 2>&1
    st=$?
    [ $st -eq 0 ] && ranks_passed $np "$out" ||
        { grep -v ' error: rcmsg_' "$out" | head -80; fail "$np ranks: status $st"; }
    each_rank_logged $np "$out" "info: transports: self for this rank, sm for 0 peer(s), rc for $((np - 1)) peer(s)" once ||
        { grep transports "$out"; fail "$np ranks: not every peer over rc: $bad"; }
    [ "$(ls "$stats" | wc -l)" -eq $np ] && [ "$(stats_sum msgs_sent_eager "$stats")" -gt 0 ] ||
        fail "$np ranks: RCMSG_STATS_FILE: not $np stats files counting eager messages"
    [ "$(stats_sum rdmaw_sent "$stats")" -eq 0 ] ||
        fail "$np ranks: RCMSG_EAGER_RDMA=no, and yet messages were written into rings"
    echo "ok: $np ranks over rc: $(grep "^rank 0 of" "$out")"
    # issue 39's calls: v-variants, scans, user ops, nonblocking collectives with p2p
    run_timeout 600 "$MPIRUN" --allow-run-as-root -np $np --oversubscribe \
        "$top_builddir/test/integration/coll/coll_v_test" > "$out" 2>&1
    st=$?
    [ $st -eq 0 ] && ranks_passed $np "$out" ||
        { grep -v ' error: rcmsg_' "$out" | head -80; fail "coll_v_test, $np ranks: status $st"; }
    echo "ok: $np ranks over rc: v-variants, scans, user ops, nonblocking"
done
pass "collectives over rc with 2, 3 and 4 ranks, eager over RDMA WRITE off"
