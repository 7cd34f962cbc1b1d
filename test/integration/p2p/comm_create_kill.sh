#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rcmsg_comm_create_ranks with a member lost between two exchanges of its agreement
# (comm_create_kill_test, 4 ranks over shared memory, mpirun --enable-recovery): rank 3 dies by
# SIGKILL right after its first message of the agreement (RCMSG_TEST_AGREE_KILL=1, its rank
# only), so rank 0 is one exchange ahead of ranks 1 and 2. Each survivor's call fails with
# RCMSG_ERR_CONNECTION within the liveness bound (none hangs), the survivors' communicator then
# works (checked messages), 40 more of pairs and of all three are made back to back, and every
# survivor finalizes; no process of the job is left. Then the same with rank 3 dying after its
# first message of the second exchange (RCMSG_TEST_AGREE_KILL=5, "late"): rank 0, which got
# it, may succeed (a broken communicator) while the others fail, and none waits for the others.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
prog="$top_builddir/test/integration/p2p/comm_create_kill_test"
out=$(mktemp); trap 'rm -f "$out"' EXIT

# run KILL_AFTER [late]: one job; fails the test on a hang or a survivor's failure
run() {
    run_timeout 120 "$MPIRUN" --allow-run-as-root --oversubscribe --enable-recovery \
        -np 3 "$prog" ${2:-} : -np 1 env RCMSG_TEST_AGREE_KILL=$1 "$prog" ${2:-} > "$out" 2>&1
    st=$?
    cat "$out"
    [ $st -ne 124 ] || fail "RCMSG_TEST_AGREE_KILL=$1: a survivor hung (killed after 120 s)"
    grep -q "RCMSG_TEST_AGREE_KILL=$1: this process kills itself" "$out" ||
        fail "RCMSG_TEST_AGREE_KILL=$1: rank 3 did not die in the agreement"
    ! grep -q "^rank 3:" "$out" || fail "RCMSG_TEST_AGREE_KILL=$1: rank 3 got out of the agreement"
    for r in 0 1 2; do
        grep -q "^rank $r: create_ranks with rank 3 lost returned RCMSG_\(ERR_CONNECTION\|OK\) after" "$out" ||
            fail "RCMSG_TEST_AGREE_KILL=$1: rank $r's create_ranks with rank 3 lost did not return"
        grep -q "^rank $r: the survivors' communicator works$" "$out" ||
            fail "RCMSG_TEST_AGREE_KILL=$1: rank $r: the survivors' communicator did not work"
        grep -q "^rank $r of 4: 0 failure(s)$" "$out" ||
            fail "RCMSG_TEST_AGREE_KILL=$1: rank $r did not finish cleanly"
    done
    sleep 1
    ! pgrep -f "$prog" > /dev/null || fail "a process of the job is left: $(pgrep -af "$prog")"
}

run 1
for r in 0 1 2; do
    grep -q "^rank $r: create_ranks with rank 3 lost returned RCMSG_ERR_CONNECTION after" "$out" ||
        fail "rank $r's create_ranks with rank 3 lost did not fail with RCMSG_ERR_CONNECTION"
done
secs=$(sed -n 's/^rank 0: create_ranks with rank 3 lost returned .* after \([0-9.]*\) s$/\1/p' "$out")
echo "ok: rank 3 lost in the first exchange: every survivor failed (rank 0 after $secs s)"
run 5 late
echo "ok: rank 3 lost in the second exchange: $(grep -c 'returned RCMSG_OK' "$out") survivor(s) succeeded, the others failed, none hung"
pass "a member lost inside create_ranks: the survivors failed with RCMSG_ERR_CONNECTION (rank 0 after $secs s), then made their own communicators"
