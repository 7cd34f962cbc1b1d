# SPDX-License-Identifier: BSD-3-Clause
# Cases shared by launcher_mpirun.sh and launcher_srun.sh (sourced). Each takes RUN, the
# function that runs its arguments (test/integration/launcher/launcher_test and options) as a 3-rank
# job under the launcher, within a timeout (status 124 when it expires).
prog="$top_builddir/test/integration/launcher/launcher_test"
dir=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$dir"
    ! command -v extra_cleanup > /dev/null || extra_cleanup
}
trap cleanup EXIT
# a bounded wait: the sanitizer build is slower
slack=5
[ "${SANITIZER_BUILD:-no}" = yes ] && slack=15

# running PID: the process exists and is not a zombie (orphans are reaped by whoever adopts them)
running() {
    st=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$st" ] && [ "${st#Z}" = "$st" ]
}

# each_out N PATTERN: each rank R of 0 to N-1 has a line matching PATTERN in its $dir/out.R
# (else $bad names the first that has none)
each_out() {
    _r=0
    while [ "$_r" -lt "$1" ]; do
        grep -q "$2" "$dir/out.$_r" 2> /dev/null || { bad="rank $_r"; return 1; }
        _r=$((_r + 1))
    done
}

# wait_for N PATTERN SECONDS: until each of ranks 0 to N-1 has a line matching PATTERN in its
# $dir/out.R; fails after SECONDS naming the first rank without one
wait_for() {
    i=0
    until each_out "$1" "$2"; do
        i=$((i + 1))
        [ $i -le $(($3 * 10)) ] || { cat "$dir"/out.* 2>/dev/null; fail "$bad: no '$2' in $3 s"; }
        sleep 0.1
    done
}

# orphans_case RUN MODE WHAT: ranks started with MODE (--poll or --recv); the launcher
# process that started them (their parent: mpirun, or slurmstepd under srun) is SIGKILLed;
# every rank must report RCMSG_ERR_LAUNCHER for WHAT and exit within seconds.
orphans_case() {
    rm -f "$dir"/out.*
    LAUNCHER_TEST_OUT="$dir/out" "$1" "$prog" "$2" > "$dir/launcher.log" 2>&1 &
    launcher=$!
    wait_for 3 "): $( [ "$2" = --poll ] && echo polling || echo receiving)" 60
    pids=$(sed -n 's/^rank [0-9]* (pid \([0-9]*\)).*/\1/p' "$dir"/out.*)
    victim=$(ps -o ppid= -p "$(echo $pids | cut -d' ' -f1)" | tr -d ' ')
    echo "killing the launcher process $(ps -o pid=,comm= -p "$victim") with SIGKILL"
    kill -9 "$victim"
    wait_for 3 "^rank [0-9]: $3: RCMSG_ERR_LAUNCHER" $slack
    wait_for 3 "^rank [0-9]: finalize: " $slack
    cat "$dir"/out.*
    each_out 3 'error: lost the connection to the launcher (mpirun or slurmstepd)' ||
        fail "not every rank said why: $bad did not"
    for p in $pids; do
        i=0
        while running "$p"; do
            i=$((i + 1))
            [ $i -le $((slack * 10)) ] || fail "rank process $p still runs after its launcher was killed"
            sleep 0.1
        done
        echo "rank process $p is gone"
    done
    ! command -v end_job > /dev/null || end_job # srun waits for its lost slurmstepd
    wait "$launcher" 2>/dev/null
    echo "ok: every rank exits once its launcher is SIGKILLed ($2)"
}

# bad_value_case RUN: RCMSG_EAGER_LIMIT=lots on rank 1 only
bad_value_case() {
    "$1" sh -c '[ "$PMIX_RANK" != 1 ] || export RCMSG_EAGER_LIMIT=lots; exec "$0" --init' \
        "$prog" > "$dir/out" 2>&1
    st=$?
    cat "$dir/out"
    [ $st -ne 124 ] || fail "the job hung with a bad value on one rank"
    grep -q "^\[rcmsg [^ ]* [0-9]*\] error: .*RCMSG_EAGER_LIMIT" "$dir/out" ||
        fail "rank 1 did not name the bad variable"
    for r in 0 2; do
        grep -q "^\[rcmsg [^ ]*:$r [0-9]*\] error: peer 1 failed in rcmsg_init: invalid configuration (RCMSG_ERR_CONFIG)" "$dir/out" ||
            fail "rank $r did not name rank 1 and the reason"
    done
    each_rank 3 "$dir/out" 'init: RCMSG_ERR_' || fail "not every rcmsg_init failed"
    echo "ok: a bad value on rank 1 fails every rank's rcmsg_init, naming rank 1"
}

# exit_early_case RUN [EXPECT]: rank 1 exits 0 before rcmsg_init, RCMSG_LAUNCHER_TIMEOUT=5s;
# the job must end within the timeout and slack; with EXPECT=timeout the others must say
# that a rank did not arrive, naming the variable.
exit_early_case() {
    t0=$(date +%s)
    RCMSG_LAUNCHER_TIMEOUT=5s "$1" "$prog" --exit-early 1 > "$dir/out" 2>&1
    st=$?
    t=$(($(date +%s) - t0))
    cat "$dir/out"
    [ $st -ne 124 ] || fail "the job hung when rank 1 exited before rcmsg_init"
    [ $t -le $((5 + 1 + slack + 5)) ] || fail "the job took $t s with RCMSG_LAUNCHER_TIMEOUT=5s"
    grep -q "^rank 1: exiting before rcmsg_init" "$dir/out" || fail "rank 1 did not exit early"
    ! grep -q "^rank [02]: init: RCMSG_OK" "$dir/out" || fail "an init succeeded without rank 1"
    if [ "${2:-}" = timeout ]; then
        for r in 0 2; do
            grep -q "^\[rcmsg [^ ]*:$r [0-9]*\] error: the address exchange of rcmsg_init: some rank did not arrive within RCMSG_LAUNCHER_TIMEOUT=5s" "$dir/out" ||
                fail "rank $r did not say that a rank did not arrive"
            grep -q "^rank $r: init: RCMSG_ERR_TIMEOUT" "$dir/out" || fail "rank $r: no RCMSG_ERR_TIMEOUT"
        done
    fi
    echo "ok: a rank exiting before rcmsg_init ends the job in $t s (status $st)"
}

# reinit_case RUN: init, finalize, init: refused under the launcher; fine as a singleton
reinit_case() {
    rm -f "$dir"/out.*
    LAUNCHER_TEST_OUT="$dir/out" "$1" "$prog" --reinit > "$dir/launcher.log" 2>&1
    cat "$dir/launcher.log" "$dir"/out.*
    each_out 3 '^rank [0-9]: init again: RCMSG_ERR_STATE' ||
        fail "rcmsg_init after rcmsg_finalize was not refused on every rank ($bad)"
    # once per rank (each rank's own file: the line is logged after finalize, without its rank)
    for r in 0 1 2; do
        l=$(grep -m 2 'error: rcmsg_init after rcmsg_finalize (or after a failed rcmsg_init) is not supported under a launcher: PMIx cannot be re-initialized' "$dir/out.$r")
        [ -n "$l" ] && [ -z "$(echo "$l" | sed -n 2p)" ] || fail "the refusal does not say why once on rank $r"
    done
    run_timeout 60 env -u PMIX_RANK "$prog" --reinit > "$dir/out" 2>&1
    cat "$dir/out"
    grep -q '^rank -1: init again: RCMSG_OK' "$dir/out" || fail "a singleton cannot init again"
    echo "ok: init after finalize is refused under a launcher, works in a singleton"
}

# huge_timeout_case RUN: RCMSG_LAUNCHER_TIMEOUT at the top of its range (the parser takes up
# to INT64_MAX us) and 1000000000 s: the timeout plus the launcher's grace period, and its
# rounding up to seconds, must saturate, not wrap into an immediate timeout; the job runs
# (init, fences, finalize).
huge_timeout_case() {
    for t in 9223372036854775807us 1000000000s; do
        RCMSG_LAUNCHER_TIMEOUT=$t "$1" "$prog" --init > "$dir/out" 2>&1
        st=$?
        cat "$dir/out"
        [ $st -eq 0 ] || fail "RCMSG_LAUNCHER_TIMEOUT=$t: the job failed (status $st)"
        each_rank 3 "$dir/out" 'init: RCMSG_OK' ||
            fail "RCMSG_LAUNCHER_TIMEOUT=$t: not every rcmsg_init succeeded"
        each_rank 3 "$dir/out" 'finalize: RCMSG_OK' ||
            fail "RCMSG_LAUNCHER_TIMEOUT=$t: not every rcmsg_finalize succeeded"
        ! grep -q 'RCMSG_ERR_TIMEOUT\|did not arrive' "$dir/out" ||
            fail "RCMSG_LAUNCHER_TIMEOUT=$t: a wait timed out"
    done
    echo "ok: a huge RCMSG_LAUNCHER_TIMEOUT does not wrap into an immediate timeout"
}

# finalize_dump_case RUN: rank 2 sleeps 4 s before rcmsg_finalize; ranks 0 and 1 get SIGUSR1
# while they wait for it in finalize's closing fence: each survives, prints the dump of what
# is left (the fence, the transports), finalizes with RCMSG_OK; the job exits 0. (The handler
# used to be restored before the fence: SIGUSR1 killed the rank.)
finalize_dump_case() {
    rm -f "$dir"/out.*
    LAUNCHER_TEST_OUT="$dir/out" "$1" "$prog" --late 2 4 > "$dir/launcher.log" 2>&1 &
    launcher=$!
    wait_for 2 "^rank [01] (pid [0-9]*): finalizing" 60
    sleep 0.5 # well inside the fence, which rank 2 joins 4 s after the others
    for r in 0 1; do
        p=$(sed -n 's/^rank [0-9]* (pid \([0-9]*\)): finalizing/\1/p' "$dir/out.$r")
        echo "sending SIGUSR1 to rank $r (pid $p) in rcmsg_finalize"
        kill -USR1 "$p"
    done
    wait "$launcher"
    st=$?
    cat "$dir/launcher.log" "$dir"/out.*
    [ $st -ne 124 ] || fail "SIGUSR1 in finalize: the job hung"
    for r in 0 1; do
        o="$dir/out.$r"
        grep -q "^rcmsg dump \[rank $r\]: begin (SIGUSR1)" "$o" || fail "rank $r printed no dump"
        grep -q "^rcmsg dump \[rank $r\]: finalize: waiting in the closing barrier of rcmsg_finalize for every rank" "$o" ||
            fail "rank $r's dump does not say that it waits in finalize's closing barrier"
        grep -q "^rcmsg dump \[rank $r\]: end" "$o" || fail "rank $r's dump has no end"
        grep -q "^rank $r: finalize: RCMSG_OK" "$o" || fail "rank $r did not finalize"
    done
    grep -q "^rank 2: finalize: RCMSG_OK" "$dir/out.2" || fail "rank 2 did not finalize"
    [ $st -eq 0 ] || fail "SIGUSR1 in finalize: the job exited with $st"
    echo "ok: SIGUSR1 in finalize's closing fence prints the dump; every rank finalizes, status 0"
}
