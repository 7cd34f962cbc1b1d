#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Under srun --mpi=pmix (3 tasks, slurm-local): slurmstepd SIGKILLed while the ranks poll the
# launcher: every rank reports RCMSG_ERR_LAUNCHER and exits; a bad RCMSG_* value on one rank
# makes every rank's rcmsg_init fail naming it (it used to leave the others in the fence
# forever); a rank exiting before rcmsg_init makes the others' rcmsg_init fail after
# RCMSG_LAUNCHER_TIMEOUT=5s, saying so (it used to hang); init after finalize is refused; a
# huge RCMSG_LAUNCHER_TIMEOUT does not wrap into an immediate timeout; SIGUSR1 to ranks
# waiting in finalize's closing fence prints the dump and does not kill them.
. "$top_srcdir/test/integration/lib.sh"
slurm="$top_srcdir/contrib/slurm/slurm-local"
why=$("$slurm" --check 2>&1) || skip "Slurm is not usable here: $why"
. "$top_srcdir/test/integration/launcher_lib.sh"
eval "$("$slurm" start)" || fail "slurm-local start failed"
extra_cleanup() { "$slurm" stop > /dev/null 2>&1; }
run() { run_timeout 120 srun --mpi=pmix -n 3 "$@"; }
end_job() { for j in $(squeue -h -o %i); do scancel "$j"; done; }

bad_value_case run
exit_early_case run timeout
reinit_case run
huge_timeout_case run
finalize_dump_case run
# last: slurm takes ~20 s to clean up the step whose slurmstepd was killed
orphans_case run --poll poll
pass "srun: orphans exit, a rank that fails or leaves before the fence ends every init"
