#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Two local ranks with different settings that size the shared-memory segment (mpirun's MPMD
# syntax gives each rank its own environment): both fail rcmsg_init, promptly, with a message
# that names the variable and both values.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
prog="$top_builddir/test/integration/p2p/p2p_test"
out=$(mktemp); trap 'rm -f "$out"' EXIT
check() { # variable, value of rank 0, value of rank 1, then what rank 0 / rank 1 must log
    var=$1
    # (mpirun must not kill one rank when the other exits first: both must get to say why)
    run_timeout 60 "$MPIRUN" --allow-run-as-root --oversubscribe \
        --mca orte_abort_on_non_zero_status 0 -np 1 -x "$var=$2" "$prog" : \
        -np 1 -x "$var=$3" "$prog" > "$out" 2>&1
    st=$?
    cat "$out"
    [ $st -ne 124 ] || fail "$var=$2 against $3: the job hung"
    grep -q "\[rcmsg [^ ]*:0 [0-9]*\] error: peer 1 $4: set the same $var on every rank" "$out" ||
        fail "rank 0 did not name $var with both values"
    grep -q "\[rcmsg [^ ]*:1 [0-9]*\] error: peer 0 $5: set the same $var on every rank" "$out" ||
        fail "rank 1 did not name $var with both values"
    each_rank_logged 2 "$out" 'error: rcmsg_init failed: invalid configuration' once ||
        fail "$var: not both ranks' rcmsg_init failed with RCMSG_ERR_CONFIG: $bad"
    echo "ok: $var=$2 against $3 named at init on both ranks"
}
check RCMSG_SM_CELL_SIZE 9k 16k "uses 16384-byte shared-memory cells, this rank 9216" \
    "uses 9216-byte shared-memory cells, this rank 16384"
# with RCMSG_SM_CELL_SIZE=0 (the default) the eager limit sizes the cells: 64 bytes more
check RCMSG_SM_EAGER_LIMIT 4k 8k "uses 8256-byte shared-memory cells, this rank 4160" \
    "uses 4160-byte shared-memory cells, this rank 8256"
check RCMSG_SM_CELLS 64 32 "has 32 cells per shared-memory ring, this rank 64" \
    "has 64 cells per shared-memory ring, this rank 32"
check RCMSG_SM_STAGING 256k 1m "has a 1048576-byte staging area, this rank 262144 .*" \
    "has a 262144-byte staging area, this rank 1048576 .*"
# each side counts the other's eager buffers: different counts would stall a sender
check RCMSG_SM_EAGER_CREDITS 64 256 "lends 256 eager credits per local peer, this rank 64" \
    "lends 64 eager credits per local peer, this rank 256"
pass "mismatched shared-memory settings are named at init"
