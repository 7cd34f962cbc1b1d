#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI groups, communicators made from groups (Comm_create, Comm_create_group), Comm_split_type,
# Comm_idup, attribute caching and intercommunicators (p2p, dup, merge, and every blocking
# collective MPI defines over them) on the host over sm: a singleton, then 2, 3, 4, 5 and 8 ranks under
# mpirun, data checked by the programs.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/mpi_lib.sh"
mpi_host_runs mpi_group_test 2 3 4 5 8
mpi_host_runs mpi_inter_test 2 3 4 5 8
pass "MPI groups, communicators from groups, attributes and intercommunicators, 1 to 8 ranks"
