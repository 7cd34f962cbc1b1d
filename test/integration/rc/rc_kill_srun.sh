#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rc_liveness.sh's first job under srun --mpi=pmix (slurm-local in the guest, rc only): rank 3
# of 4 dies by SIGKILL in the middle of an allreduce; every survivor's allreduce fails with
# RCMSG_ERR_CONNECTION, and its rcmsg_finalize returns RCMSG_OK within 3 s naming rank 3 (it
# used to wait up to RCMSG_DRAIN_TIMEOUT for sends to the dead rank: issue 38 item 9).
# Slurm's mpi/pmix cancels the step about 1 s after the dead task's PMIx connection drops: a
# child of the dead rank keeps that connection for TEST_KILL_HOLD=40 s (test_kill.h; it drops
# the rank's verbs resources, so its QPs are gone and the survivors' retries run out).
. "$top_srcdir/test/integration/lib.sh"
need_rdma
slurm="$top_srcdir/contrib/slurm/slurm-local"
why=$("$slurm" --check 2>&1) || skip "Slurm is not usable here: $why"
out=$(mktemp); trap 'rm -f "$out"' EXIT
run_timeout 240 env -u RCMSG_IB_RETRY_COUNT -u RCMSG_IB_TIMEOUT RCMSG_TRANSPORTS=rc,self \
    RCMSG_RECOVERY_TIMEOUT=3s TEST_KILL_HOLD=40 "$slurm" run -- srun --mpi=pmix -n 4 \
    "$top_builddir/test/integration/rc/liveness_test" 40 after > "$out" 2>&1
st=$?
cat "$out"
[ $st -ne 124 ] || fail "the job hung"
grep -q '^rank 3: killing itself with SIGKILL' "$out" || fail "rank 3 did not get to the kill"
for r in 0 1 2; do
    grep -q "^rank $r: allreduce [0-9]* returned RCMSG_ERR_CONNECTION" "$out" ||
        fail "rank $r: its allreduce did not fail with RCMSG_ERR_CONNECTION"
    line=$(grep "^rank $r: finalized" "$out") || fail "rank $r did not finalize"
    echo "$line" | grep -q 'finalized (RCMSG_OK) in' || fail "rank $r: finalize did not return RCMSG_OK"
    secs=$(echo "$line" | sed 's/.* in \([0-9.]*\) s$/\1/')
    awk -v s="$secs" 'BEGIN { exit !(s <= 3) }' || fail "rank $r: finalize took $secs s (bound 3 s)"
    grep -q "^\[rcmsg [^ ]*:$r [0-9]*\] warn: finalize: 1 rank(s) lost during the job (3): nothing is flushed to them" "$out" ||
        fail "rank $r: finalize did not name the lost rank 3"
    echo "ok: rank $r: finalize returned RCMSG_OK in $secs s after the loss of rank 3"
done
pass "srun, rc: survivors of a killed rank finalize at once (RCMSG_OK), naming it"
