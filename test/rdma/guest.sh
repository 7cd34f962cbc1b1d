#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The source tree is shared with the guest too: a clone under /tmp would otherwise be hidden
# by the guest's own /tmp.
# Boots the Soft-RoCE guest ONCE (two rxe devices on the ends of a veth pair) and runs the
# RDMA test set (RDMA_TESTS in test/Makefile.include) inside it under automake's harness.
# SKIP (77) when the guest cannot be booted here; the reason is printed.
set -u
runner="$top_srcdir/contrib/rxe-vm/rxe-run"
if [ "${VERBS_BUILD:-yes}" = no ]; then
    echo "SKIP: built without verbs (configure --without-verbs): no rc transport to test"
    exit 77
fi
if [ "${SANITIZER_BUILD:-no}" = yes ]; then
    echo "SKIP: sanitizer build: under the guest's emulation an ASan process takes minutes to"
    echo "open a device; the RDMA tests run in the release build, whose guest run includes a"
    echo "valgrind leak check (test/integration/rc/rc_leaks_valgrind.sh)"
    exit 77
fi
if ! why=$("$runner" --check 2>&1); then
    echo "SKIP: the Soft-RoCE guest cannot run here: $why"
    exit 77
fi
# one boot at a time (make -j runs guest.sh and two_nodes.sh as two tests): the lock is held
# on fd 9, which the runner inherits, until this test ends
mkdir -p "$top_builddir/test/rdma" && exec 9> "$top_builddir/test/rdma/vm.lock" || exit 99
flock 9 || exit 99
cd "$top_builddir" || exit 1
# the guest's threads_tsan_rc.sh runs a ThreadSanitizer build with verbs, made here on the host
# (under the guest's emulation it would take many minutes); why not, when it cannot be made
rm -f tsan-rc.why
(
    . "$top_srcdir/test/integration/lib.sh"
    . "$top_srcdir/test/integration/threads/tsan_lib.sh"
    tsan_can_build || { echo "$tsan_why" > tsan-rc.why; exit 0; }
    # shellcheck disable=SC2086
    tsan_build "$top_builddir/tsan-rc" -- $tsan_rc_targets
) > tsan-rc.out 2>&1 || { cat tsan-rc.out; echo "the host's TSan build for the guest failed (above)" > tsan-rc.why; }
# the host make's jobserver does not exist inside the guest
# every rank of these tests shares one guest: RCMSG_TRANSPORTS=rc,self makes them use the HCA
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL RXE_EXPECT_DEVICES=2 RCMSG_TRANSPORTS=rc,self \
    "$runner" --rxe 2 --numa --mem 4G --rw "$top_srcdir" --timeout "${RXE_GUEST_TIMEOUT:-2400}" -- \
    make check-rdma-guest
rc=$?
log="$top_builddir/test/rdma-suite.log"
if [ -f "$log" ]; then
    sed -n '1,/^\.\. contents::/p' "$log" | grep -E '^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):'
    failed=$(find "$top_builddir/test" -name "*.trs" -exec grep -l -E '^:test-result: (FAIL|ERROR)' {} + 2>/dev/null)
    for f in $failed; do
        echo "=== ${f%.trs}.log"; cat "${f%.trs}.log"
    done
    # again, short, last: a log cut in the middle by whoever shows it keeps every failure's cause
    for f in $failed; do
        echo "=== why ${f%.trs}.log failed (its FAIL lines and last lines):"
        grep -E '(^|[^a-z])(FAIL|fail)' "${f%.trs}.log" | tail -n 8
        tail -n 4 "${f%.trs}.log"
    done
    # and shortest, at the very end: each failed test's first and last FAIL line
    for f in $failed; do
        first=$(grep -E '^FAIL' "${f%.trs}.log" | head -n 1)
        last=$(grep -E '^FAIL' "${f%.trs}.log" | tail -n 1)
        echo "failed: ${f%.trs}: ${first:-no FAIL line}"
        [ "$last" = "$first" ] || echo "failed: ${f%.trs}: ... $last"
    done
    if [ "$rc" -eq 0 ] && ! grep -q '^# PASS: *[1-9]' "$log"; then
        echo "SKIP: no RDMA test passed inside the guest (all skipped)"
        exit 77
    fi
fi
exit $rc
