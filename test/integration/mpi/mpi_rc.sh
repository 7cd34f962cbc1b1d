#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The project's MPI test programs over rc in the Soft-RoCE guest (every peer over rc:
# RCMSG_TRANSPORTS=rc,self, asserted from each rank's transports line), data checked by the
# programs: point-to-point and requests and nonblocking collectives overlapped with
# point-to-point with 4 ranks, operations and blocking collectives with 3 and 4; groups, communicators and
# attributes with 2; intercommunicators (groups of two and of three) with 4. A launch in the
# guest costs 4-5 s before the program's first phase (mpirun ~2 s, MPI_Init over rc ~2 s;
# 8-14 s on a busy machine), the phases 0.2-1 s (the nonblocking collectives' 2-11 s): every
# program with 2, 3 and 4 ranks took 216 s on a busy machine (load 5 on 2 cores), beyond the
# suite's budget; these six runs ~60 s in an idle guest (eight took 75 s). mpi_types_rc.sh
# runs the datatypes program with 2, 3 and 4 ranks; the host runs every program with 1 to 8
# ranks over sm.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
[ "${SANITIZER_BUILD:-no}" != yes ] ||
    skip "the MPI test programs run under the sanitizers on the host over sm (mpi_*_host.sh); over rc in the emulated guest under ASan they take minutes, beyond the suite's time budget"
. "$top_srcdir/test/integration/mpi_lib.sh"
mpi_over=rc
t_all=$(date +%s)
mpi_test 4 mpi_p2p_test
mpi_test 3 mpi_coll_test
mpi_test 4 mpi_coll_test
mpi_test 4 mpi_nbc_test
mpi_test 2 mpi_group_test
mpi_test 4 mpi_inter_test
echo "all runs: $(($(date +%s) - t_all)) s"
pass "MPI p2p, collectives, nonblocking collectives, groups and intercommunicators over rc"
