#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI groups, communicators made from groups (Comm_create, Comm_create_group), Comm_split_type,
# Comm_idup, attribute caching and intercommunicators (p2p, dup, merge, compare, and every
# blocking and nonblocking collective MPI defines over them) on the host over sm: a singleton,
# then 2, 3, 4, 5 and 8 ranks under mpirun, and 3 with RCMSG_COLL_CHECK=yes, data checked by
# the programs.
. "$top_srcdir/test/integration/lib.sh"
group_test="$top_builddir/test/mpi/mpi_group_test"
inter_test="$top_builddir/test/mpi/mpi_inter_test"
out=$(mktemp); trap 'rm -f "$out"' EXIT

# check_run NP WHAT: every rank printed a clean summary
check_run() {
    [ "$(grep -c "^rank [0-9] of $1: 0 failure(s)\$" "$out")" -eq "$1" ] ||
        { cat "$out"; fail "$2 with $1 rank(s): not every rank passed"; }
}
for prog in "$group_test" "$inter_test"; do
    run_timeout 60 "$prog" > "$out" 2>&1 || { cat "$out"; fail "$prog as a singleton failed"; }
    check_run 1 "$(basename "$prog")"
    echo "ok: $(basename "$prog") as a singleton ($(grep -c '^ok: ' "$out") phases)"
done
need_mpirun
for np in 2 3 4 5 8; do
    for prog in "$group_test" "$inter_test"; do
        run_timeout 120 "$MPIRUN" --allow-run-as-root -np $np --oversubscribe "$prog" \
            > "$out" 2>&1 || { cat "$out"; fail "$(basename "$prog") with $np ranks failed"; }
        check_run $np "$(basename "$prog")"
    done
    echo "ok: $np ranks over sm ($(grep -c '^ok: ' "$out") intercommunicator phases)"
done
# RCMSG_COLL_CHECK=yes makes rcmsg_comm_dup communicate: the first nonblocking collective over
# a new communicator must not block (mpi_inter_test.c and mpi_group_test.c hold a rank back
# across an Ibarrier)
for cc_prog in "$inter_test" "$group_test"; do
    run_timeout 60 "$MPIRUN" --allow-run-as-root -np 3 --oversubscribe -x RCMSG_COLL_CHECK=yes \
        "$cc_prog" > "$out" 2>&1 || { cat "$out"; fail "${cc_prog##*/} with RCMSG_COLL_CHECK=yes failed"; }
    check_run 3 "${cc_prog##*/} with RCMSG_COLL_CHECK=yes"
done
echo "ok: 3 ranks with RCMSG_COLL_CHECK=yes"
pass "MPI groups, communicators from groups, attributes and intercommunicators, 1 to 8 ranks"
