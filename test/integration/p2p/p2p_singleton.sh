#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The point-to-point semantics set as a 1-rank job (every message goes to self through the
# same protocols: eager, rendezvous, matching), at native speed on the host.
. "$top_srcdir/test/integration/lib.sh"
out=$(mktemp); trap 'rm -f "$out"' EXIT
run_timeout 300 "$top_builddir/test/integration/p2p/p2p_test" > "$out" 2>&1
st=$?
cat "$out"
[ $st -eq 0 ] || fail "p2p_test exited with $st"
grep -q '^rank 0 of 1: 0 failure(s)$' "$out" || fail "no clean summary line"
grep -q '^rank 0 of 1: 16 of 16 test groups passed$' "$out" || fail "not every test group passed"
pass "point-to-point semantics on a singleton"
