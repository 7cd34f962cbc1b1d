#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# RCMSG_THREAD_MULTIPLE and MPI_THREAD_MULTIPLE over sm (issue 41): threads_test and
# mpi_threads_test, 4 threads per rank, on 2 and 4 ranks (threads_lib.sh says what they check).
# threads_tsan.sh runs them again under ThreadSanitizer.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/threads_lib.sh"
need_mpirun
threads_runs "$top_builddir" 2 4
pass "4 threads per rank at once, rcmsg.h and the MPI face, 2 and 4 ranks over sm"
