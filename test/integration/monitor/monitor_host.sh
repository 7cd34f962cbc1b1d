#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Monitoring over shared memory on the host (issue 16), monitor_test under mpirun
# (RCMSG_TRANSPORTS=sm,self), every message's bytes checked by the program:
# 1. counters: rank 0 sends rank 1 100 eager messages of 100 B and 10 rendezvous ones of
#    64 KiB, and nothing else goes between the two ranks (no collective; init and the closing
#    barrier of finalize go through the launcher): with RCMSG_STATS_FILE, rank 0's line for
#    peer 1 has exactly msgs_sent_eager 100, bytes_sent_eager 10000, msgs_sent_rndv 10,
#    bytes_sent_rndv 655360, nothing inline, nothing received, ctrl_sent 0 (control messages
#    are FINs and CREDITs; an RTS is the rendezvous message itself; rank 0 receives no eager
#    message, so owes no credit); rank 1's line for peer 0 the same as received, and reads 10
#    (one CMA read per message) of 655360 bytes, nothing sent but control messages (10 FINs
#    at least, and as many as rank 0 received), none received. RCMSG_EAGER_CREDITS
#    =256 so that no eager send can run out of credits and fall back to rendezvous (with 32 it
#    depends on timing): credit_waits and rndv_fallbacks 0. Every counter of the spec is on
#    every peer line; the rank line sums them. With RCMSG_STATS=peer each rank prints its
#    table on stderr at finalize: the header and the rows of both ranks align, and rank 0's
#    row for peer 1 and rank 1's for peer 0 are there
# 2. stall dump: rank 1 waits for a receive (any source, tag 77, 64 B) that rank 0 sends only
#    after 4 s; with RCMSG_STALL_TIMEOUT=2s rank 1 prints the dump once (not again in the
#    2 s of stall that follow), naming the receive ("request recv peer any tag 77 ... len
#    64") and its sm peer; rank 0 prints none; the receive completes with its data. And
#    RCMSG_STATS=summary: a header and one line per rank, aligned (each rank's own counters
#    as columns after the peers' sums; stall_dumps 1 on rank 1).
#    Then with RCMSG_WAIT_MODE=event (the wait sleeps) and SIGUSR1 sent to rank 1 after 1 s:
#    two dumps, SIGUSR1's and then the stall's, each naming the pending receive. And a stall
#    in an ibarrier (rank 0 starts it after 4 s): the dump names its request as a collective
# 3. SIGUSR1: the script sends SIGUSR1 to rank 1 during 3 s of checked ping-pong (64 B and
#    100 KiB): its dump is printed once, and the run completes (exit 0, data checked)
# 4. callbacks: 3 ranks (mpirun --enable-recovery keeps the survivors); each rank's handler
#    (set before rcmsg_init) got CONNECTED once for each other rank, over sm; rank 2 kills
#    itself: ranks 0 and 1 get PEER_FAILED for rank 2 exactly once, with an error status
# 5. bad settings, in a 1-rank job: RCMSG_STATS=bogus, RCMSG_STALL_TIMEOUT=-1 and
#    RCMSG_QP_SYNC_INTERVAL=soon fail rcmsg_init naming the variable and the value;
#    RCMSG_STATS_FILE in a directory that does not exist fails rcmsg_init naming the file
#    (stats_file_host.sh has the other cases); rcmsg_info --counters describes every counter of the JSON lines,
#    rcmsg_info --dump every kind of dump line
# MONITOR_PARTS="1 3" runs only those parts.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
. "$top_srcdir/test/integration/monitor_lib.sh"
RCMSG_TRANSPORTS=sm,self
export RCMSG_TRANSPORTS
part() { case " ${MONITOR_PARTS:-1 2 3 4 5} " in *" $1 "*) return 0 ;; esac; return 1; }

