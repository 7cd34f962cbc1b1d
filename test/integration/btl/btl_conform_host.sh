#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The transport conformance suite on the host (test/integration/btl/btl_conform.c): self in one
# process, sm across a fork, and sm once more with CMA refused (gets copied through the
# segment). Every case prints what it checked; a case that does not apply says SKIP and why.
. "$top_srcdir/test/integration/lib.sh"
prog="$top_builddir/test/integration/btl/btl_conform"
out=$(mktemp); trap 'rm -f "$out"' EXIT
# run WHAT N ENV... : runs the suite, whose verdict must be N of N checks passed (self: ordering,
# 2 sizes, 6 gets, flush, stop; sm: the same and 2 peer-failure checks)
run() {
    what=$1; n=$2; shift 2
    run_timeout 120 env "$@" > "$out" 2>&1
    st=$?
    cat "$out"
    [ $st -eq 0 ] || fail "$what: exit $st"
    ! grep -q '^FAIL' "$out" || fail "$what: a case failed"
    grep -q ": done, $n of $n checks passed, 0 failure(s)\$" "$out" || fail "$what: not every check of the $n passed"
}
run self 11 "$prog" self
grep -q '^SKIP: self: peer failure: does not apply to self' "$out" ||
    fail "self: the peer-failure case did not say it does not apply"
run sm 13 "$prog" sm
grep -q '^ok: sm: peer failure: SIGKILLed peer reported 1 time' "$out" || fail "sm: no peer-failure case"
grep -q '^ok: sm: stop: 8 messages.* 8 progress calls, at most 1 ' "$out" ||
    fail "sm: did not stop after a message when the receive callback asked"
run "sm, RCMSG_SM_CMA=no" 13 RCMSG_SM_CMA=no "$prog" sm
pass "transport conformance: self and sm (with CMA and with staged copies)"
