#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Receives and sends of count 0 with any datatype, MPI_DATATYPE_NULL included, complete with an
# empty status (test/integration/mpi/mpi_empty_test.c; issue 38 item 13): a singleton, then 2 and 4 ranks
# under mpirun over sm.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/mpi_lib.sh"
mpi_host_runs mpi_empty_test 2 4
pass "receives and sends of count 0, MPI_DATATYPE_NULL included, 1 to 4 ranks"
