#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The wrapper compiler: rcmsg-mpicc -show prints the compile line (include path and
# libraries); the build-tree rcmsg-mpicc-uninstalled compiles and links an MPI program that
# then runs; -c compiles only; CC naming the wrapper itself (configure exports it) does not
# recurse; a call outside the subset (MPI_File_open) does not compile.
. "$top_srcdir/test/integration/lib.sh"
mpicc="$top_builddir/rcmsg-mpicc-uninstalled"
[ -x "$mpicc" ] || fail "$mpicc not built"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

show=$("$mpicc" -show -o prog prog.c) || fail "rcmsg-mpicc-uninstalled -show failed"
echo "$show"
case "$show" in
*" -o prog prog.c "*"-I$top_srcdir/include"*"-lrcmsg_mpi -lrcmsg"*) ;;
*) fail "-show: not the expected compile line" ;;
esac
show=$("$top_builddir/rcmsg-mpicc" -show -c prog.c) || fail "rcmsg-mpicc -show failed"
echo "$show"
case "$show" in
*"-c prog.c -I"*) ;;
*) fail "installed wrapper -show -c: no include path" ;;
esac
case "$show" in
*-lrcmsg*) fail "-c links libraries" ;;
esac
echo "ok: -show"

"$mpicc" -o "$tmp/env_test" "$top_srcdir/test/integration/mpi/mpi_env_test.c" > "$tmp/cc.log" 2>&1 ||
    { cat "$tmp/cc.log"; fail "rcmsg-mpicc could not build test/integration/mpi/mpi_env_test.c"; }
run_timeout 60 "$tmp/env_test" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the program failed"; }
grep -q '^rank 0 of 1: 0 failure(s)$' "$tmp/out" || { cat "$tmp/out"; fail "no clean summary"; }
echo "ok: a program built by rcmsg-mpicc runs"
"$mpicc" -c -o "$tmp/p2p.o" "$top_srcdir/test/integration/mpi/mpi_p2p_test.c" ||
    fail "rcmsg-mpicc -c failed"
echo "ok: -c compiles only"
CC=$mpicc run_timeout 30 "$mpicc" -c -o "$tmp/p2p.o" "$top_srcdir/test/integration/mpi/mpi_p2p_test.c" ||
    fail "rcmsg-mpicc with CC naming itself (as configure exports it) failed"
echo "ok: CC naming the wrapper itself compiles with the configured compiler"

if "$mpicc" -o "$tmp/subset" "$top_srcdir/test/integration/mpi/mpi_subset.c" > "$tmp/cc.log" 2>&1; then
    fail "a program calling MPI_File_open compiled and linked"
fi
grep -q 'MPI_File' "$tmp/cc.log" || { cat "$tmp/cc.log"; fail "the error does not name MPI_File*"; }
echo "ok: a call outside the subset does not compile: $(grep -m1 'MPI_File' "$tmp/cc.log")"
pass "rcmsg-mpicc: -show, build and run, -c, calls outside the subset refused"
