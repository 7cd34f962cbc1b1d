#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI_Abort and MPI_ERRORS_ARE_FATAL under srun --mpi=pmix (contrib/slurm/slurm-local) with
# --kill-on-bad-exit=0 (srun keeps the other tasks when one exits nonzero), 3 ranks whose
# others compute without calling MPI for 60 s (test/integration/mpi/mpi_abort_test.c): the step ends within
# 15 s with the code as srun's status (1 for MPI_Abort(256), whose low 8 bits are 0, and for
# the fatal error), no rank survives and no rank's process is left (issue 38 item 1).
. "$top_srcdir/test/integration/lib.sh"
slurm="$top_srcdir/contrib/slurm/slurm-local"
why=$("$slurm" --check 2>&1) || skip "Slurm is not usable here: $why"
. "$top_srcdir/test/integration/mpi_lib.sh"
eval "$("$slurm" start)" || fail "slurm-local start failed"
trap '"$slurm" stop > /dev/null 2>&1; rm -rf "$mpi_dir"' EXIT
prog="$top_builddir/test/integration/mpi/mpi_abort_test"
out=$mpi_out
# alive PID: the process runs (a zombie, dead and not yet reaped, does not)
alive() {
    _s=$(ps -o stat= -p "$1" 2> /dev/null) && [ "${_s#Z}" = "$_s" ]
}

# run_step WHAT EXPECTED ARGS...
run_step() {
    what=$1 want=$2
    shift 2
    t0=$(date +%s)
    run_timeout 90 srun --mpi=pmix --kill-on-bad-exit=0 -O -n 3 "$prog" "$@" > "$out" 2>&1
    st=$?
    t=$(($(date +%s) - t0))
    sleep 1 # a process being killed may take a moment to go
    [ $st -ne 124 ] || { cat "$out"; fail "$what: the step hung"; }
    [ $st -eq "$want" ] || { cat "$out"; fail "$what: status $st, not $want"; }
    [ $t -le 15 ] || { cat "$out"; fail "$what: the step took $t s to end"; }
    ! grep -q 'survived' "$out" || { cat "$out"; fail "$what: a rank computed on to the end"; }
    pids=$(sed -n 's/^rank [0-9]*: pid \([0-9]*\)$/\1/p' "$out")
    [ "$(echo $pids | wc -w)" -eq 3 ] || { cat "$out"; fail "$what: not every rank said its pid"; }
    for p in $pids; do
        ! alive "$p" || { cat "$out"; fail "$what: rank process $p still runs"; }
    done
    echo "ok: $what: status $st in $t s, every rank ended"
}
run_step "MPI_Abort(3) under srun" 3 abort 3
grep -q 'MPI_Abort with error code 3; aborting the job (exit status 3)' "$out" ||
    { cat "$out"; fail "MPI_Abort said nothing"; }
run_step "MPI_Abort(256) under srun" 1 abort 256
run_step "MPI_Abort(-1) under srun" 255 abort -1
run_step "ERRORS_ARE_FATAL under srun" 1 fatal
pass "MPI_Abort and ERRORS_ARE_FATAL end every rank under srun --mpi=pmix --kill-on-bad-exit=0, the code passed through"
