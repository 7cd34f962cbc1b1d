#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpi_cancel_host.sh's runs under srun --mpi=pmix (contrib/slurm/slurm-local) over sm: the
# cancels with 2 ranks, freed receives and freed and buffered sends nobody receives cancelled
# by MPI_Finalize (mpi_cancel_lib.sh).
# sm_kill_srun.sh has the cancel whose receiver dies.
. "$top_srcdir/test/integration/lib.sh"
slurm="$top_srcdir/contrib/slurm/slurm-local"
why=$("$slurm" --check 2>&1) || skip "Slurm is not usable here: $why"
. "$top_srcdir/test/integration/mpi_lib.sh"
. "$top_srcdir/test/integration/mpi/mpi_cancel_lib.sh"
eval "$("$slurm" start)" || fail "slurm-local start failed"
trap '"$slurm" stop > /dev/null 2>&1; rm -rf "$mpi_dir"' EXIT
mpi_launcher=srun
mpi_test 2 mpi_cancel_test
cancel_freed
cancel_freed_sends 2
cancel_fini
pass "MPI_Cancel, of sends to a rank in MPI_Finalize too, and freed receives and sends at MPI_Finalize under srun --mpi=pmix"
