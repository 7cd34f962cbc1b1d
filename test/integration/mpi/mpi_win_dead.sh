#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One-sided waits on a lost holder (mpi_win_dead_test, 3 ranks over sm, issue 43): rank 2 dies
# holding rank 0's exclusive lock, a shared lock and its accumulate mutex; rank 1's exclusive
# Win_locks and Accumulate on rank 0 then fail with MPI_ERR_PROC_ABORTED within the program's bound (10 s; sm notices
# the exit in ~0.1 s, docs/liveness.md) instead of waiting forever, and no rank is left.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
run_timeout 120 "$MPIRUN" --allow-run-as-root -np 3 --oversubscribe --enable-recovery \
    "$top_builddir/test/integration/mpi/mpi_win_dead_test" > "$out" 2>&1
st=$?
cat "$out"
[ $st -ne 124 ] || fail "a survivor hung"
grep -q '^SKIP' "$out" && skip "$(grep '^SKIP' "$out")"
grep -q '^rank 2: holds rank 0.s accumulate mutex$' "$out" ||
    fail "rank 2 did not die holding the accumulate mutex"
for call in 'Win_lock' 'Win_lock (shared holder)' 'Accumulate'; do
    grep -q "^rank 1: $call failed (class [0-9]*) after [0-9.]* s: " "$out" ||
        fail "rank 1's $call on the lost holder's word did not fail"
done
for r in 0 1; do
    grep -q "^rank $r of 3: 0 failure(s)$" "$out" || fail "rank $r did not finish cleanly"
done
for pid in $(sed -n 's/^rank [0-9]: pid \([0-9]*\)$/\1/p' "$out"); do
    ! kill -0 "$pid" 2>/dev/null || fail "rank process $pid is left"
done
secs=$(sed -n 's/^rank 1: \([A-Za-z_ ()]*\) failed .* after \([0-9.]*\) s: .*/\1 \2 s,/p' "$out" |
    tr '\n' ' ')
pass "waits on a lost holder's locks and mutex failed: $secs"
