#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# btl_rc's progress thread under ThreadSanitizer, in the Soft-RoCE guest (issue 41 item 4):
# the TSan build with verbs that test/rdma/guest.sh makes on the host before the boot
# ($top_builddir/tsan-rc, tsan_lib.sh; under the guest's emulation the build would take many
# minutes) runs, over rc (RCMSG_TRANSPORTS=rc,self) with RCMSG_ASYNC_PROGRESS=control (the
# default):
# 1. threads_rc.sh's programs (threads_test, mpi_threads_test), 4 threads per rank, 2 ranks:
#    the application's threads under the core lock, rc's thread behind the gate (rc_gate.h);
#    then again with RCMSG_ASYNC_PROGRESS=full (its thread runs the data plane beside them)
# 2. rc_compute.sh's lazy-connect case (part 1), rank 1 computing 10 s while rank 0 connects
#    to it and sends: the progress thread answers the CM, and hands up what it deferred
# No ThreadSanitizer report is allowed (halt_on_error: a report also fails the process); the
# suppressions (tsan_rc.supp) name only libibverbs' and the rxe provider's internals, each
# with its reason. SKIP, saying why, when the build is missing or TSan cannot run in the guest.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/threads/threads_lib.sh"
. "$top_srcdir/test/integration/threads/tsan_lib.sh"
need_rdma
need_mpirun
[ "${SANITIZER_BUILD:-no}" != yes ] ||
    skip "AddressSanitizer build: ThreadSanitizer cannot run with it (the release build runs this)"
bd="$top_builddir/tsan-rc"
[ "${TSAN_BUILD:-no}" = yes ] && bd=$top_builddir
if [ ! -x "$bd/test/integration/threads/threads_test" ] || [ ! -x "$bd/test/integration/rc/rc_compute_test" ]; then
    why=$(cat "$bd.why" 2> /dev/null)
    skip "no TSan build with verbs in $bd: ${why:-test/rdma/guest.sh makes it on the host before the boot (sh: . tsan_lib.sh; tsan_build $bd -- \$tsan_rc_targets)}"
fi
# TSan maps its shadow memory at fixed addresses: a kernel whose layout it does not expect
# stops every TSan program at start ("FATAL: ThreadSanitizer: unexpected memory mapping")
tsan_can_build || skip "ThreadSanitizer cannot run in this guest: $tsan_why"
TSAN_OPTIONS="suppressions=$top_srcdir/test/integration/threads/tsan_rc.supp ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS
RCMSG_TRANSPORTS=rc,self
export RCMSG_TRANSPORTS
threads_mpirun_opts="-x RCMSG_TRANSPORTS -x TSAN_OPTIONS"
threads_timeout=300
t0=$(date +%s)
threads_runs "$bd" 2
echo "(threads: $(($(date +%s) - t0)) s)"
t0=$(date +%s)
RCMSG_ASYNC_PROGRESS=full threads_mpirun_opts="$threads_mpirun_opts -x RCMSG_ASYNC_PROGRESS"
export RCMSG_ASYNC_PROGRESS
threads_runs "$bd" 2
unset RCMSG_ASYNC_PROGRESS
threads_mpirun_opts="-x RCMSG_TRANSPORTS -x TSAN_OPTIONS"
echo "(threads, RCMSG_ASYNC_PROGRESS=full: $(($(date +%s) - t0)) s)"
t0=$(date +%s)
out=$(mktemp)
top_builddir=$bd RC_COMPUTE_PARTS=1 RC_COMPUTE_LONG=10 RC_COMPUTE_SLACK=${TSAN_RC_SLACK:-5} \
    sh "$top_srcdir/test/integration/rc/rc_compute.sh" > "$out" 2>&1
st=$?
grep -v '^\[rcmsg .*\] \(debug\|info\|trace\): ' "$out" | tail -60
echo "(lazy connect: $(($(date +%s) - t0)) s)"
! grep -q ThreadSanitizer "$out" || { rm -f "$out"; fail "ThreadSanitizer reported in rc_compute.sh's lazy case (above)"; }
rm -f "$out"
[ $st -eq 0 ] || fail "rc_compute.sh's lazy case failed in the TSan build (status $st, above)"
pass "no ThreadSanitizer report over rc with the progress thread: threads_test and mpi_threads_test (2 ranks x 4 threads; control and full), a lazy connect to a computing rank"
