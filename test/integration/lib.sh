# SPDX-License-Identifier: BSD-3-Clause
# Helpers for the integration test scripts (sourced). Exit codes: 0 pass, 1 fail, 77 skip.
set -u
pass() { echo "PASS: $*"; exit 0; }
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
need_rdma() {
    [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ] ||
        skip "no RDMA device here (these tests run inside the Soft-RoCE guest: make check-rdma)"
}
need_mpirun() {
    [ -n "${MPIRUN:-}" ] && [ -x "$MPIRUN" ] || skip "mpirun not found (apt-get install openmpi-bin)"
}
# run_timeout SECONDS COMMAND...: a hang becomes a failure with status 124
run_timeout() { t=$1; shift; timeout -k 10 "$t" "$@"; }
