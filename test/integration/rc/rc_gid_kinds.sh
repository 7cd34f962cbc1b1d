#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Two ranks whose RoCE GIDs are of different kinds (rank 0 link-local fe80::, RCMSG_GID_INDEX=0
# on rxe0; rank 1 IPv4-mapped ::ffff:10.55.0.2, RCMSG_GID_INDEX=1 on rxe1) are told so at
# connect, naming both GIDs, RCMSG_GID_INDEX and the fix, and the job ends (no hang, no
# retries running out).
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
gids=/sys/class/infiniband
case "$(cat $gids/rxe0/ports/1/gids/0 $gids/rxe1/ports/1/gids/1 2>/dev/null | tr '\n' ' ')" in
fe80:*" 0000:0000:0000:0000:0000:ffff:"*) ;;
*) skip "needs rxe0 with a link-local GID at index 0 and rxe1 with an IPv4-mapped one at 1" ;;
esac
out=$(mktemp); trap 'rm -f "$out"' EXIT
pingpong="$top_builddir/src/tools/rcmsg_pingpong"
run_timeout 120 "$MPIRUN" --allow-run-as-root --oversubscribe \
    -np 1 env RCMSG_NET_DEVICES=rxe0:1 RCMSG_GID_INDEX=0 "$pingpong" --iters 1 --max 0 : \
    -np 1 env RCMSG_NET_DEVICES=rxe1:1 RCMSG_GID_INDEX=1 "$pingpong" --iters 1 --max 0 \
    > "$out" 2>&1
st=$?
cat "$out"
[ $st -ne 124 ] || fail "the job hung"
[ $st -ne 0 ] || fail "the job should have failed"
for r in 0 1; do
    grep -q "\[rcmsg [^ ]*:$r [0-9]*\] error: cannot connect to peer $((1 - r)) on rxe$r:1: GIDs of different kinds" "$out" ||
        fail "rank $r did not report the GID kinds"
done
grep -q "fe80::ff:fe00:1 (link-local IPv6, RoCE v2) here and ::ffff:10.55.0.2 (IPv4-mapped, RoCE v2) there: RoCE v2 cannot connect an IPv4 to an IPv6 address (gid index 0 here, set by RCMSG_GID_INDEX); give every rank a GID of the same kind: unset RCMSG_GID_INDEX" "$out" ||
    fail "rank 0's error does not name both GIDs, their kinds, the index and the fix"
pass "GIDs of different kinds are refused at connect with both named"
