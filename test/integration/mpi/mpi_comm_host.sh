#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI groups, communicators made from groups (Comm_create, Comm_create_group; disjoint groups
# passed by different ranks: groups of one rank, halves, thirds, pairs with a rank in none),
# Comm_split_type,
# Comm_idup, attribute caching and intercommunicators (p2p, dup, merge, compare, and every
# blocking and nonblocking collective MPI defines over them) on the host over sm: a singleton,
# then 2, 3, 4, 5 and 8 ranks under mpirun, and 3 with RCMSG_COLL_CHECK=yes, data checked by
# the programs.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/mpi_lib.sh"
mpi_host_runs mpi_group_test 2 3 4 5 8
mpi_host_runs mpi_inter_test 2 3 4 5 8
# rcmsg_comm_dup communicates (the context is agreed; RCMSG_COLL_CHECK=yes adds its check): the first nonblocking collective over
# a new communicator must not block (mpi_inter_test.c and mpi_group_test.c hold a rank back
# across an Ibarrier)
mpi_vars=RCMSG_COLL_CHECK=yes mpi_timeout=60
mpi_test 3 mpi_inter_test
mpi_test 3 mpi_group_test
pass "MPI groups, communicators from groups, attributes and intercommunicators, 1 to 8 ranks"
