# SPDX-License-Identifier: BSD-3-Clause
# RCMSG_ASYNC_PROGRESS=full (issue 41 item 2), sourced after lib.sh by full_overlap_host.sh (sm)
# and full_overlap_rc.sh (rc): full_overlap_runs BUILDDIR runs full_overlap_test on 2 ranks
# with full (a 64 MiB receive and a 1 MiB iallreduce posted before a 20 s compute phase: their
# waits after it must return at once, every word checked, rcmsg's threads under 1% of a CPU
# in the phase's last quarter, once the transfers are done), then with control and a 2 s
# phase (the receive's wait must move the data; the same idle bound, at least one clock tick). Fails unless both ranks report 0 failures;
# prints rank 1's wait times.
overlap_out=$(mktemp)
trap 'rm -f "$overlap_out"' EXIT

overlap_run() { # MODE SECS EXPECT [IDLE_PCT]
    RCMSG_ASYNC_PROGRESS=$1 run_timeout "${overlap_timeout:-300}" "$MPIRUN" --allow-run-as-root \
        -np 2 --oversubscribe -x RCMSG_ASYNC_PROGRESS ${overlap_mpirun_opts:-} \
        "$top_builddir/test/integration/threads/full_overlap_test" "$2" "$3" ${4:-} > "$overlap_out" 2>&1
    _st=$?
    if [ $_st -ne 0 ] || ! ranks_passed 2 "$overlap_out"; then
        head -60 "$overlap_out"
        fail "RCMSG_ASYNC_PROGRESS=$1: full_overlap_test status $_st, not every rank passed"
    fi
    grep '^rank 1: ' "$overlap_out" | sed "s/^/  $1: /"
}

full_overlap_runs() {
    overlap_run full 20 overlap ${overlap_idle_pct:-}
    echo "ok: full: the waits after a 20 s compute phase returned at once, data checked"
    overlap_run control 2 none ${overlap_idle_pct:-}
    echo "ok: control: the 64 MiB receive moved only in its wait after the compute phase"
}
