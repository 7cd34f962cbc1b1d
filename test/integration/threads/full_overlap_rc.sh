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
# the idle bound in the emulated guest: 5% of a CPU (each wakeup costs 20-50x the host's;
# 2% measured), which still fails a thread that busy-polls
overlap_idle_pct=5
full_overlap_runs
pass "RCMSG_ASYNC_PROGRESS=full: a 64 MiB receive and a 1 MiB iallreduce overlap a compute phase over rc"
