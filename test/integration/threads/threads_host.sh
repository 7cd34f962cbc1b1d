#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# RCMSG_THREAD_MULTIPLE and MPI_THREAD_MULTIPLE over sm (issue 41): threads_test and
# mpi_threads_test, 4 threads per rank, on 2 and 4 ranks (threads_lib.sh says what they check),
# then on 2 ranks with RCMSG_WAIT_MODE=event.
# threads_tsan.sh runs them again under ThreadSanitizer.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/threads/threads_lib.sh"
need_mpirun
threads_runs "$top_builddir" 2 4
# waits that sleep on the completion channels: a thread whose request another thread completed
# is woken at once (took 10 s here before the wakeup, each such wait sleeping its 100 ms)
RCMSG_WAIT_MODE=event
export RCMSG_WAIT_MODE
threads_timeout=60
threads_runs "$top_builddir" 2
echo "ok: the same with RCMSG_WAIT_MODE=event on 2 ranks within ${threads_timeout} s"
pass "4 threads per rank at once, rcmsg.h and the MPI face, 2 and 4 ranks over sm"
