# SPDX-License-Identifier: BSD-3-Clause
# The threaded tests (issue 41), sourced after lib.sh by threads_host.sh, threads_tsan.sh and
# threads_rc.sh: threads_runs BUILDDIR NP... runs BUILDDIR's threads_test (rcmsg.h) and
# mpi_threads_test (MPI_THREAD_MULTIPLE) with 4 threads per rank on each NP under mpirun, and
# fails unless every rank reports its 0 failures (ranks_passed) and nothing says "ThreadSanitizer" (the TSan
# build's reports; TSAN_OPTIONS below makes a report fail the process too).
threads_out=$(mktemp)
trap 'rm -f "$threads_out"' EXIT
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS

threads_runs() {
    _bd=$1
    shift
    for _np in "$@"; do
        for _prog in integration/threads/threads_test integration/threads/mpi_threads_test; do
            run_timeout "${threads_timeout:-300}" "$MPIRUN" --allow-run-as-root -np "$_np" \
                --oversubscribe ${threads_mpirun_opts:-} "$_bd/test/$_prog" 4 > "$threads_out" 2>&1
            _st=$?
            if [ $_st -ne 0 ] || ! ranks_passed "$_np" "$threads_out" ||
                grep -q ThreadSanitizer "$threads_out"; then
                head -80 "$threads_out"
                fail "${_prog##*/} on $_np ranks, 4 threads each: status $_st, not every rank passed"
            fi
            echo "ok: ${_prog##*/}: $_np ranks x 4 threads (p2p with own tags and ANY_TAG, wildcard receives, requests waited by another thread, collectives on per-thread communicators dup'ed at once)"
        done
    done
}
