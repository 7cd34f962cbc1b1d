#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A rank whose transport address cannot be packed publishes the failure (a blob carrying
# only its status, as for a failure to open): the other rank's rcmsg_init fails at once
# naming it, instead of waiting in the fence for RCMSG_LAUNCHER_TIMEOUT (300 s by default).
# Two ranks over sm under mpirun; test/integration/p2p/pack_fail_test.c makes rank 1's pack fail.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
t0=$(date +%s)
RCMSG_TRANSPORTS=sm RCMSG_LAUNCHER_TIMEOUT=60s PACK_FAIL_RANK=1 PACK_FAIL_DONE="$dir/done" \
    run_timeout 120 "$MPIRUN" --allow-run-as-root -np 2 "$top_builddir/test/integration/p2p/pack_fail_test" > "$dir/out" 2>&1
st=$?
t=$(($(date +%s) - t0))
cat "$dir/out"
[ $st -ne 124 ] || fail "the job hung"
grep -q "^\[rcmsg [^ ]*:1 [0-9]*\] error: cannot pack the address of the sm transport (RCMSG_ERR_INVALID_PARAM)" "$dir/out" ||
    fail "rank 1 did not say why its pack failed"
grep -q "^\[rcmsg [^ ]*:0 [0-9]*\] error: peer 1 failed in rcmsg_init: .*(RCMSG_ERR_INVALID_PARAM)" "$dir/out" ||
    fail "rank 0 did not name rank 1 and its failure"
for r in 0 1; do
    grep -q "^rank $r: init: RCMSG_ERR_" "$dir/out" || fail "rank $r: rcmsg_init did not fail"
done
! grep -q "did not arrive" "$dir/out" || fail "rank 0 waited for rank 1 until the timeout"
slack=10
[ "${SANITIZER_BUILD:-no}" = yes ] && slack=30
[ $t -le $slack ] || fail "the job took $t s (RCMSG_LAUNCHER_TIMEOUT=60s)"
pass "a rank that cannot pack its address fails every rank's rcmsg_init at once ($t s), named"
