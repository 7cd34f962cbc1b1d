#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI_Abort and MPI_ERRORS_ARE_FATAL end every rank of the job (issue 38 item 1), whose other
# ranks compute without calling MPI for 60 s (test/integration/mpi/mpi_abort_test.c): as a singleton the
# status is the code's low 8 bits, 1 when those are 0 (256), also when its stdout is a full
# pipe nobody reads (the flush is bounded by the abort's watchdog); under mpirun, with and without
# --enable-recovery (which keeps survivors: there rcmsg kills the job through PMIx job control
# and makes mpirun exit nonzero), the job ends within 15 s with a nonzero status (the code
# under plain mpirun), no rank survives and no rank's process is left.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/mpi_lib.sh"
prog="$top_builddir/test/integration/mpi/mpi_abort_test"
out=$mpi_out
# alive PID: the process runs (a zombie, dead and not yet reaped, does not)
alive() {
    _s=$(ps -o stat= -p "$1" 2> /dev/null) && [ "${_s#Z}" = "$_s" ]
}

# abort_check WHAT STATUS EXPECTED SECONDS: EXPECTED is a status or "nonzero"
abort_check() {
    [ "$2" -ne 124 ] || { cat "$out"; fail "$1: the job hung"; }
    if [ "$3" = nonzero ]; then
        [ "$2" -ne 0 ] || { cat "$out"; fail "$1: status 0"; }
    else
        [ "$2" -eq "$3" ] || { cat "$out"; fail "$1: status $2, not $3"; }
    fi
    [ "$4" -le 15 ] || { cat "$out"; fail "$1: the job took $4 s to end"; }
    ! grep -q 'survived' "$out" || { cat "$out"; fail "$1: a rank computed on to the end"; }
    for p in $(sed -n 's/^rank [0-9]*: pid \([0-9]*\)$/\1/p' "$out"); do
        ! alive "$p" || { cat "$out"; fail "$1: rank process $p still runs"; }
    done
    echo "ok: $1: status $2 in $4 s, every rank ended"
}

for code in 3 256; do
    run_timeout 30 "$prog" abort $code > "$out" 2>&1
    st=$?
    want=$code
    [ $code -ne 256 ] || want=1
    abort_check "MPI_Abort($code) as a singleton" $st $want 0
done
grep -q 'MPI_Abort with error code 256; aborting the job (exit status 1)' "$out" ||
    { cat "$out"; fail "MPI_Abort(256) does not say its exit status"; }
# its stdout a full pipe nobody reads (a FIFO held open, never read) and output in its stdio
# buffer: the abort's flush blocks, its watchdog (5 s) ends it
fifo="$mpi_dir/stdout"
mkfifo "$fifo" || fail "mkfifo failed"
exec 3<> "$fifo"
t0=$(date +%s)
run_timeout 30 "$prog" stuck 5 > "$fifo" 2> "$out"
st=$?
exec 3<&-
abort_check "MPI_Abort(5) as a singleton with stdout full" $st 5 $(($(date +%s) - t0))
grep -q 'stdout is full' "$out" || { cat "$out"; fail "stdout was not filled"; }

need_mpirun
# run_job WHAT EXPECTED [MPIRUN-OPTION]... -- ARGS...: 3 ranks under mpirun
run_job() {
    what=$1 want=$2
    shift 2
    opts=''
    while [ "$1" != -- ]; do
        opts="$opts $1"
        shift
    done
    shift
    t0=$(date +%s)
    run_timeout 90 "$MPIRUN" --allow-run-as-root -np 3 --oversubscribe $opts "$prog" "$@" \
        > "$out" 2>&1
    st=$?
    sleep 1 # a process being killed may take a moment to go
    abort_check "$what" $st "$want" $(($(date +%s) - t0))
}
run_job "MPI_Abort(3) under mpirun" 3 -- abort 3
run_job "MPI_Abort(256) under mpirun" nonzero -- abort 256
run_job "MPI_Abort(3) under mpirun --enable-recovery" nonzero --enable-recovery -- abort 3
grep -q 'error: aborting the job (exit status 3): MPI_Abort with error code 3' "$out" ||
    { cat "$out"; fail "rcmsg_abort does not say why"; }
run_job "MPI_Abort(256) under mpirun --enable-recovery" nonzero --enable-recovery -- abort 256
run_job "ERRORS_ARE_FATAL under mpirun --enable-recovery" nonzero --enable-recovery -- fatal
grep -q 'fatal error: MPI_Send: invalid rank 8 .*(MPI_ERR_RANK); aborting the job' "$out" ||
    { cat "$out"; fail "the fatal error does not name the call"; }
pass "MPI_Abort and ERRORS_ARE_FATAL end every rank, with a nonzero status, as a singleton and under mpirun with and without --enable-recovery"
