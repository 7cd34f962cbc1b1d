#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The MPI face (librcmsg_mpi) on the host over sm: MPI_ERRORS_ARE_FATAL and MPI_Abort end the
# process with a message naming the call; error codes after more errors than they can number
# (mpi_env_test's modes; its plain runs, 1 to 8 ranks, are lines of the testlist).
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/mpi_lib.sh"
out=$mpi_out
# MPI_ERRORS_ARE_FATAL (the default): the call's error is printed and the process exits 1
mpi_launcher=singleton mpi_timeout=60
mpi_run 1 mpi_env_test fatal
st=$?
[ $st -eq 1 ] || { cat "$out"; fail "an invalid rank under ERRORS_ARE_FATAL: exit $st, not 1"; }
grep -q 'fatal error: MPI_Send: invalid rank 6 .*(MPI_ERR_RANK); aborting the job' "$out" ||
    { cat "$out"; fail "the fatal error does not name the call and the problem"; }
echo "ok: ERRORS_ARE_FATAL names the call and exits 1"
# more errors than codes can number (issue 38 item 12): an old code never names a newer error
mpi_run 1 mpi_env_test notes
st=$?
[ $st -eq 0 ] && grep -q '^rank 0 of 1: 0 failure(s)$' "$out" ||
    { cat "$out"; fail "error codes after 300,000 errors: status $st"; }
echo "ok: an old error code gives its class's text, not a newer error's, after 300,000 errors"
# under mpirun the other ranks are ended by the launcher
mpi_launcher=mpirun
mpi_run 2 mpi_env_test abort
st=$?
[ $st -ne 0 ] && [ $st -ne 124 ] || { cat "$out"; fail "MPI_Abort under mpirun: exit $st"; }
grep -q 'MPI_Abort with error code 3' "$out" || { cat "$out"; fail "MPI_Abort said nothing"; }
mpi_launcher=singleton
mpi_run 1 mpi_env_test abort
st=$?
[ $st -eq 3 ] || { cat "$out"; fail "MPI_Abort(3) as a singleton: exit $st"; }
echo "ok: MPI_Abort ends the job with its code"
pass "ERRORS_ARE_FATAL, MPI_Abort and error codes"
