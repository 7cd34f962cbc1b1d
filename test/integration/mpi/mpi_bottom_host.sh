#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI_BOTTOM with datatypes of absolute addresses in every call that takes a buffer, the block
# a rank sends to itself included (test/integration/mpi/mpi_bottom_test.c; issue 38 item 6): a singleton,
# then 2, 3 and 4 ranks under mpirun over sm.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/mpi_lib.sh"
mpi_host_runs mpi_bottom_test 2 3 4
pass "MPI_BOTTOM and absolute addresses in point-to-point, Pack and collectives, 1 to 4 ranks"
