#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The same mesh under Slurm: a single-host cluster started and stopped by the test, the job
# launched with srun --mpi=pmix.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
slurm="$top_srcdir/contrib/slurm/slurm-local"
why=$("$slurm" --check 2>&1) || skip "Slurm is not usable here: $why"
out=$(mktemp); trap 'rm -f "$out"' EXIT
RCMSG_LOG_LEVEL=info run_timeout 600 "$slurm" run -- \
    srun --mpi=pmix -n 4 "$top_builddir/test/integration/rc/rc_mesh_test" > "$out" 2>&1
st=$?
grep -v ' info: candidate' "$out"
[ $st -eq 0 ] || fail "srun exited with $st"
ranks_passed 4 "$out" ||
    fail "not every rank checked all its messages and reads"
pass "4 ranks under srun --mpi=pmix exchanged patterns over rc"
