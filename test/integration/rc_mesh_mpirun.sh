#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpirun -np 4: every rank sends a distinct pattern to every rank over btl_rc and reads every
# peer's buffer with RDMA_READ; the ranks share out rxe0 and rxe1 so traffic crosses the veth.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
RCMSG_LOG_LEVEL=info run_timeout 600 "$MPIRUN" --allow-run-as-root -np 4 --oversubscribe \
    "$top_builddir/test/integration/rc_mesh_test" > "$out" 2>&1
st=$?
grep -v ' info: candidate' "$out"
[ $st -eq 0 ] || fail "mpirun exited with $st"
[ "$(grep -c 'rank [0-3] of 4: 800 messages from 4 ranks checked, 3 RDMA_READs of [0-9]* bytes checked, 0 failure(s)' "$out")" -eq 4 ] ||
    fail "not every rank checked all its messages and reads"
if [ "$(ls /sys/class/infiniband 2>/dev/null | wc -l)" -ge 2 ]; then
    grep -q 'info: using rxe0:1' "$out" && grep -q 'info: using rxe1:1' "$out" ||
        fail "ranks did not spread over rxe0 and rxe1"
fi
grep -q 'info: wireup of 4 rank(s) in' "$out" || fail "no wireup timing line"
[ "$(grep -c 'rank 0: peer address with .* refused' "$out")" -eq 6 ] ||
    fail "malformed peer addresses were not all refused"
pass "4 ranks exchanged patterns over rc"
