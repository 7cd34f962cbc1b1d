#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# 4 ranks, 2 per node, under $NODES_LAUNCHER: coll_test (every collective, the automatic
# algorithm choice, 7 elements and 256 KiB, four (datatype, op) pairs, in place, split, dup;
# every algorithm forced one by one took 190-250 s here, too long for make check)
# and coll_v_test (v-variants, scans, user ops, nonblocking collectives with p2p), results
# checked by the programs; the counters of the first: sm within a node, rc across.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/nodes/nodes_lib.sh"
need_nodes
work=$(mktemp -d "$top_builddir/test/integration/nodes/coll.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/coll"
job 600 "$work/coll.out" RCMSG_STATS_FILE="$work/coll/stats.%h.%r.json" -- \
    "$top_builddir/test/integration/coll/coll_test" --algs auto --ops some --sizes 7,256k
grep -e '^rank 0 of' -e FAIL "$work/coll.out" | head -40
[ $st -eq 0 ] && ranks_passed 4 "$work/coll.out" || tail -n 40 "$work/coll.out"
[ $st -eq 0 ] && ranks_passed 4 "$work/coll.out" || fail "coll_test: $launcher exited with $st, or a rank failed"
pairs_check "$work/coll" "coll_test"
t0=$(date +%s)
job 600 "$work/v.out" -- "$top_builddir/test/integration/coll/coll_v_test"
echo "coll_v_test: $(($(date +%s) - t0)) s"
grep -e '^rank 0' -e FAIL "$work/v.out" | head -20
[ $st -eq 0 ] && ranks_passed 4 "$work/v.out" || tail -n 40 "$work/v.out"
[ $st -eq 0 ] && ranks_passed 4 "$work/v.out" || fail "coll_v_test: $launcher exited with $st, or a rank failed"
pass "$launcher${NODES_VARS:+ ($NODES_VARS)}, 4 ranks on 2 nodes: every collective (coll_test, coll_v_test) checked"
