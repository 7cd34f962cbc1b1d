#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The transport conformance suite on the host (test/integration/btl_conform.c): self in one
# process, sm across a fork, and sm once more with CMA refused (gets copied through the
# segment). Every case prints what it checked; a case that does not apply says SKIP and why.
. "$top_srcdir/test/integration/lib.sh"
prog="$top_builddir/test/integration/btl_conform"
out=$(mktemp); trap 'rm -f "$out"' EXIT
# run WHAT MIN_OK ENV... : runs the suite, which must pass with at least MIN_OK "ok" cases
run() {
    what=$1; min=$2; shift 2
    run_timeout 120 env "$@" > "$out" 2>&1
    st=$?
    cat "$out"
    [ $st -eq 0 ] || fail "$what: exit $st"
    ! grep -q '^FAIL' "$out" || fail "$what: a case failed"
    [ "$(grep -c '^ok: ' "$out")" -ge "$min" ] || fail "$what: fewer than $min cases passed"
}
run self 9 "$prog" self
grep -q '^SKIP: self: peer failure: does not apply to self' "$out" ||
    fail "self: the peer-failure case did not say it does not apply"
run sm 11 "$prog" sm
grep -q '^ok: sm: peer failure: SIGKILLed peer reported 1 time' "$out" || fail "sm: no peer-failure case"
run "sm, RCMSG_SM_CMA=no" 11 RCMSG_SM_CMA=no "$prog" sm
pass "transport conformance: self and sm (with CMA and with staged copies)"
