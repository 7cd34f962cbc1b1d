#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI nonblocking collectives (test/integration/mpi/mpi_nbc_test.c), data checked: a singleton without
# mpirun, then 2, 3, 4, 5 and 8 ranks under mpirun over sm. Each collective with every root,
# noncontiguous types, MPI_IN_PLACE, a non-commutative user operation, several outstanding on
# two communicators overlapped with point-to-point rings, and a chain of blocking receives
# that only completes if they keep the schedules moving (a hang there is the failure).
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/mpi_lib.sh"
mpi_host_runs mpi_nbc_test 2 3 4 5 8
pass "nonblocking collectives, 1 to 8 ranks"
