#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The point-to-point semantics set with 4 ranks over rc (sizes across the eager/rendezvous
# boundary up to 16 MiB, ordering, wildcards, probe, truncation, self, communicators), first
# with eager over RDMA WRITE forced off (RCMSG_EAGER_RDMA=no: the counters show no ring and
# no message written; rc_eager_rdma.sh runs the same forced on).
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
out=$(mktemp) stats=$(mktemp -d); trap 'rm -rf "$out" "$stats"' EXIT
RCMSG_EAGER_RDMA=no RCMSG_STATS_FILE="$stats/stats.%r.json" run_timeout 900 "$MPIRUN" \
    --allow-run-as-root -np 4 --oversubscribe "$top_builddir/test/integration/p2p/p2p_test" > "$out" 2>&1
st=$?
grep -v -e 'error: rcmsg_i[a-z]*: ' -e 'error: rcmsg_finalize refused' "$out"
[ $st -eq 0 ] || fail "mpirun exited with $st"
ranks_passed 4 "$out" || fail "not every rank passed"
grep -q '^rank 0 of 4: 16 of 16 test groups passed$' "$out" || fail "not every test group passed"
[ "$(ls "$stats" | wc -l)" -eq 4 ] && [ "$(stats_sum msgs_sent_eager "$stats")" -gt 0 ] ||
    fail "RCMSG_STATS_FILE: not 4 stats files counting eager messages"
[ "$(stats_sum rdmaw_sent "$stats")" -eq 0 ] && [ "$(stats_sum rdmaw_rings "$stats")" -eq 0 ] ||
    fail "RCMSG_EAGER_RDMA=no: a ring was set up or a message written into one"
echo "ok: with RCMSG_EAGER_RDMA=no: no ring, nothing written by RDMA WRITE (the counters)"
# again with the registration cache on, small enough that entries are evicted
RCMSG_RCACHE=yes RCMSG_RCACHE_SIZE=4m run_timeout 900 "$MPIRUN" --allow-run-as-root -np 4 \
    --oversubscribe "$top_builddir/test/integration/p2p/p2p_test" > "$out" 2>&1
st=$?
[ $st -eq 0 ] || { cat "$out"; fail "with the registration cache: mpirun exited with $st"; }
ranks_passed 4 "$out" ||
    { cat "$out"; fail "with the registration cache: not every rank passed"; }
echo "ok: the same with RCMSG_RCACHE=yes RCMSG_RCACHE_SIZE=4m"
pass "point-to-point semantics with 4 ranks over rc"
