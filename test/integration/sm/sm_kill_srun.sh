#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One rank of a 3-rank job under Slurm is killed with SIGKILL mid-job: the others report the
# lost peer, their receive from it fails with RCMSG_ERR_CONNECTION (so does rank 0's wait for
# a send to it that it cancelled: the answer never comes), they finalize and exit 0;
# nothing is left in /dev/shm. Slurm's mpi/pmix plugin cancels the step (SIGKILL to every
# task) about 1 s after the dead task's PMIx connection drops, so the dead rank leaves a child
# holding its descriptors for 5 s (TEST_KILL_HOLD, test_kill.h): under load the survivors may
# need more than that 1 s (a CI run failed so), and it is their behaviour that is tested.
. "$top_srcdir/test/integration/lib.sh"
slurm="$top_srcdir/contrib/slurm/slurm-local"
why=$("$slurm" --check 2>&1) || skip "Slurm is not usable here: $why"
out=$(mktemp); trap 'rm -f "$out"' EXIT
shm_before=$(ls /dev/shm | grep -c rcmsg)
run_timeout 300 env TEST_KILL_HOLD=5 "$slurm" run -- srun --mpi=pmix -n 3 \
    "$top_builddir/test/integration/p2p/p2p_test" --kill > "$out" 2>&1
st=$?
cat "$out"
[ $st -ne 124 ] || fail "the job hung"
cancelled() { # a survivor's failure is Slurm's when it cancelled the step first
    grep -q 'STEP .* CANCELLED' "$out" &&
        echo "(Slurm cancelled the step, killing the survivors, before they were done)"
}
grep -q 'rank 2: killing itself with SIGKILL' "$out" || fail "rank 2 did not get to the kill"
for r in 0 1; do
    grep -q "\[rcmsg [^ ]*:$r [0-9]*\] error: peer 2 (local rank 2, pid [0-9]*) is gone" "$out" ||
        fail "rank $r did not report the lost peer $(cancelled)"
    grep -q "^rank $r: receive from the killed rank 2 returned RCMSG_ERR_CONNECTION" "$out" ||
        fail "rank $r: its receive did not fail $(cancelled)"
    grep -q "^rank $r of 3: 0 failure(s)$" "$out" || fail "rank $r did not finish cleanly $(cancelled)"
done
grep -q '^rank 0: the wait for a send to the killed rank, cancelled, returned \(RCMSG_ERR_CONNECTION\|RCMSG_OK (cancelled 1)\)' "$out" ||
    fail "rank 0: the wait after cancelling a send to the killed rank did not end (issue 38 item 7)"
grep -q '^rank 0: ANY_SOURCE receive posted before the loss returned RCMSG_ERR_CONNECTION' "$out" ||
    fail "rank 0: the ANY_SOURCE receive only the dead rank could match did not fail"
# a rank killed in the middle of a 4-rank allreduce: every survivor's allreduce fails as soon
# as it learns of the loss (each notices the dead local rank itself, within 0.1 s; a survivor
# waiting for another survivor does not wait for that one to give up), so does a later world
# allreduce, at once; a communicator of the survivors (made without messages) still works;
# each survivor's finalize returns RCMSG_OK, naming the lost rank
run_timeout 120 env TEST_KILL_HOLD=5 "$slurm" run -- srun --mpi=pmix -n 4 \
    "$top_builddir/test/integration/rc/liveness_test" 40 after > "$out" 2>&1
st=$?
cat "$out"
[ $st -ne 124 ] || fail "the allreduce job hung"
for r in 0 1 2; do
    grep -q "^rank $r: allreduce [0-9]* returned RCMSG_ERR_CONNECTION" "$out" ||
        fail "rank $r: its allreduce did not fail $(cancelled)"
    grep -q "\[rcmsg [^ ]*:$r [0-9]*\] warn: communicator 0x0: its collectives fail from now on" \
        "$out" || fail "rank $r did not say that the world's collectives fail"
    grep -q "^rank $r: a later world allreduce returned RCMSG_ERR_CONNECTION after 0\.[0-9] s" "$out" ||
        fail "rank $r: a world allreduce after the loss did not fail at once $(cancelled)"
    grep -q "^rank $r: an allreduce on a copy of the world made after the loss returned RCMSG_ERR_CONNECTION after 0\.[0-9] s" "$out" ||
        fail "rank $r: an allreduce on a world copy made after the loss did not fail at once (within 1 s)"
    grep -q "^rank $r: allreduce of the 3 survivors returned RCMSG_OK, sum right" "$out" ||
        fail "rank $r: the survivors' communicator did not work $(cancelled)"
    grep -q "^rank $r: finalized (RCMSG_OK)" "$out" ||
        fail "rank $r did not finalize with RCMSG_OK $(cancelled)"
    grep -q "^\[rcmsg [^ ]*:$r [0-9]*\] warn: finalize: 1 rank(s) lost during the job (3)" "$out" ||
        fail "rank $r's finalize did not name the lost rank 3"
done
[ "$(ls /dev/shm | grep -c rcmsg)" -eq "$shm_before" ] || fail "files left in /dev/shm"
pass "a killed rank is reported by the others (receive, ANY_SOURCE, allreduce, a later world allreduce; the survivors' own communicator works), who exit; no segment left behind"