if part 1; then
    echo "== 1. counters of a known traffic: 100 x 100 B eager, 10 x 64 KiB rendezvous, rank 0 -> 1"
    job traffic 120 2 RCMSG_STATS=peer "RCMSG_STATS_FILE=$work/stats.%r.json" \
        RCMSG_EAGER_CREDITS=256 -- traffic 100x100 10x65536
    [ $st -eq 0 ] || jobfail "traffic: mpirun exited with $st"
    grep -q '^rank 1: traffic: 110 messages received and checked, 0 failures$' "$out" ||
        jobfail "traffic: rank 1 did not receive the 110 messages intact"
    ok_ranks traffic traffic 2
    sel0='.scope == "peer" and .rank == 0 and .peer == 1'
    sel1='.scope == "peer" and .rank == 1 and .peer == 0'
    expect_json traffic "$work/stats.0.json" "$sel0" transport=sm \
        msgs_sent_inline=0 bytes_sent_inline=0 msgs_sent_eager=100 bytes_sent_eager=10000 \
        msgs_sent_rndv=10 bytes_sent_rndv=655360 msgs_recv_eager=0 bytes_recv_eager=0 \
        msgs_recv_rndv=0 bytes_recv_rndv=0 reads=0 reads_bytes=0 credit_waits=0 \
        rndv_fallbacks=0 ctrl_sent=0 cq_errors=0 recoveries=0
    expect_json traffic "$work/stats.1.json" "$sel1" transport=sm \
        msgs_recv_eager=100 bytes_recv_eager=10000 msgs_recv_rndv=10 bytes_recv_rndv=655360 \
        reads=10 reads_bytes=655360 msgs_sent_inline=0 bytes_sent_inline=0 msgs_sent_eager=0 \
        bytes_sent_eager=0 msgs_sent_rndv=0 bytes_sent_rndv=0 ctrl_recv=0 'ctrl_sent>=10' \
        credit_waits=0 rndv_fallbacks=0 cq_errors=0 recoveries=0
    c1=$(jq -r "select($sel1) | .ctrl_sent" "$work/stats.1.json")
    expect_json traffic "$work/stats.0.json" "$sel0" ctrl_recv="$c1"
    expect_json traffic "$work/stats.0.json" '.scope == "rank"' rank=0 size=2
    expect_json traffic "$work/stats.1.json" '.scope == "rank"' rank=1 size=2
    json_complete traffic "$work/stats.0.json"
    json_complete traffic "$work/stats.1.json"
    peer_tables traffic sm
    echo "ok: 1. counters over sm: exact, complete, summed, aligned"
fi

