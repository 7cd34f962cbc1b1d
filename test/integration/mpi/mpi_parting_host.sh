#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A normal end says nothing: ranks that finish MPI_Finalize first and exit (their sm segment
# marked closed) are not reported lost by the peers still in it (neither by the watch thread's
# "peer N ... exited" nor by sm's liveness check "is gone"). 12 runs of 4 ranks (mpi_empty_test:
# short, so the ranks reach Finalize together) under mpirun over sm; the output of each must
# be the program's lines only.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/mpi_lib.sh"
need_mpirun
mpi_timeout=60
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
    mpi_run 4 mpi_empty_test
    mpi_check 4 mpi_empty_test $?
    if grep -E 'exited: requests involving it|is gone: ' "$mpi_out"; then
        mpi_fail "run $i: a peer that left the closing barrier was reported lost"
    fi
done
pass "12 runs of 4 ranks: no peer reported lost at a normal end"
