#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI_Comm_idup with a member killed once its agreement began (mpi_idup_test kill, 3 ranks):
# the survivors' requests fail within the liveness bound (docs/liveness.md) instead of hanging;
# then the same for an idup of an intercommunicator ({0} and {1, 2}: mpi_idup_test kill-inter).
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
said=""
for mode in kill kill-inter; do
    run_timeout 120 "$MPIRUN" --allow-run-as-root -np 3 --oversubscribe --enable-recovery \
        "$top_builddir/test/integration/mpi/mpi_idup_test" $mode > "$out" 2>&1
    st=$?
    echo "== mpi_idup_test $mode"
    cat "$out"
    [ $st -ne 124 ] || fail "$mode: a survivor hung"
    for r in 0 1; do
        grep -q "^rank $r: idup failed (class [0-9]*) after [0-9.]* s$" "$out" ||
            fail "$mode: rank $r's idup with a killed member did not fail"
        grep -q "^rank $r of 3: 0 failure(s)$" "$out" || fail "$mode: rank $r did not finish cleanly"
    done
    secs=$(sed -n 's/^rank 0: idup failed .* after \([0-9.]*\) s$/\1/p' "$out")
    said="$said${said:+, }$mode after $secs s"
done
pass "a member killed during an idup: the survivors' idups failed ($said)"
