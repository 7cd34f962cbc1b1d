#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Operations and blocking collectives through the MPI face (test/mpi/mpi_coll_test.c), data
# checked: a singleton without mpirun, then 2 to 8 ranks (non-powers of two included) under
# mpirun over sm.
. "$top_srcdir/test/integration/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
prog="$top_builddir/test/mpi/mpi_coll_test"
phases=5
check_run() { # NP STATUS OUT
    [ "$2" -eq 0 ] || { cat "$3"; fail "np $1: exited with $2"; }
    [ "$(grep -c "^rank [0-9] of $1: 0 failure(s)\$" "$3")" -eq "$1" ] ||
        { cat "$3"; fail "np $1: not every rank passed"; }
    [ "$(grep -c '^ok: ' "$3")" -eq $phases ] || { cat "$3"; fail "np $1: not every phase ran"; }
    echo "ok: $1 rank(s)"
}
run_timeout 60 "$prog" > "$dir/out" 2>&1
check_run 1 $? "$dir/out"
need_mpirun
for np in 2 3 4 5 7 8; do
    run_timeout 120 "$MPIRUN" --allow-run-as-root -np $np --oversubscribe "$prog" \
        > "$dir/out" 2>&1
    check_run $np $? "$dir/out"
done
pass "operations and blocking collectives, 1 to 8 ranks"
