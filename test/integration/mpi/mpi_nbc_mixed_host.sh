#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI nonblocking collectives completed around blocking calls (test/integration/mpi/mpi_nbc_mixed.c): on
# some ranks a blocking collective or a Buffer_detach runs between the start and the wait of a
# nonblocking collective, while the others wait first. A rank blocked inside rcmsg must keep
# its schedules moving (rcmsg_progress_register); a hang is the failure. A singleton, then 3 to
# 8 ranks under mpirun over sm, busy polling and RCMSG_WAIT_MODE=event (a sleeping wait wakes
# for them).
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/mpi_lib.sh"
mpi_host_runs mpi_nbc_mixed 3 4 5 8
mpi_vars=RCMSG_WAIT_MODE=event
for np in 3 5; do
    mpi_test $np mpi_nbc_mixed
done
pass "nonblocking collectives around blocking calls, 1 and 3 to 8 ranks, polling and event waits"
