#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpirun -np 4: every rank sends a distinct pattern to every rank over btl_rc and reads every
# peer's buffer with RDMA_READ; the ranks share out rxe0 and rxe1 so traffic crosses the veth.
# The address a rank fetches from each peer is the same size for 2 and 4 ranks (O(1) per peer:
# the QPs are connected through the CM, no per-peer entries are published).
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
out=$(mktemp); out2=$(mktemp); trap 'rm -f "$out" "$out2"' EXIT
RCMSG_LOG_LEVEL=debug run_timeout 600 "$MPIRUN" --allow-run-as-root -np 4 --oversubscribe \
    "$top_builddir/test/integration/rc/rc_mesh_test" > "$out" 2>&1
st=$?
grep -v ' info: candidate\| debug: ' "$out"
[ $st -eq 0 ] || fail "mpirun exited with $st"
ranks_passed 4 "$out" ||
    fail "not every rank checked all its messages and reads"
if [ "$(ls /sys/class/infiniband 2>/dev/null | wc -l)" -ge 2 ]; then
    grep -q 'info: using rxe0:1' "$out" && grep -q 'info: using rxe1:1' "$out" ||
        fail "ranks did not spread over rxe0 and rxe1"
fi
grep -q 'info: wireup of 4 rank(s) in' "$out" || fail "no wireup timing line"
grep -q '^rank 0: 6 of 6 malformed peer addresses refused$' "$out" ||
    fail "malformed peer addresses were not all refused"
RCMSG_LOG_LEVEL=debug run_timeout 300 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe \
    "$top_builddir/test/integration/rc/rc_mesh_test" > "$out2" 2>&1
st=$?
[ $st -eq 0 ] || { grep -v ' debug: ' "$out2"; fail "mpirun -np 2 exited with $st"; }
grep -q 'rank [01] of 2: 400 messages from 2 ranks checked' "$out2" || fail "2 ranks: not checked"
sizes4=$(sed -n 's/.*debug: address of peer [0-9]*: \([0-9]*\) bytes.*/\1/p' "$out" | sort -u)
sizes2=$(sed -n 's/.*debug: address of peer [0-9]*: \([0-9]*\) bytes.*/\1/p' "$out2" | sort -u)
echo "address fetched per peer: $sizes2 bytes with 2 ranks, $sizes4 bytes with 4 ranks"
# each rank fetched each other rank's address once (12 fetches), not its own
each_pair_logged 4 "$out" "debug: address of peer " ": " || fail "4 ranks: $bad"
# one size, the same for 2 and 4 ranks
case "$sizes4" in '' | *[!0-9]*) sizes4="$sizes4 (not one size)" ;; esac
[ -n "$sizes2" ] && [ "$sizes2" = "$sizes4" ] ||
    fail "the address fetched per peer is not the same size for 2 and 4 ranks: '$sizes2' / '$sizes4'"
grep -q 'CM: connected to peer' "$out" || fail "no CM connection logged at debug"
pass "4 ranks exchanged patterns over rc"
