# SPDX-License-Identifier: BSD-3-Clause
# Helpers for the integration test scripts (sourced). Exit codes: 0 pass, 1 fail, 77 skip.
set -u
pass() { echo "PASS: $*"; exit 0; }
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
need_rdma() {
    [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ] ||
        skip "no RDMA device here (these tests run inside the Soft-RoCE guest: make check-rdma)"
}
need_mpirun() {
    [ -n "${MPIRUN:-}" ] && [ -x "$MPIRUN" ] || skip "mpirun not found (apt-get install openmpi-bin)"
}
# ranks_passed NP FILE: each rank R of the NP printed its own verdict with no failure ("rank R
# of NP: ... 0 failure(s)" or "rank R: ... 0 failure(s)", test_check.h's programs) in FILE and
# no line says FAIL: the programs check their results; nothing counts lines
ranks_passed() {
    ! grep -q '^FAIL' "$2" || return 1
    _r=0
    while [ "$_r" -lt "$1" ]; do
        grep -q "\(^\|[^0-9a-z_]\)rank $_r\( of $1\)\{0,1\}: \(.*[ ,]\)\{0,1\}0 failure(s)\$" "$2" || return 1
        _r=$((_r + 1))
    done
}
# each_rank NP FILE TEXT: each rank R of 0 to NP-1 printed its own line "rank R: TEXT" (a grep
# pattern) in FILE: a per-rank assertion in place of counting lines
each_rank() {
    _r=0
    while [ "$_r" -lt "$1" ]; do
        grep -q "^rank $_r: $3" "$2" || return 1
        _r=$((_r + 1))
    done
}
# one_line FILE PATTERN: exactly one line of FILE matches PATTERN (a grep pattern): the line is
# there and no second one is (an assertion about one named line, not a count)
one_line() { _l=$(grep -m 2 -- "$2" "$1") && [ -z "$(echo "$_l" | sed -n 2p)" ]; }
# rank_logged R FILE TEXT: the first two lines of FILE rank R's library logged with TEXT (a grep
# pattern from the level on: "warn: rc: ..."), under log.c's prefix "[rcmsg HOST:R PID] "
rank_logged() { grep -m 2 "^\[rcmsg [^]:]*:$1 [0-9]*\] $3" "$2"; }
# each_rank_logged NP FILE TEXT [once]: each rank R of 0 to NP-1 logged TEXT (rank_logged), and
# with once no rank logged it twice: a per-rank assertion in place of a total count; on failure
# $bad names the first rank that did not
each_rank_logged() {
    _r=0
    while [ "$_r" -lt "$1" ]; do
        _l=$(rank_logged "$_r" "$2" "$3")
        [ -n "$_l" ] || { bad="rank $_r did not log '$3'"; return 1; }
        [ "${4:-}" != once ] || [ -z "$(echo "$_l" | sed -n 2p)" ] ||
            { bad="rank $_r logged '$3' more than once"; return 1; }
        _r=$((_r + 1))
    done
}
# each_pair_logged NP FILE BEFORE AFTER: each rank R of 0 to NP-1 logged "BEFORE P AFTER" (grep
# patterns, rank_logged) exactly once for each other rank P and never for itself: one line per
# rank and peer, asserted pair by pair; on failure $bad names the rank and the peer
each_pair_logged() {
    _r=0
    while [ "$_r" -lt "$1" ]; do
        _p=0
        while [ "$_p" -lt "$1" ]; do
            _l=$(rank_logged "$_r" "$2" "$3$_p$4")
            if [ "$_p" -eq "$_r" ]; then
                [ -z "$_l" ] || { bad="rank $_r logged '$3$_p$4' of itself"; return 1; }
            elif [ -z "$_l" ] || [ -n "$(echo "$_l" | sed -n 2p)" ]; then
                bad="rank $_r did not log '$3$_p$4' exactly once"
                return 1
            fi
            _p=$((_p + 1))
        done
        _r=$((_r + 1))
    done
}
# run_timeout SECONDS COMMAND...: a hang becomes a failure with status 124
run_timeout() { t=$1; shift; timeout -k 10 "$t" "$@"; }
# stats_sum NAME DIR: counter NAME summed over every peer line of the RCMSG_STATS_FILE outputs
# DIR/stats.*.json (0 when there is none)
stats_sum() {
    cat "$2"/stats.*.json 2> /dev/null | grep '"scope":"peer"' |
        grep -o "\"$1\":[0-9]*" | awk -F: '{ n += $2 } END { print n + 0 }'
}
# cm_loss DEV PCT: netem drops PCT% of the rc connection manager's UD packets leaving DEV (RoCE
# v2 on UDP port 4791 with the BTH opcode 0x64, UD SEND only), not the RC traffic: random loss
# of RC data makes rxe stall its RDMA reads ("rdma_rxe: Failed sending ACK") until a timeout.
# Replaces DEV's root qdisc; the caller deletes it.
cm_loss() {
    tc qdisc add dev "$1" root handle 1: prio &&
        tc qdisc add dev "$1" parent 1:3 handle 30: netem loss "$2%" &&
        tc filter add dev "$1" parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff \
            match ip dport 4791 0xffff match u8 0x64 0xff at 28 flowid 1:3
}

