#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# RCMSG_ASYNC_PROGRESS=full over sm (full_overlap_lib.sh says what it runs and checks): the
# progress thread reads a 64 MiB rendezvous and advances a 1 MiB iallreduce while rank 1
# computes; with control neither moves until rank 1's wait.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/threads/full_overlap_lib.sh"
need_mpirun
full_overlap_runs
pass "RCMSG_ASYNC_PROGRESS=full: a 64 MiB receive and a 1 MiB iallreduce overlap a compute phase over sm"
