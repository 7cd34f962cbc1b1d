#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Orphans exit (issue 12, item 3): 3 ranks blocked in rcmsg_recv of a message nobody sends;
# their launcher (mpirun; slurmstepd under srun) is SIGKILLed; every rank's receive must fail
# with RCMSG_ERR_LAUNCHER within seconds, saying why, and the process exit (they used to spin
# at 100% CPU forever). Needs the pml to call rcmsg_wireup_poll from its idle waits.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/launcher_lib.sh"
if [ -n "${MPIRUN:-}" ] && [ -x "$MPIRUN" ]; then
    run() { run_timeout 120 "$MPIRUN" --allow-run-as-root -np 3 --oversubscribe "$@"; }
    orphans_case run --recv recv
else
    echo "SKIP (part): mpirun not found"
fi
slurm="$top_srcdir/contrib/slurm/slurm-local"
if why=$("$slurm" --check 2>&1); then
    eval "$("$slurm" start)" || fail "slurm-local start failed"
    extra_cleanup() { "$slurm" stop > /dev/null 2>&1; }
    end_job() { for j in $(squeue -h -o %i); do scancel "$j"; done; }
    run() { run_timeout 120 srun --mpi=pmix -n 3 "$@"; }
    orphans_case run --recv recv
else
    echo "SKIP (part): Slurm is not usable here: $why"
fi
pass "ranks blocked in a receive exit when their launcher is killed"
