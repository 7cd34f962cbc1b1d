#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# threads_host.sh's programs over rc in the Soft-RoCE guest (RCMSG_TRANSPORTS=rc,self: every
# peer over rc): 4 threads per rank, 2 and 4 ranks. btl_rc's ops run under the core lock
# (src/btl/btl.h), its progress thread (RCMSG_ASYNC_PROGRESS=control, the default) behind
# the gate of rc_gate.h.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/threads/threads_lib.sh"
need_rdma
need_mpirun
RCMSG_TRANSPORTS=rc,self
export RCMSG_TRANSPORTS
threads_mpirun_opts="-x RCMSG_TRANSPORTS"
threads_timeout=600
threads_runs "$top_builddir" 2 4
pass "4 threads per rank at once, rcmsg.h and the MPI face, 2 and 4 ranks over rc"
