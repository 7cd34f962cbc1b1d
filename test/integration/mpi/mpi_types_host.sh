#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Noncontiguous datatypes in MPI point-to-point (test/integration/mpi/mpi_types_p2p.c), data checked: a
# singleton without mpirun, then 2, 3 and 4 ranks under mpirun over sm.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/mpi_lib.sh"
mpi_host_runs mpi_types_p2p 2 3 4
pass "noncontiguous datatypes in point-to-point, 1 to 4 ranks"
