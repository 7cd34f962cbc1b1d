#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Operations and blocking collectives through the MPI face (test/integration/mpi/mpi_coll_test.c), data
# checked: a singleton without mpirun, then 2 to 8 ranks (non-powers of two included) under
# mpirun over sm.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/mpi_lib.sh"
mpi_host_runs mpi_coll_test 2 3 4 5 7 8
pass "operations and blocking collectives, 1 to 8 ranks"
