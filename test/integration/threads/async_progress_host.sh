#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# RCMSG_ASYNC_PROGRESS on the host (issue 41; the thread's work is tested over rc in the guest,
# rc_compute.sh; full's overlap in full_overlap_host.sh): a singleton p2p_test passes with
# no, control (the default) and full (its progress thread started and stopped, logged); a bad
# value is refused naming the variable.
. "$top_srcdir/test/integration/lib.sh"
out=$(mktemp); trap 'rm -f "$out"' EXIT
prog=$top_builddir/test/integration/p2p/p2p_test
for v in no control full; do
    RCMSG_ASYNC_PROGRESS=$v run_timeout 300 "$prog" > "$out" 2>&1 || { cat "$out"; fail "$v: p2p_test failed"; }
    grep -q '^rank 0 of 1: 0 failure(s)$' "$out" || { cat "$out"; fail "$v: no clean summary line"; }
    echo "ok: RCMSG_ASYNC_PROGRESS=$v: p2p_test passes"
done
RCMSG_ASYNC_PROGRESS=full RCMSG_LOG_LEVEL=info run_timeout 300 "$prog" > "$out" 2>&1 ||
    { cat "$out"; fail "full: p2p_test failed"; }
grep -q 'info: progress thread (RCMSG_ASYNC_PROGRESS=full): running' "$out" &&
    grep -q 'info: progress thread: stopped after' "$out" ||
    { cat "$out"; fail "full: the progress thread did not log its start and stop"; }
echo "ok: RCMSG_ASYNC_PROGRESS=full: $(grep -m1 'info: progress thread: stopped' "$out")"
RCMSG_ASYNC_PROGRESS=sometimes run_timeout 60 "$prog" > "$out" 2>&1 && { cat "$out"; fail "bad value: p2p_test did not fail"; }
grep -q 'RCMSG_ASYNC_PROGRESS' "$out" || { cat "$out"; fail "bad value: the error does not name RCMSG_ASYNC_PROGRESS"; }
echo "ok: RCMSG_ASYNC_PROGRESS=sometimes: refused naming the variable"
pass "RCMSG_ASYNC_PROGRESS: no, control and full run, a bad value refused by rcmsg_init"
