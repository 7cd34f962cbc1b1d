#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A message of 2 GiB + 7 bytes between two ranks over shared memory arrives whole (one
# process_vm_readv moves at most 2 GiB - 4 KiB), checked byte by byte with both statuses OK;
# once with single-copy reads (CMA) and once copied through the segment (RCMSG_SM_CMA=no,
# with a 64 MiB staging area: the default 256 KiB takes 8192 round trips, ~25 s here).
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
[ "${SANITIZER_BUILD:-no}" != yes ] ||
    skip "2 GiB buffers under ASan are too slow and too large for the sanitizer run"
avail_kb=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB$/\1/p' /proc/meminfo)
[ "${avail_kb:-0}" -ge 6291456 ] || skip "needs 6 GiB of free memory, $((${avail_kb:-0} / 1024)) MiB available"
prog="$top_builddir/test/integration/sm/sm_big_test"
out=$(mktemp); trap 'rm -f "$out"' EXIT
len=$(((2 << 30) + 7))
# event mode: the receiver sleeps while the sender fills its 2 GiB (2 cores, no spinning)
for cma in auto no; do
    RCMSG_SM_CMA=$cma RCMSG_SM_STAGING=64m RCMSG_WAIT_MODE=event run_timeout 300 "$MPIRUN" \
        --allow-run-as-root -np 2 --oversubscribe "$prog" $len > "$out" 2>&1
    st=$?
    cat "$out"
    [ $st -eq 0 ] || fail "RCMSG_SM_CMA=$cma: mpirun exited with $st"
    grep -q "^ok: rank 0 sent $len bytes" "$out" || fail "RCMSG_SM_CMA=$cma: the sender's status"
    grep -q "^ok: rank 1 received $len bytes whole" "$out" ||
        fail "RCMSG_SM_CMA=$cma: the message did not arrive whole"
    ranks_passed 2 "$out" ||
        fail "RCMSG_SM_CMA=$cma: not every rank passed"
    echo "ok: $len bytes over sm with RCMSG_SM_CMA=$cma"
done
pass "2 GiB + 7 bytes over sm, single-copy and staged"
