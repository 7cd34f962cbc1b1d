#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One-sided: a peer killed during a lock epoch (mpi_win_test kill, 2 ranks): the survivor's
# Put or Win_unlock fails within the liveness bound (docs/liveness.md) instead of hanging.
# On the host over sm, and in the guest over rc (where=rdma).
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
run_timeout 120 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe --enable-recovery \
    "$top_builddir/test/integration/mpi/mpi_win_test" kill > "$out" 2>&1
st=$?
cat "$out"
[ $st -ne 124 ] || fail "the survivor hung"
grep -q '^rank 0: Put .* failed (class [0-9]*) after [0-9.]* s$' "$out" ||
    fail "rank 0's lock epoch on the killed rank did not fail"
grep -q '^rank 0 of 2: 0 failure(s)$' "$out" || fail "rank 0 did not finish cleanly"
secs=$(sed -n 's/^rank 0: Put .* after \([0-9.]*\) s$/\1/p' "$out")
pass "a peer killed during a lock epoch: the survivor's epoch failed after $secs s"
