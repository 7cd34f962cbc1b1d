# SPDX-License-Identifier: BSD-3-Clause
# Losses while a rank computes (issue 41 item 3), shared by launcher/compute_host.sh and
# rc/rc_compute_bound.sh (sourced after lib.sh). launcher/compute_test (its header says what
# each mode does) writes $dir/out.R and $dir/log.R (rcmsg's log, each line prefixed by the wall
# time it was written at).
prog="$top_builddir/test/integration/launcher/compute_test"
dir=$(mktemp -d)
jobpid=""
cleanup() {
    [ -z "$jobpid" ] || kill -9 "$jobpid" 2> /dev/null
    for p in $(sed -n 's/^rank [0-9]* (pid \([0-9]*\)).*/\1/p' "$dir"/out.* 2> /dev/null); do
        kill -9 "$p" 2> /dev/null
    done
    ! command -v extra_cleanup > /dev/null || extra_cleanup
    rm -rf "$dir"
}
trap cleanup EXIT
# slack beyond a bound: 2 cores shared by several jobs (a load of 17 once delayed a rank's
# threads by 1.2 s: mpirun binds each rank to one core), and the sanitizer build is slower
slack=${COMPUTE_SLACK:-1.5}
[ "${SANITIZER_BUILD:-no}" = yes ] && slack=3
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
now() { date +%s.%N; }

# wait_out N PATTERN SECONDS: until each rank 0..N-1 has a line matching PATTERN in out.R
wait_out() {
    _i=0 _r=0
    while [ "$_r" -lt "$1" ]; do
        if grep -q -- "$2" "$dir/out.$_r" 2> /dev/null; then
            _r=$((_r + 1))
            continue
        fi
        _i=$((_i + 1))
        [ $_i -le $(($3 * 10)) ] || { show; fail "rank $_r: no '$2' in $3 s"; }
        sleep 0.1
    done
}

show() { for f in "$dir"/out.* "$dir"/log.* "$dir/job"; do [ -e "$f" ] && cat "$f"; done; }

# launch NP VAR=VALUE... -- LAUNCHER-COMMAND...: the job in the background ($jobpid)
launch() {
    rm -f "$dir"/*
    "$@" > "$dir/job" 2>&1 &
    jobpid=$!
}

# rank_pid R: the pid rank R printed
rank_pid() { sed -n "s/^rank $1 (pid \([0-9]*\)).*/\1/p" "$dir/out.$1"; }

# within_bound R WHAT PATTERN KILLED BOUND EXPECT: rank R logged PATTERN at most BOUND (+ slack)
# seconds after KILLED (wall time) and before its compute ended; its wait and its send after
# the compute returned EXPECT at once (100 ms)
within_bound() {
    _r=$1 _what=$2 _pat=$3 _killed=$4 _bound=$5 _expect=$6
    ! grep -q ThreadSanitizer "$dir"/log.* || { show; fail "$_what: a ThreadSanitizer report (above)"; }
    _line=$(grep -m 1 -- "$_pat" "$dir/log.$_r") || { show; fail "$_what: rank $_r logged no '$_pat'"; }
    _at=${_line%% *}
    _end=$(sed -n "s/^rank $_r: computing from [0-9.]* to \([0-9.]*\) .*/\1/p" "$dir/out.$_r")
    [ -n "$_end" ] || { show; fail "$_what: rank $_r did not finish its compute"; }
    _took=$(awk -v a="$_at" -v b="$_killed" 'BEGIN { printf "%.3f", a - b }')
    _max=$(awk -v a="$_bound" -v b="$slack" 'BEGIN { print a + b }')
    le "$_took" "$_max" || { show; fail "$_what: rank $_r logged it $_took s after, beyond the bound $_bound s (+$slack)"; }
    le "$_at" "$_end" || { show; fail "$_what: rank $_r logged it at $_at, after its compute ended ($_end)"; }
    for _op in wait send; do
        _l=$(grep "^rank $_r: $_op after compute: " "$dir/out.$_r") || { show; fail "$_what: rank $_r: no $_op after the compute"; }
        _ms=$(echo "$_l" | sed -n "s/.*: $_expect in \([0-9.]*\) ms$/\1/p")
        [ -n "$_ms" ] || { show; fail "$_what: rank $_r: $_l (not $_expect)"; }
        le "$_ms" 100 || { show; fail "$_what: rank $_r: its $_op took $_ms ms, not at once"; }
    done
    echo "ok: $_what: rank $_r logged it $_took s after (bound $_bound s), while computing (until $_end); its wait and send then failed with $_expect at once"
}

# init_fails LAUNCH-COMMAND...: rank 0's own threads cannot start: its rcmsg_init fails saying
# why, and rank 1's names rank 0
init_fails() {
    rm -f "$dir"/*
    run_timeout 120 env COMPUTE_FAIL_RANK=0 "$@" "$prog" init 0 "$dir" > "$dir/job" 2>&1
    if grep -q "^SKIP" "$dir/out.0"; then
        echo "SKIP (part): a thread that cannot start: $(grep -m 1 '^SKIP' "$dir/out.0")"
        return 0
    fi
    grep -q "^rank 0 (pid [0-9]*): init: RCMSG_ERR_IO$" "$dir/out.0" || { show; fail "rank 0's rcmsg_init did not fail with RCMSG_ERR_IO"; }
    grep -q "error: .*cannot start the .*thread (RCMSG_ASYNC_PROGRESS=control)" "$dir/log.0" ||
        { show; fail "rank 0 did not say that a thread could not start"; }
    grep -q "^rank 1 (pid [0-9]*): init: RCMSG_ERR_" "$dir/out.1" || { show; fail "rank 1's rcmsg_init did not fail"; }
    grep -q "error: peer 0 failed in rcmsg_init" "$dir/log.1" || { show; fail "rank 1 did not name rank 0"; }
    echo "ok: a thread that cannot start fails rcmsg_init: $(grep -m 1 'cannot start the' "$dir/log.0" | sed 's/^[0-9.]* //')"
}
