#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Both rxe devices opened through btl_rc's device code: ports ACTIVE, a RoCE v2 GID chosen.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
exec "$top_builddir/test/integration/rc/rc_device_test"
