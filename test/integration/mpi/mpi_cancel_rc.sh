#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpi_cancel_host.sh's runs over rc in the Soft-RoCE guest (RCMSG_TRANSPORTS=rc,self) under
# mpirun with 2 ranks: sends cancelled in every state (eager in the receiver's unexpected
# queue, rendezvous whose registration is released, queued for credits, to itself) and
# receives; freed receives cancelled by MPI_Finalize.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
. "$top_srcdir/test/integration/mpi_lib.sh"
. "$top_srcdir/test/integration/mpi/mpi_cancel_lib.sh"
mpi_over=rc
mpi_test 2 mpi_cancel_test
cancel_freed
cancel_fini
pass "MPI_Cancel and freed receives at MPI_Finalize over rc"
