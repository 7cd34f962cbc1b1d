#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# early_exit_host.sh over rc (RCMSG_TRANSPORTS=rc,self) in the Soft-RoCE guest: a rank that
# exits before rcmsg_init, reported before the others' fence, ends their rcmsg_init at once.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
RCMSG_TRANSPORTS=rc,self
export RCMSG_TRANSPORTS
. "$top_srcdir/test/integration/launcher/early_exit_host.sh"
