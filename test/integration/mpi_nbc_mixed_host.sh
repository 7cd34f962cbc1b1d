#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI nonblocking collectives completed around blocking calls (test/mpi/mpi_nbc_mixed.c): on
# some ranks a blocking collective or a Buffer_detach runs between the start and the wait of a
# nonblocking collective, while the others wait first. A rank blocked inside rcmsg must keep
# its schedules moving (rcmsg_progress_register); a hang is the failure. 3 to 8 ranks under
# mpirun over sm, busy polling and RCMSG_WAIT_MODE=event (a sleeping wait wakes for them).
. "$top_srcdir/test/integration/lib.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
prog="$top_builddir/test/mpi/mpi_nbc_mixed"
phases=3
check_run() { # WHAT NP STATUS OUT
    [ "$3" -ne 124 ] || { cat "$4"; fail "$1, np $2: hung (timeout)"; }
    [ "$3" -eq 0 ] || { cat "$4"; fail "$1, np $2: exited with $3"; }
    [ "$(grep -c "^rank [0-9] of $2: 0 failure(s)\$" "$4")" -eq "$2" ] ||
        { cat "$4"; fail "$1, np $2: not every rank passed"; }
    [ "$(grep -c '^ok: ' "$4")" -eq $phases ] || { cat "$4"; fail "$1, np $2: not every phase ran"; }
    echo "ok: $1, $2 rank(s)"
}
need_mpirun
for np in 3 4 5 8; do
    run_timeout 60 "$MPIRUN" --allow-run-as-root -np $np --oversubscribe "$prog" \
        > "$dir/out" 2>&1
    check_run "polling" $np $? "$dir/out"
done
for np in 3 5; do
    run_timeout 60 "$MPIRUN" --allow-run-as-root -np $np --oversubscribe \
        -x RCMSG_WAIT_MODE=event "$prog" > "$dir/out" 2>&1
    check_run "event waits" $np $? "$dir/out"
done
pass "nonblocking collectives around blocking calls, 3 to 8 ranks"
