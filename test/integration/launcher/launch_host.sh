#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# On the host (no RDMA device): a singleton runs (self only); srun without --mpi=pmix is
# refused with advice; an mpirun job of 2 ranks forced onto rc (RCMSG_TRANSPORTS=rc,self)
# with no device fails on every rank with a clear message instead of hanging.
. "$top_srcdir/test/integration/lib.sh"
prog="$top_builddir/test/integration/rc/rc_mesh_test"
[ "${VERBS_BUILD:-yes}" = yes ] ||
    skip "built without verbs: rc_mesh_test is not built (build_variants.sh checks that build)"
out=$(mktemp); trap 'rm -f "$out"' EXIT

run_timeout 60 "$prog" > "$out" 2>&1
st=$?
cat "$out"
[ $st -eq 0 ] && grep -q 'rank 0 of 1: 200 messages from 1 ranks checked' "$out" ||
    fail "singleton run (status $st)"
echo "ok: singleton"

SLURM_STEP_NUM_TASKS=4 run_timeout 60 "$prog" > "$out" 2>&1
st=$?
cat "$out"
[ $st -ne 0 ] && grep -q "SLURM_STEP_NUM_TASKS=4 says this is one of several processes, but no PMIx server answered .*srun --mpi=pmix" "$out" ||
    fail "srun without --mpi=pmix not refused clearly (status $st)"
echo "ok: a multi-process job without PMIx is refused"

if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
    echo "SKIP (part): this machine has RDMA devices; the no-device case is not checked"
elif [ -n "${MPIRUN:-}" ]; then
    RCMSG_TRANSPORTS=rc,self run_timeout 120 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe \
        "$prog" > "$out" 2>&1
    st=$?
    cat "$out"
    [ $st -ne 124 ] || fail "the job hung"
    [ $st -ne 0 ] || fail "a 2-rank job without a device must fail"
    each_rank_logged 2 "$out" 'error: no ACTIVE RDMA port found' once ||
        fail "every rank must say once that no RDMA port was found: $bad"
    each_rank_logged 2 "$out" 'error: cannot open the rc transport (RCMSG_ERR_NO_DEVICE) but local peers need it' once ||
        fail "every rank must say once why it cannot reach its peer: $bad"
    echo "ok: a job without a device fails on every rank, no hang"
fi
pass "launch cases on the host"
