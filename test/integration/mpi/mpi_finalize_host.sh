#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI_Finalize with requests pending (issue 38 item 11; test/integration/mpi/mpi_finalize_test.c), as a
# singleton and under mpirun with 2 and 3 ranks, over sm:
# - with MPI_ERRORS_RETURN it returns MPI_ERR_PENDING naming them and releases nothing: the
#   program goes on (collective, point-to-point), cancels and completes them, and its second
#   MPI_Finalize succeeds;
# - with MPI_ERRORS_ARE_FATAL (what bindings such as Python's run into at exit) each rank
#   warns once naming its pending requests, the receives are cancelled, a rendezvous send
#   that its receiver takes 2 s later completes, one nobody receives is cancelled after the
#   wait for sends (10 s), and the job exits 0 within 25 s.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/mpi_lib.sh"
out=$mpi_out

# finalize_run NP MODE: runs it (singleton for NP 0) and checks the status and the summaries
finalize_run() {
    np=$1 what="MPI_Finalize $2 with $1 rank(s)"
    if [ "$1" -eq 0 ]; then
        np=1 mpi_launcher=singleton what="MPI_Finalize $2 as a singleton"
    else
        mpi_launcher=mpirun
    fi
    t0=$(date +%s)
    mpi_run $np mpi_finalize_test "$2"
    st=$?
    t=$(($(date +%s) - t0))
    [ $st -eq 0 ] || mpi_fail "$what: status $st"
    ranks_passed $np "$out" ||
        mpi_fail "$what: not every rank passed"
    grep -q '^ok: ' "$out" || mpi_fail "$what: rank 0 did not finish"
}

finalize_run 0 return
! grep -q 'warning' "$out" || mpi_fail "MPI_Finalize return: a warning"
echo "ok: MPI_ERR_PENDING as a singleton, then a clean finalize"
finalize_run 0 fatal
grep -q 'rank 0: warning: MPI_Finalize with 5 request(s) not completed: a receive from rank 0, tag 77 on MPI_COMM_WORLD; a send to rank 0, tag 78 on MPI_COMM_WORLD; a persistent receive from rank 0, tag 80 on MPI_COMM_WORLD; a send to rank 0, tag 79 on MPI_COMM_WORLD and 1 more' "$out" ||
    mpi_fail "the warning does not name the pending requests"
echo "ok: pending requests cleared at MPI_Finalize as a singleton"
need_mpirun
for n in 2 3; do
    finalize_run $n return
    echo "ok: MPI_ERR_PENDING with $n ranks, then a clean finalize ($t s)"
    finalize_run $n fatal
    for r in $(seq 0 $((n - 1))); do
        one_line "$out" "rank $r: warning: MPI_Finalize with [0-9] request(s) not completed" ||
            mpi_fail "rank $r: not one warning"
    done
    ! grep 'warning: MPI_Finalize with [0-9] request(s) not completed' "$out" |
        grep -qv "rank [0-$((n - 1))]: warning: " || mpi_fail "a warning of no rank of 0 to $((n - 1))"
    grep -q "rank $((n - 1)): warning: MPI_Finalize with 5 request(s) .*a send to rank 0, tag 79" \
        "$out" || mpi_fail "the late rendezvous send is not named"
    grep -q "rank 0: warning: MPI_Finalize with 4 request(s) .*a send to rank 1, tag 81" \
        "$out" || mpi_fail "the unreceived rendezvous send is not named"
    [ $t -le 25 ] || mpi_fail "the job with pending requests took $t s"
    echo "ok: pending requests cleared at MPI_Finalize with $n ranks, exit 0 in $t s"
done
pass "MPI_Finalize with requests pending: MPI_ERR_PENDING under ERRORS_RETURN, one warning and a clean exit under ERRORS_ARE_FATAL"
