#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Under mpirun (3 ranks): mpirun SIGKILLed while the ranks poll the launcher: every rank
# reports RCMSG_ERR_LAUNCHER within seconds and exits; a bad RCMSG_* value on one rank makes
# every rank's rcmsg_init fail naming it; a rank exiting before rcmsg_init ends the job (no
# hang); rcmsg_init after rcmsg_finalize is refused with the reason (and works as a singleton);
# a huge RCMSG_LAUNCHER_TIMEOUT does not wrap into an immediate timeout; SIGUSR1 to ranks
# waiting in finalize's closing fence prints the dump and does not kill them.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
. "$top_srcdir/test/integration/launcher_lib.sh"
run() { run_timeout 120 "$MPIRUN" --allow-run-as-root -np 3 --oversubscribe "$@"; }

# 1. the launcher is SIGKILLed: the orphans notice (PMIx event or their parent gone) and exit
orphans_case run --poll poll

# 2. a bad value on rank 1 only: every rank fails, naming rank 1 and why
bad_value_case run

# 3. rank 1 exits before rcmsg_init: mpirun aborts the job; nobody hangs
exit_early_case run

# 4. init after finalize: refused under a launcher, fine in a singleton
reinit_case run

# 5. RCMSG_LAUNCHER_TIMEOUT near UINT64_MAX us: no wrap into an immediate timeout
huge_timeout_case run

# 6. SIGUSR1 to ranks waiting in finalize's closing fence: the dump, and they live on
finalize_dump_case run
pass "mpirun: orphans exit, a rank that fails or leaves before the fence ends every init"
