#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI programs under srun --mpi=pmix (contrib/slurm/slurm-local) on the host over sm: the
# point-to-point, blocking collectives, nonblocking collectives and noncontiguous datatypes
# programs with 1, 2, 3 and 4 ranks, data checked by the programs. Then rank 1 of 3 calls
# MPI_Abort(3) while the others go on: the job ends with status 3 within seconds (srun ends
# the step at rank 1's PMIx_Abort), and no rank's process is left running.
. "$top_srcdir/test/integration/lib.sh"
slurm="$top_srcdir/contrib/slurm/slurm-local"
why=$("$slurm" --check 2>&1) || skip "Slurm is not usable here: $why"
. "$top_srcdir/test/integration/mpi_lib.sh"
eval "$("$slurm" start)" || fail "slurm-local start failed"
trap '"$slurm" stop > /dev/null 2>&1; rm -rf "$mpi_dir"' EXIT
mpi_launcher=srun
for np in 1 2 3 4; do
    for prog in mpi_p2p_test mpi_coll_test mpi_nbc_test mpi_types_p2p; do
        mpi_test $np $prog
    done
done

# MPI_Abort on rank 1 only; each rank prints its pid first (exec keeps it)
t0=$(date +%s)
run_timeout 60 srun --mpi=pmix -n 3 sh -c 'echo "rank $SLURM_PROCID: pid $$"
    [ "$SLURM_PROCID" != 1 ] || set -- abort
    exec "$0" "$@"' "$top_builddir/test/integration/mpi/mpi_env_test" > "$mpi_out" 2>&1
st=$?
t=$(($(date +%s) - t0))
cat "$mpi_out"
[ $st -ne 124 ] || fail "MPI_Abort under srun: the job hung"
[ $st -eq 3 ] || fail "MPI_Abort(3) under srun: status $st, not 3"
grep -q 'rank 1: MPI_Abort with error code 3; aborting the job' "$mpi_out" ||
    fail "MPI_Abort said nothing"
! grep -q '^rank [0-9] of 3: 0 failure(s)$' "$mpi_out" || fail "a rank finished as if nothing happened"
[ $t -le 30 ] || fail "the job took $t s to end after MPI_Abort"
pids=$(sed -n 's/^rank [0-9]: pid \([0-9]*\)$/\1/p' "$mpi_out")
[ "$(echo $pids | wc -w)" -eq 3 ] || fail "not every rank said its pid"
for p in $pids; do
    ! kill -0 "$p" 2>/dev/null || fail "rank process $p still runs after srun returned"
done
echo "ok: MPI_Abort(3) on one rank ends the job with status 3 in $t s, no process left"
pass "MPI p2p, collectives, nonblocking collectives and datatypes under srun --mpi=pmix with 1 to 4 ranks; MPI_Abort ends the job"
