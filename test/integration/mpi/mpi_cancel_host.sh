#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI_Cancel never hangs (issue 38, items 7 and 8) on the host over sm: mpi_cancel_test
# (test/integration/mpi/mpi_cancel_test.c: receives and sends in every state, cancelled or completing
# normally) as a singleton (every send to itself) and under mpirun with 2 ranks; then
# receives freed unmatched are cancelled by MPI_Finalize, and so are freed and buffered sends
# nobody receives, as a singleton and with 2 ranks (mpi_cancel_lib.sh).
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/mpi_lib.sh"
. "$top_srcdir/test/integration/mpi/mpi_cancel_lib.sh"
mpi_host_runs mpi_cancel_test 2
cancel_freed
cancel_freed_sends 1
cancel_freed_sends 2
cancel_fini
pass "MPI_Cancel of receives and sends in every state, of sends to a rank in MPI_Finalize, and freed receives and sends at MPI_Finalize, over sm"