# mpirun_job SECONDS NP LOGVAR LOGDIR PROGRAM [VAR=VALUE | MPIRUN-OPTION]... -- ARGS...: runs
# PROGRAM ARGS under mpirun (NP ranks, oversubscribed, the MPIRUN-OPTIONs added) bounded by
# run_timeout SECONDS, with the VARs and LOGVAR=LOGDIR in its environment (the test programs
# write each process's log to LOGDIR/PID.log: test_log.h).
mpirun_job() {
    _secs=$1 _np=$2 _logvar=$3 _logdir=$4 _prog=$5
    shift 5
    _vars='' _opts=''
    while [ "$1" != -- ]; do
        case $1 in
        *=*) _vars="$_vars $1" ;;
        *) _opts="$_opts $1" ;;
        esac
        shift
    done
    shift
    run_timeout "$_secs" env $_vars "$_logvar=$_logdir" "$MPIRUN" --allow-run-as-root \
        -np "$_np" --oversubscribe $_opts "$_prog" "$@"
}

# Jobs in the background of one test program that writes a log file per process (test_log.h),
# for monitor_lib.sh and rc_recovery.sh. The caller sets prog, work, job_logvar (the program's
# variable naming its log directory), job_hide (a grep pattern: the lines finish does not show),
# job_show (the lines jobfail shows) and job_what (what they are, in words).
# start NAME SECONDS NP [VAR=VALUE | MPIRUN-OPTION]... -- ARGS...: its output in $work/NAME.out,
# each process's log in $work/NAME/PID.log; the job's pid in $jobpid
start() {
    name=$1 secs=$2 np=$3
    shift 3
    job_dmesg0=$(dmesg 2> /dev/null | wc -l)
    mkdir -p "$work/$name"
    mpirun_job "$secs" "$np" "$job_logvar" "$work/$name" "$prog" "$@" > "$work/$name.out" 2>&1 &
    jobpid=$!
}

# finish NAME PID: waits for the job; $st: its status, $out: its output and logs; a hang fails
finish() {
    wait "$2"
    st=$?
    out=$work/$1.all
    cat "$work/$1.out" "$work/$1"/*.log > "$out" 2> /dev/null
    grep -v "$job_hide" "$work/$1.out"
    [ $st -ne 124 ] || jobfail "$1: hung (killed by the timeout)"
}

# streams_clean NAME NP [PEERS]: each of ranks 0 to NP-1 printed a stream line of
# rc_recovery_test (to PEERS, a grep bracket expression) with nothing lost, duplicated,
# reordered, and no stream line to PEERS says otherwise
streams_clean() {
    grep "^rank [0-9]*: stream: peer" "$out"
    _clean="received [1-9][0-9]* ([0-9]* bytes), lost 0, duplicated 0, out of order 0, corrupt 0, errors 0;"
    each_rank "$2" "$out" "stream: peer ${3:-[0-9]*}: $_clean" &&
        ! grep "^rank [0-9]*: stream: peer ${3:-[0-9]*}: " "$out" | grep -qv ": $_clean" ||
        jobfail "$1: not every stream of ranks 0 to $(($2 - 1)) received everything once and in order"
}

# killed_ok RANK KILLED BOUND: rc_recovery_test's kill: RANK's requests to the SIGKILLed rank
# KILLED failed with RCMSG_ERR_CONNECTION, the last of them within BOUND s of the kill ($secs)
killed_ok() {
    line=$(grep "^rank $1: peer $2 failed:" "$out") || jobfail "kill: rank $1: no outcome for rank $2"
    echo "$line" | grep -q 'first error RCMSG_ERR_CONNECTION after' ||
        jobfail "kill: rank $1: its requests to rank $2 did not fail with RCMSG_ERR_CONNECTION"
    secs=$(echo "$line" | sed 's/.* all its requests done after \([0-9.-]*\) s.*/\1/')
    awk -v s="$secs" -v b="$3" 'BEGIN { exit !(s <= b) }' ||
        jobfail "kill: rank $1: its requests to rank $2 ended $secs s after the kill, beyond $3 s"
}

# jobfail WHY: the job's lines of $job_show (the last 200), then FAIL; with JOB_KEEP=DIR set,
# the job's whole output is copied to DIR first
jobfail() {
    # JOB_KEEP=DIR: the failed job's whole output and logs (debug lines too) kept there
    [ -z "${JOB_KEEP:-}" ] || { mkdir -p "$JOB_KEEP" && cp "$out" "$JOB_KEEP/" &&
        echo "(the job's whole output and logs: $JOB_KEEP/$(basename "$out"))"; }
    echo "---- the job's $job_what:"
    grep "$job_show" "$out" | tail -200
    echo "---- the job's own FAIL lines (the first 5):"
    grep '^FAIL' "$out" | head -5
    # a stall of the kernel under the job (Debian 6.1's rdma_rxe runs the requester inside
    # ibv_post_send and can spin there for tens of seconds: rc_recovery.sh part 7), in its words
    dmesg 2> /dev/null | tail -n +$((${job_dmesg0:-0} + 1)) |
        grep -E 'soft lockup|blocked for more than|rcu_sched .*stall|rcu: INFO' | head -5 |
        sed 's/^/---- the kernel reported during the job: /'
    fail "$*"
}
