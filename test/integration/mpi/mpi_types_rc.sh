#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Noncontiguous datatypes in MPI point-to-point (test/integration/mpi/mpi_types_p2p.c) over rc in the
# Soft-RoCE guest with 2, 3 and 4 ranks, data checked.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
[ "${SANITIZER_BUILD:-no}" != yes ] ||
    skip "the MPI datatype programs run under the sanitizers on the host over sm (mpi_*_host.sh); over rc in the emulated guest under ASan they take minutes, beyond the suite's time budget"
. "$top_srcdir/test/integration/mpi_lib.sh"
mpi_over=rc mpi_timeout=300
for np in 2 3 4; do
    mpi_test $np mpi_types_p2p
done
pass "noncontiguous datatypes in point-to-point over rc with 2, 3 and 4 ranks"
