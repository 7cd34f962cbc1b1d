#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# RCMSG_ASYNC_PROGRESS on the host (issue 41; the thread's work is tested over rc in the guest,
# rc_compute.sh): a singleton p2p_test passes with no and control (the default);
# full is refused by rcmsg_init, saying it is not implemented; a bad value is refused naming
# the variable.
. "$top_srcdir/test/integration/lib.sh"
out=$(mktemp); trap 'rm -f "$out"' EXIT
prog=$top_builddir/test/integration/p2p/p2p_test
for v in no control; do
    RCMSG_ASYNC_PROGRESS=$v run_timeout 300 "$prog" > "$out" 2>&1 || { cat "$out"; fail "$v: p2p_test failed"; }
    grep -q '^rank 0 of 1: 0 failure(s)$' "$out" || { cat "$out"; fail "$v: no clean summary line"; }
    echo "ok: RCMSG_ASYNC_PROGRESS=$v: p2p_test passes"
done
RCMSG_ASYNC_PROGRESS=full run_timeout 60 "$prog" > "$out" 2>&1 && { cat "$out"; fail "full: p2p_test did not fail"; }
grep -q 'error: rcmsg_init: RCMSG_ASYNC_PROGRESS=full is not implemented yet' "$out" ||
    { cat "$out"; fail "full: no error saying it is not implemented"; }
echo "ok: RCMSG_ASYNC_PROGRESS=full: rcmsg_init refuses it: $(grep -m1 'RCMSG_ASYNC_PROGRESS=full' "$out")"
RCMSG_ASYNC_PROGRESS=sometimes run_timeout 60 "$prog" > "$out" 2>&1 && { cat "$out"; fail "bad value: p2p_test did not fail"; }
grep -q 'RCMSG_ASYNC_PROGRESS' "$out" || { cat "$out"; fail "bad value: the error does not name RCMSG_ASYNC_PROGRESS"; }
echo "ok: RCMSG_ASYNC_PROGRESS=sometimes: refused naming the variable"
pass "RCMSG_ASYNC_PROGRESS: no and control run, full and a bad value refused by rcmsg_init"
