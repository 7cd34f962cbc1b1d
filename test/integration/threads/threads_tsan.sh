#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The threaded tests under ThreadSanitizer (issue 41 item 4): threads_test and
# mpi_threads_test, 4 threads per rank on 2 and 4 ranks over sm (and on 2 with
# RCMSG_ASYNC_PROGRESS=full, and full_overlap_test), with no report. In a
# --enable-tsan build they run from it; otherwise this builds only what they need (librcmsg,
# librcmsg_mpi and the two programs) with --enable-tsan --without-verbs into
# $top_builddir/tsan (kept: a later run rebuilds only what changed). SKIP when the compiler
# cannot build with -fsanitize=thread, and in the --enable-debug build (ASan excludes TSan:
# the plain build's make check runs this).
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/threads/threads_lib.sh"
. "$top_srcdir/test/integration/threads/tsan_lib.sh"
need_mpirun
[ "${SANITIZER_BUILD:-no}" != yes ] ||
    skip "AddressSanitizer build: ThreadSanitizer cannot run with it (the plain build runs this)"
if [ "${TSAN_BUILD:-no}" = yes ]; then
    threads_runs "$top_builddir" 2 4
    pass "no ThreadSanitizer report: 4 threads per rank, 2 and 4 ranks over sm (this build)"
fi
tsan_can_build || skip "$tsan_why"
bd="$top_builddir/tsan"
tsan_build "$bd" --without-verbs -- librcmsg.la librcmsg_mpi.la \
    test/integration/threads/threads_test test/integration/threads/mpi_threads_test \
    test/integration/launcher/compute_test test/integration/threads/full_overlap_test
threads_runs "$bd" 2 4
# RCMSG_ASYNC_PROGRESS=full: its thread beside the 4 application threads, and the transfers
# and the collective it runs while full_overlap_test computes (a 4 s phase; the idle bound is
# not this test's: TSan's own background thread counts among the others)
RCMSG_ASYNC_PROGRESS=full
threads_mpirun_opts="-x RCMSG_ASYNC_PROGRESS"
export RCMSG_ASYNC_PROGRESS
threads_runs "$bd" 2
unset RCMSG_ASYNC_PROGRESS threads_mpirun_opts
(
    . "$top_srcdir/test/integration/threads/full_overlap_lib.sh"
    top_builddir=$bd
    overlap_run full 4 overlap 100
    ! grep -q ThreadSanitizer "$overlap_out" || fail "full_overlap_test: a ThreadSanitizer report"
) || exit 1
echo "ok: RCMSG_ASYNC_PROGRESS=full: threads_test, mpi_threads_test and full_overlap_test"
# the watch thread finding a lost peer and launcher while the ranks compute (a report fails)
top_srcdir=$top_srcdir top_builddir=$bd MPIRUN=$MPIRUN COMPUTE_NO_SLURM=1 COMPUTE_SLACK=3 sh "$top_srcdir/test/integration/launcher/compute_host.sh" ||
    fail "launcher/compute_host.sh failed in the TSan build (above)"
pass "no ThreadSanitizer report: 4 threads per rank, 2 and 4 ranks over sm, also with RCMSG_ASYNC_PROGRESS=full; a peer and the launcher lost while computing"
