#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The MPI face (librcmsg_mpi) on the host over sm: the environment, errors and communicators
# test and the point-to-point and requests test, as a singleton (no launcher) and under
# mpirun with 2, 3, 4 and 8 ranks; then MPI_ERRORS_ARE_FATAL and MPI_Abort end the process
# with a message naming the call.
. "$top_srcdir/test/integration/lib.sh"
env_test="$top_builddir/test/mpi/mpi_env_test"
p2p_test="$top_builddir/test/mpi/mpi_p2p_test"
out=$(mktemp); trap 'rm -f "$out"' EXIT

# check_run NP WHAT: every rank printed a clean summary
check_run() {
    [ "$(grep -c "^rank [0-9] of $1: 0 failure(s)\$" "$out")" -eq "$1" ] ||
        { cat "$out"; fail "$2 with $1 rank(s): not every rank passed"; }
}
for prog in "$env_test" "$p2p_test"; do
    run_timeout 60 "$prog" > "$out" 2>&1 || { cat "$out"; fail "$prog as a singleton failed"; }
    check_run 1 "$(basename "$prog")"
    echo "ok: $(basename "$prog") as a singleton ($(grep -c '^ok: ' "$out") phases)"
done
need_mpirun
for np in 2 3 4 8; do
    for prog in "$env_test" "$p2p_test"; do
        run_timeout 120 "$MPIRUN" --allow-run-as-root -np $np --oversubscribe "$prog" \
            > "$out" 2>&1 || { cat "$out"; fail "$(basename "$prog") with $np ranks failed"; }
        check_run $np "$(basename "$prog")"
    done
    echo "ok: $np ranks over sm"
done
# MPI_ERRORS_ARE_FATAL (the default): the call's error is printed and the process exits 1
run_timeout 60 "$env_test" fatal > "$out" 2>&1
st=$?
[ $st -eq 1 ] || { cat "$out"; fail "an invalid rank under ERRORS_ARE_FATAL: exit $st, not 1"; }
grep -q 'fatal error: MPI_Send: invalid rank 6 .*(MPI_ERR_RANK); aborting the job' "$out" ||
    { cat "$out"; fail "the fatal error does not name the call and the problem"; }
echo "ok: ERRORS_ARE_FATAL names the call and exits 1"
# under mpirun the other ranks are ended by the launcher
run_timeout 60 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe "$env_test" abort \
    > "$out" 2>&1
st=$?
[ $st -ne 0 ] && [ $st -ne 124 ] || { cat "$out"; fail "MPI_Abort under mpirun: exit $st"; }
grep -q 'MPI_Abort with error code 3' "$out" || { cat "$out"; fail "MPI_Abort said nothing"; }
run_timeout 60 "$env_test" abort > "$out" 2>&1
st=$?
[ $st -eq 3 ] || { cat "$out"; fail "MPI_Abort(3) as a singleton: exit $st"; }
echo "ok: MPI_Abort ends the job with its code"
pass "MPI environment, communicators, point-to-point and requests with 1 to 8 ranks"