if part 2; then
    echo "== 2. stall dump: a receive unmatched for 4 s, RCMSG_STALL_TIMEOUT=2s"
    job stall 120 2 RCMSG_STALL_TIMEOUT=2s RCMSG_STATS=summary -- stall
    [ $st -eq 0 ] || jobfail "stall: mpirun exited with $st"
    ok_ranks stall stall 2
    log1=$(rank_log stall 1) log0=$(rank_log stall 0)
    dump_once stall "$log1" 1 'stall\|STALL'
    grep '^rcmsg dump \[rank 1\]: begin' "$log1" | grep -q ' 2\.[0-9] s' ||
        jobfail "stall: the dump's begin line does not give the 2 s of RCMSG_STALL_TIMEOUT"
    grep -q '^rcmsg dump \[rank 1\]: request recv peer any tag 77 ctx [0-9]* len 64 step ' "$log1" ||
        jobfail "stall: the dump does not name the receive (recv peer any tag 77 ... len 64)"
    grep -q '^rcmsg dump \[rank 1\]: peer 0 sm ' "$log1" ||
        jobfail "stall: the dump has no line for the sm connection to peer 0"
    ! grep -q '^rcmsg dump' "$log0" || jobfail "stall: rank 0 (nothing pending) printed a dump"
    # summary: the header and one row per rank (peer "all", then the rank's own counters as
    # columns too), aligned
    grep -h '^rcmsg stats: *rank ' "$work/stall"/*.log > "$work/table"
    grep -h '^rcmsg stats: *[0-9]* *all ' "$work/stall"/*.log >> "$work/table"
    aligned "stall: RCMSG_STATS=summary" "$work/table"
    for r in 0 1; do
        rows=$(awk -v r=$r '$3 == r && $4 == "all"' "$work/table")
        [ -n "$rows" ] && [ -z "$(echo "$rows" | sed -n 2p)" ] ||
            jobfail "stall: RCMSG_STATS=summary: not one row of rank $r"
    done
    col=$(head -1 "$work/table" | awk '{ for (i = 1; i <= NF; i++) if ($i == "stall_dumps") print i }')
    [ -n "$col" ] && awk -v c="$col" '$3 == "1" && $4 == "all" && $c == 1' "$work/table" | grep -q . ||
        jobfail "stall: rank 1's stall_dumps is not 1"
    echo "ok: 2. stall dump printed once, naming the receive"
    echo "== 2b. the same with RCMSG_WAIT_MODE=event (the wait sleeps), and SIGUSR1 to rank 1 after 1 s"
    start stallev 120 2 RCMSG_STALL_TIMEOUT=2s RCMSG_WAIT_MODE=event -- stall
    wait_file "$work/stallev/pid.1" 60
    sleep 1
    kill -USR1 "$(cat "$work/stallev/pid.1")" || fail "stallev: cannot signal rank 1"
    finish stallev $jobpid
    [ $st -eq 0 ] || jobfail "stallev: mpirun exited with $st (did SIGUSR1 kill rank 1?)"
    ok_ranks stallev stall 2
    log1=$(rank_log stallev 1)
    grep '^rcmsg dump' "$log1"
    # two dumps, each naming the receive still pending: SIGUSR1's (while the wait slept),
    # then the stall's (a dump is no progress)
    recv='request recv peer any tag 77 ctx [0-9]* len 64 step '
    dump_is stallev "$log1" 1 1 SIGUSR1 "$recv"
    dump_is stallev "$log1" 1 2 STALL "$recv"
    no_dump stallev "$log1" 1 3
    echo "ok: 2b. a sleeping wait prints SIGUSR1's dump and the stall dump"
    echo "== 2c. stall dump in a nonblocking collective (rank 1's ibarrier waits 4 s for rank 0)"
    job stallnbc 120 2 RCMSG_STALL_TIMEOUT=2s -- stall_nbc
    [ $st -eq 0 ] || jobfail "stallnbc: mpirun exited with $st"
    ok_ranks stallnbc stall_nbc 2
    log1=$(rank_log stallnbc 1)
    grep '^rcmsg dump' "$log1"
    # the collective's request is named as one, its receive from rank 0 as a receive; no
    # phantom receive from rank 0 of length 0 (the collective's own request, misnamed)
    grep -q '^rcmsg dump \[rank 1\]: request collective peer - ' "$log1" &&
        grep -q '^rcmsg dump \[rank 1\]: request recv peer 0 tag [0-9]* ctx [0-9]* (collective) ' "$log1" &&
        ! grep -q '^rcmsg dump \[rank 1\]: request recv peer 0 tag 0 ctx 0 len 0 ' "$log1" ||
        jobfail "stallnbc: the dump does not name the nonblocking collective as one"
    echo "ok: 2c. the stall dump names a nonblocking collective's request as a collective"
fi

if part 3; then
    echo "== 3. SIGUSR1 to rank 1 during 3 s of ping-pong"
    start sigusr1 120 2 -- pingpong 3
    wait_file "$work/sigusr1/pid.1" 60
    sleep 1
    kill -USR1 "$(cat "$work/sigusr1/pid.1")" || fail "sigusr1: cannot signal rank 1"
    finish sigusr1 $jobpid
    [ $st -eq 0 ] || jobfail "sigusr1: mpirun exited with $st (did SIGUSR1 kill rank 1?)"
    ok_ranks sigusr1 pingpong 2
    dump_once sigusr1 "$(rank_log sigusr1 1)" 1 SIGUSR1
    ! grep -q '^rcmsg dump' "$(rank_log sigusr1 0)" || jobfail "sigusr1: rank 0 printed a dump"
    echo "ok: 3. SIGUSR1: one dump, the ping-pong completed with its data checked"
fi

if part 4; then
    echo "== 4. callbacks over sm: CONNECTED at init, PEER_FAILED for a killed rank"
    job events 120 3 --enable-recovery -- events sm
    grep '^rank [0-9]*: event ' "$out"
    grep -q '^rank 2: killing itself with SIGKILL' "$out" || jobfail "events: rank 2 did not get to the kill"
    ok_ranks events events 2
    # checked by monitor_test: CONNECTED once for each other rank, PEER_FAILED once for rank 2
    # with an error status on ranks 0 and 1, none for a live rank; none after ('finalized')
    each_rank 2 "$out" 'events: PEER_FAILED 1 for rank 2 (RCMSG_ERR_[A-Z_]*), 0 failures$' ||
        jobfail "events: rank $_r did not get PEER_FAILED once for rank 2 with an error status"
    grep -q '^rank 2: events: CONNECTED once for each other rank over sm, 0 failures$' "$out" ||
        jobfail "events: rank 2 did not get CONNECTED once for each other rank"
    echo "ok: 4. callbacks over sm"
fi

if part 5; then
    echo "== 5. bad settings"
    for bad in RCMSG_STATS=bogus RCMSG_STALL_TIMEOUT=-1 RCMSG_QP_SYNC_INTERVAL=soon; do
        run_timeout 60 env "$bad" "$prog" init > "$work/bad" 2>&1
        st=$?
        cat "$work/bad"
        [ $st -ne 124 ] || fail "$bad: hung"
        [ $st -ne 0 ] || fail "$bad: accepted (exit 0)"
        grep ' error: ' "$work/bad" | grep "${bad%%=*}" | grep -q -- "${bad#*=}" ||
            fail "$bad: no error line naming the variable and the value"
        grep -q '^rcmsg_init: RCMSG_ERR_CONFIG$' "$work/bad" ||
            fail "$bad: rcmsg_init did not fail with RCMSG_ERR_CONFIG"
        echo "ok: $bad refused"
    done
    f=$work/nonexistent/stats.%r.json
    run_timeout 60 env RCMSG_STATS_FILE="$f" "$prog" init > "$work/bad" 2>&1
    st=$?
    cat "$work/bad"
    [ $st -ne 0 ] && [ $st -ne 124 ] || fail "RCMSG_STATS_FILE in a missing directory: exit $st"
    grep ' error: RCMSG_STATS_FILE=' "$work/bad" | grep -q -F "$work/nonexistent/stats.0.json" ||
        fail "RCMSG_STATS_FILE in a missing directory: no error line naming $work/nonexistent/stats.0.json"
    grep -q '^rcmsg_init: RCMSG_ERR_CONFIG$' "$work/bad" ||
        fail "RCMSG_STATS_FILE in a missing directory: rcmsg_init did not fail (issue 38 item 14)"
    echo "ok: RCMSG_STATS_FILE in a missing directory: rcmsg_init fails naming the file"
    run_timeout 60 env RCMSG_STATS_FILE="$work/single.%r.%p.json" "$prog" init > "$work/bad" 2>&1 ||
        fail "a 1-rank job with RCMSG_STATS_FILE: exit $?"
    f=$(ls "$work"/single.0.[0-9]*.json 2> /dev/null) || fail "no $work/single.0.PID.json (%r and %p)"
    expect_json singleton "$f" '.scope == "rank"' rank=0 size=1
    # rcmsg_info describes every counter the JSON lines carry, and every kind of dump line
    info=$top_builddir/src/tools/rcmsg_info
    keys=$(jq -r 'select(.scope == "rank") | keys[]' "$f" | grep -v '^\(scope\|rank\|size\|cq_errors_by_status\)$')
    ncounters=$(jq -r 'select(.scope == "rank") | del(.scope, .rank, .size, .cq_errors_by_status) | length' "$f")
    [ "$ncounters" -ge 29 ] || fail "the rank line has only $ncounters counters"
    "$info" --counters > "$work/info" || fail "rcmsg_info --counters failed"
    for k in $keys $PEER_KEYS; do
        grep -q "^$k  *[^ ]" "$work/info" || { cat "$work/info"; fail "rcmsg_info --counters does not describe $k"; }
    done
    grep -q 'cq_errors_by_status' "$work/info" || fail "rcmsg_info --counters does not mention cq_errors_by_status"
    "$info" --dump > "$work/info" || fail "rcmsg_info --dump failed"
    for k in 'begin' 'request' 'unexpected' 'peer' 'rc qp' 'rc cm' 'end'; do
        grep -q "^$k\b" "$work/info" || { cat "$work/info"; fail "rcmsg_info --dump does not describe '$k' lines"; }
    done
    echo "ok: rcmsg_info describes every counter and every dump line"
fi
pass "monitoring over sm: exact counters, stall dump, SIGUSR1 dump, event callbacks, bad settings"
