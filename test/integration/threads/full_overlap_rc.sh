#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# RCMSG_ASYNC_PROGRESS=full over rc in the Soft-RoCE guest (RCMSG_TRANSPORTS=rc,self: the peer
# over rc; full_overlap_lib.sh says what it runs and checks): the progress thread runs the
# RDMA reads of a 64 MiB rendezvous, its FIN, and a 1 MiB iallreduce while rank 1 computes.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/threads/full_overlap_lib.sh"
need_rdma
need_mpirun
RCMSG_TRANSPORTS=rc,self
export RCMSG_TRANSPORTS
overlap_mpirun_opts="-x RCMSG_TRANSPORTS"
overlap_timeout=600
full_overlap_runs
pass "RCMSG_ASYNC_PROGRESS=full: a 64 MiB receive and a 1 MiB iallreduce overlap a compute phase over rc"
