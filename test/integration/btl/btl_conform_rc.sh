#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The transport conformance suite (test/integration/btl/btl_conform.c) over rc inside the
# Soft-RoCE guest: two processes (a fork) on the two rxe devices. RCMSG_IB_TIMEOUT=16 and
# RCMSG_RECOVERY_TIMEOUT=2s keep the peer-failure case short: a dead peer is noticed within
# (6 + 1) x 4.096 us x 2^16 = 1.9 s of retries plus the 2 s the connection's recovery waits
# for an answer (the case allows 3 s more for the emulation).
. "$top_srcdir/test/integration/lib.sh"
need_rdma
out=$(mktemp); trap 'rm -f "$out"' EXIT
run_timeout 120 env RCMSG_IB_TIMEOUT=16 RCMSG_IB_RETRY_COUNT=6 RCMSG_RECOVERY_TIMEOUT=2s \
    "$top_builddir/test/integration/btl/btl_conform" rc > "$out" 2>&1
st=$?
cat "$out"
[ $st -ne 77 ] || skip "rc cannot be opened here (see above)"
[ $st -eq 0 ] || fail "exit $st"
! grep -q '^FAIL' "$out" || fail "a case failed"
# every case: ordering, 2 sizes, 6 gets, flush, stop, 2 peer failure
grep -q '^rc: done, 13 of 13 checks passed, 0 failure(s)$' "$out" || fail "not every check of the 13 passed"
grep -q '^ok: rc: peer failure: SIGKILLed peer reported 1 time' "$out" || fail "no peer-failure case"
pass "transport conformance over rc"
