#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# 4 ranks, 2 per node, under $NODES_LAUNCHER (mpirun --host node1:2,node2:2 or srun -N 2 -n 4):
# 1. p2p_test, the point-to-point semantics set (sizes across the eager/rendezvous boundary up
#    to 16 MiB, ordering, wildcards, probe, truncation, communicators): every group passes;
# 2. rc_recovery_test stream: every pair streams both ways at once, eager (8 B .. 8 KiB) and
#    rendezvous (16 .. 512 KiB) mixed, every byte, length and the per-pair order checked;
# each with RCMSG_STATS_FILE: per pair, sm between the ranks of a node (no QP), rc across.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/nodes/nodes_lib.sh"
need_nodes
work=$(mktemp -d "$top_builddir/test/integration/nodes/p2p.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/p2p" "$work/stream"
job 300 "$work/p2p.out" RCMSG_STATS_FILE="$work/p2p/stats.%h.%r.json" -- \
    "$top_builddir/test/integration/p2p/p2p_test"
grep -e '^rank' -e FAIL "$work/p2p.out" | head -40
[ $st -eq 0 ] || { tail -n 40 "$work/p2p.out"; fail "p2p_test: $launcher exited with $st"; }
ranks_passed 4 "$work/p2p.out" || fail "p2p_test: not every rank passed"
grep -q '^rank 0 of 4: 16 of 16 test groups passed$' "$work/p2p.out" || fail "p2p_test: not every test group passed"
pairs_check "$work/p2p" "p2p_test"
job 300 "$work/stream.out" RCMSG_STATS_FILE="$work/stream/stats.%h.%r.json" -- \
    "$top_builddir/test/integration/rc/rc_recovery_test" stream --min-msgs 300 --deadline 200
out=$work/stream.out
grep -e '^rank [0-9]*: stream:' -e FAIL "$out"
[ $st -eq 0 ] || { tail -n 40 "$out"; fail "stream: $launcher exited with $st"; }
for r in 0 1 2 3; do
    for p in 0 1 2 3; do
        [ $r = $p ] || grep -q "^rank $r: stream: peer $p: received [1-9][0-9]* ([0-9]* bytes), lost 0, duplicated 0, out of order 0, corrupt 0, errors 0;" "$out" ||
            fail "stream: rank $r did not receive everything of peer $p once, in order and intact"
    done
done
pairs_check "$work/stream" "stream"
pass "$launcher, 4 ranks on 2 nodes: p2p semantics set and the all-pairs checked stream; sm within a node, rc across"
