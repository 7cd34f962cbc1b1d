#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Monitoring over rc on Soft-RoCE (issue 16), monitor_test under mpirun (RCMSG_TRANSPORTS=
# rc,self; rank 0 on rxe0, rank 1 on rxe1), every message's bytes checked by the program:
# 1. counters: rank 0 sends rank 1 50 messages of 8 B (they fit the QP's max_inline: inline),
#    100 of 1000 B (eager, too big for max_inline's 256 B) and 10 rendezvous ones of 64 KiB
#    read in 16 KiB chunks (RCMSG_RNDV_CHUNK=16k: 4 reads each), and nothing else goes
#    between the two ranks (see monitor_host.sh): rank 0's line for peer 1 has exactly
#    msgs_sent_inline 50 (400 B), msgs_sent_eager 100 (100000 B), msgs_sent_rndv 10
#    (655360 B), ctrl_sent 0 (FINs and CREDITs only); rank 1's for peer 0 msgs_recv_eager
#    150 (100400 B: inline ones are eager ones received), msgs_recv_rndv 10 (655360 B),
#    reads 40 of 655360 B, ctrl_sent >= 10 (the FINs; as many as rank 0 received),
#    ctrl_recv 0; both: transport rc, a qpn, connects >= 1, cq_errors 0, credit_waits and
#    rndv_fallbacks 0 (RCMSG_EAGER_CREDITS=256); every counter present, the rank line sums
#    the peer lines; the RCMSG_STATS=peer table aligns
# 2. one 3-rank job (mpirun --enable-recovery), its modes between ranks 0 and 1 while rank 2
#    waits: (a) QP sync: RCMSG_QP_SYNC_INTERVAL=500ms; while both ranks idle (nothing posted:
#    only the sync can notice), rank 0 moves its QP to rank 1 into ERR behind the mirror's
#    back (rcmsg_rc_btl_force_qp_err) 3 times, at random phases of the period: each time the
#    connection recovered within 2 x 500 ms + 500 ms (the recovery's CM handshake and the
#    emulated guest; measured by the program from the forced ERR to the recovery counted);
#    rank 0 logged 3 "hardware says ERR, mirror RTS (qp state sync...); recovering" warnings
#    for peer 1 and counted as many qp_sync_mismatches as it logged; traffic after each
#    recovery intact. (b) a stuck send queue: rank 0's QP to rank 1 moved to SQD (it neither
#    completes nor fails what is posted: rcmsg_rc_btl_force_stuck) with a signaled request due:
#    the stuck-queue watch logs it once and recovers the connection after its bound (4 x the
#    device's retries + 5 s = 5.8 s here), the round trip waiting on it completes intact then.
#    The same with the round trip's SEND as the oldest request (stucksend: it may wait on rank
#    1's receive buffers, RCMSG_IB_RNR_RETRY=7): rank 0 probes rank 1 through the CM past the
#    bound, rank 1 answers (the qp rank 0 sends to, its buffers posted), and rank 0 recovers 2 s
#    later, naming the probe. (c) 3 recoveries forced by rank 0 (rcmsg_rc_btl_force_error): 8
#    recoveries counted on each side (3 + 2 + 3), 8 RECOVERED events each (one per recovery),
#    CONNECTED still once,
#    traffic checked after each. (d) callbacks: every rank got CONNECTED once for
#    each rc peer; rank 2 kills itself: ranks 0 and 1 get PEER_FAILED for it exactly once with
#    an error status (bounded by the liveness probe, RCMSG_IB_TIMEOUT=14 with 2 retries and
#    RCMSG_RECOVERY_TIMEOUT=2s) and no RECOVERED
# 3. dumps: rank 1 waits in a receive (tag 77, 64 B) with RCMSG_STALL_TIMEOUT=2s and prints
#    the stall's dump, naming the receive and its QP to rank 0 (RTS, hw RTS); then the script
#    sends SIGUSR1 to both ranks and takes `rdma -j resource show qp` at once: the QPNs and hw
#    states of each rank's "rc qp" lines of its SIGUSR1 dump are exactly the RC QPs rdma lists
#    for that pid, with the same states (all RTS), and each mirror state equals the hw one.
#    (Three jobs in all: an mpirun job costs ~8 s in the emulated guest.)
# MONITOR_PARTS="1 3" runs only those parts.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
. "$top_srcdir/test/integration/monitor_lib.sh"
RCMSG_TRANSPORTS=rc,self
export RCMSG_TRANSPORTS
part() { case " ${MONITOR_PARTS:-1 2 3 4} " in *" $1 "*) return 0 ;; esac; return 1; }
t00=$(date +%s)

if part 1; then
    echo "== 1. counters of a known traffic: 50 x 8 B inline, 100 x 1000 B eager, 10 x 64 KiB rendezvous"
    job traffic 120 2 RCMSG_STATS=peer "RCMSG_STATS_FILE=$work/stats.%r.json" \
        RCMSG_EAGER_CREDITS=256 RCMSG_RNDV_CHUNK=16k -- traffic 50x8 100x1000 10x65536
    [ $st -eq 0 ] || jobfail "traffic: mpirun exited with $st"
    grep -q '^rank 1: traffic: 160 messages received and checked, 0 failures$' "$out" ||
        jobfail "traffic: rank 1 did not receive the 160 messages intact"
    ok_ranks traffic traffic 2
    sel0='.scope == "peer" and .rank == 0 and .peer == 1'
    sel1='.scope == "peer" and .rank == 1 and .peer == 0'
    expect_json traffic "$work/stats.0.json" "$sel0" transport=rc 'qpn>=1' \
        msgs_sent_inline=50 bytes_sent_inline=400 msgs_sent_eager=100 bytes_sent_eager=100000 \
        msgs_sent_rndv=10 bytes_sent_rndv=655360 msgs_recv_eager=0 bytes_recv_eager=0 \
        msgs_recv_rndv=0 bytes_recv_rndv=0 reads=0 reads_bytes=0 credit_waits=0 \
        rndv_fallbacks=0 ctrl_sent=0 cq_errors=0 recoveries=0 'connects>=1' 'qp_transitions>=1'
    expect_json traffic "$work/stats.1.json" "$sel1" transport=rc 'qpn>=1' \
        msgs_recv_eager=150 bytes_recv_eager=100400 msgs_recv_rndv=10 bytes_recv_rndv=655360 \
        reads=40 reads_bytes=655360 msgs_sent_inline=0 bytes_sent_inline=0 msgs_sent_eager=0 \
        bytes_sent_eager=0 msgs_sent_rndv=0 bytes_sent_rndv=0 ctrl_recv=0 'ctrl_sent>=10' \
        credit_waits=0 rndv_fallbacks=0 cq_errors=0 recoveries=0 'connects>=1'
    c1=$(jq -r "select($sel1) | .ctrl_sent" "$work/stats.1.json")
    expect_json traffic "$work/stats.0.json" "$sel0" ctrl_recv="$c1"
    expect_json traffic "$work/stats.0.json" '.scope == "rank"' rank=0 size=2 'cqes>=1' \
        qp_sync_mismatches=0
    json_complete traffic "$work/stats.0.json"
    json_complete traffic "$work/stats.1.json"
    peer_tables traffic rc
    echo "ok: 1. counters over rc: exact, complete, summed, aligned ($(($(date +%s) - t00)) s so far)"
fi

# 2. one 3-rank job: qpsync and recover between ranks 0 and 1, then events (rank 2 killed)
if part 2; then
    echo "== 2. QP sync (RCMSG_QP_SYNC_INTERVAL=500ms), forced recoveries, callbacks; 3 ranks, rank 2 killed at the end"
    # the stuck-queue watch's bound (rc_sync.h): 4 x 3 tries of 4.096 us x 2^14, and 5 s
    stuck_bound=5.8
    job sync 150 3 --enable-recovery RCMSG_QP_SYNC_INTERVAL=500ms RCMSG_IB_TIMEOUT=14 \
        RCMSG_IB_RETRY_COUNT=2 RCMSG_RECOVERY_TIMEOUT=2s "RCMSG_STATS_FILE=$work/sync.%r.json" \
        -- qpsync 3 500 + stuck "$stuck_bound" + stucksend "$stuck_bound" + recover 3 + events rc
    grep '^rank [01]: \(qpsync\|stuck\|stucksend\|recover\|receive\)\|^rank [0-9]: event [A-Z_]* peer [0-9]* transport [a-z]* status [A-Z_]*' "$work/sync.out"
    grep -q '^rank 2: killing itself with SIGKILL' "$out" || jobfail "sync: rank 2 did not get to the kill"
    for m in qpsync stuck stucksend recover events; do
        each_rank 2 "$out" "$m:.* 0 failures$" ||
            jobfail "sync: ranks 0 and 1 did not both end $m with 0 failures"
    done
    each_rank 2 "$out" 'finalized$' || jobfail "sync: ranks 0 and 1 did not finalize"
    # the QP sync (the program checked the time): each of rank 0's first 3 recoveries with
    # peer 1 (qpsync comes first) was the sync's, its QP named by one mismatch line of rank 0;
    # no mismatch line names another QP to peer 1
    qps=
    for k in 1 2 3; do
        q=$(rank_logged 0 "$out" "warn: rc: connection to peer 1 recovered: qp 0x[0-9a-f]* -> .*, cause qp state sync: .*(recovery $k of this connection" |
            sed -n '1s/.* recovered: qp 0x\([0-9a-f]*\) -> .*/\1/p')
        [ -n "$q" ] || jobfail "sync: rank 0's recovery $k with peer 1 was not the qp state sync's"
        l=$(rank_logged 0 "$out" "warn: rc: qp 0x$q to peer 1: hardware says ERR, mirror RTS (qp state sync[^)]*); recovering")
        [ -n "$l" ] && [ -z "$(echo "$l" | sed -n 2p)" ] ||
            jobfail "sync: rank 0 did not log the mismatch of qp 0x$q (peer 1) once"
        qps="$qps -e 0x$q "
    done
    ! grep "^\[rcmsg [^]:]*:0 [0-9]*\] warn: rc: qp 0x[0-9a-f]* to peer 1: hardware says " "$out" | grep -v $qps ||
        jobfail "sync: rank 0 logged a mismatch of another QP to peer 1"
    # the counter: those 3, and the QP to the killed rank 2 when the sync found it first (at
    # most one line)
    l=$(rank_logged 0 "$out" "warn: rc: qp 0x[0-9a-f]* to peer 2: hardware says .*(qp state sync")
    [ -z "$(echo "$l" | sed -n 2p)" ] || jobfail "sync: rank 0 logged more than one mismatch with the killed rank 2"
    all=3
    [ -z "$l" ] || all=4
    expect_json sync "$work/sync.0.json" '.scope == "rank"' qp_sync_mismatches="$all" 'qp_syncs>=3'
    # the stuck queue: rank 0 logged its watch once, its recovery came from it
    l=$(rank_logged 0 "$out" "warn: rc: qp 0x[0-9a-f]* to peer 1: [0-9]* request(s) outstanding, the oldest (.*) without a completion for [0-9.]* s, beyond the device's retries (RCMSG_IB_TIMEOUT 14, RCMSG_IB_RETRY_COUNT 2: 5.8 s with the bytes and the slack); recovering")
    [ -n "$l" ] && [ -z "$(echo "$l" | sed -n 2p)" ] ||
        jobfail "sync: rank 0 did not log the stuck queue to peer 1 once"
    rank_logged 0 "$out" "warn: rc: connection to peer 1 recovered: .*cause no completion for [0-9]* s, beyond the device's retry bound" >/dev/null ||
        jobfail "sync: rank 0's recovery of the stuck queue does not name its cause"
    # the stuck SEND (stucksend): rank 0 probed rank 1 through the CM and recovered once rank 1
    # had answered (its warning says so: no answer, no recovery), naming the probe; the probe
    # and answer lines themselves are info and debug, checked by rc/rc_compute.sh part 5
    l=$(rank_logged 0 "$out" "warn: rc: qp 0x[0-9a-f]* to peer 1: [0-9]* request(s) outstanding, the oldest (SEND.*) without a completion for [0-9.]* s, .*, and the peer, probed, posted its receive buffers; recovering")
    [ -n "$l" ] && [ -z "$(echo "$l" | sed -n 2p)" ] ||
        jobfail "sync: rank 0 did not log the stuck SEND to peer 1 once"
    rank_logged 0 "$out" "warn: rc: connection to peer 1 recovered: .*cause no completion of a SEND for [0-9]* s though the peer, probed, had its receive buffers posted" >/dev/null ||
        jobfail "sync: rank 0's recovery of the stuck SEND does not name its cause"
    ! grep -q "sends to qp 0x[0-9a-f]*, but the peer's qp is" "$out" ||
        jobfail "sync: a probe found a pair connected to the wrong qp"
    # 3 by the sync, 2 by the stuck-queue watch, 3 forced: 8 recoveries on each side
    expect_json sync "$work/sync.0.json" '.scope == "peer" and .peer == 1' recoveries=8
    expect_json sync "$work/sync.1.json" '.scope == "peer" and .peer == 0' recoveries=8
    # the events, checked by monitor_test: 8 RECOVERED (3 by the sync, 2 stuck, 3 forced) and
    # CONNECTED once on each side of (0, 1); CONNECTED once for each other rank on every rank,
    # PEER_FAILED once for rank 2 with an error status on ranks 0 and 1; none after the checks
    # ('finalized')
    each_rank 2 "$out" 'recover: 3 forced, 8 recoveries in all, 8 RECOVERED events in all, 1 CONNECTED, 0 failures$' ||
        jobfail "sync: rank $_r did not get 8 RECOVERED events (and CONNECTED once) for its peer"
    each_rank 2 "$out" 'events: PEER_FAILED 1 for rank 2 (RCMSG_ERR_[A-Z_]*), 0 failures$' ||
        jobfail "sync: rank $_r did not get PEER_FAILED once for rank 2 with an error status"
    grep -q '^rank 2: events: CONNECTED once for each other rank over rc, 0 failures$' "$out" ||
        jobfail "sync: rank 2 did not get CONNECTED once for each other rank"
    echo "ok: 2. QP sync within 2 periods, a stuck queue and a stuck SEND (probed) recovered by the watch, 8 RECOVERED events each side, CONNECTED once, PEER_FAILED once ($(($(date +%s) - t00)) s so far)"
fi

# wait_dump NAME RANK KIND: until RANK's log in job NAME has a dump whose begin line matches
# KIND (STALL, SIGUSR1), ended (20 s at most)
wait_dump() {
    wait_file "$work/$1/pid.$2" 60
    i=0
    until sed -n "/^rcmsg dump \[rank $2\]: begin.*$3/,/^rcmsg dump \[rank $2\]: end/p" \
        "$work/$1/$(cat "$work/$1/pid.$2").log" 2> /dev/null | grep -q "^rcmsg dump \[rank $2\]: end"; do
        i=$((i + 1))
        [ $i -le 200 ] || { touch "$work/$1/go"; fail "$1: rank $2 did not print its $3 dump within 20 s"; }
        sleep 0.1
    done
}

# qps_of_dump LOG RANK: "QPN-in-decimal HW MIRROR" per "rc qp" line of RANK's SIGUSR1 dump, sorted
qps_of_dump() {
    sed -n "/^rcmsg dump \[rank $2\]: begin (SIGUSR1)/,/^rcmsg dump \[rank $2\]: end/p" "$1" |
        sed -n "s/^rcmsg dump \[rank $2\]: rc qp 0x\([0-9a-f]*\) .*state \([A-Z]*\) hw \([A-Z]*\).*/\1 \3 \2/p" |
        while read -r q hw mirror; do echo "$((0x$q)) $hw $mirror"; done | sort -n
}

# 3. the stall dump over rc, then the SIGUSR1 dumps against rdma resource show qp
if part 3; then
    echo "== 3. rank 1 idle in a receive with RCMSG_STALL_TIMEOUT=2s, then SIGUSR1 to both ranks and rdma resource show qp at once"
    command -v rdma > /dev/null || skip "rdma (iproute2) not found"
    start idle 120 2 RCMSG_STALL_TIMEOUT=2s -- idle
    wait_dump idle 1 STALL
    p0=$(cat "$work/idle/pid.0") p1=$(cat "$work/idle/pid.1")
    kill -USR1 "$p0" "$p1" || fail "idle: cannot signal the ranks"
    rdma -j resource show qp > "$work/rdma.json" 2> "$work/rdma.err"
    rst=$?
    wait_dump idle 1 SIGUSR1
    wait_dump idle 0 SIGUSR1
    touch "$work/idle/go"
    finish idle $jobpid
    [ $st -eq 0 ] || jobfail "idle: mpirun exited with $st"
    ok_ranks idle idle 2
    log1=$(rank_log idle 1) log0=$(rank_log idle 0)
    # rank 1: the stall's dump, naming its receive and its QP, then SIGUSR1's
    grep '^rcmsg dump' "$log1"
    recv='request recv peer 0 tag 77 ctx [0-9]* len 64 step posted'
    qp='rc qp 0x[0-9a-f]* peer 0 state RTS hw RTS '
    dump_is idle "$log1" 1 1 STALL "$recv" "$qp"
    dump_is idle "$log1" 1 2 SIGUSR1 "$recv" "$qp"
    no_dump idle "$log1" 1 3
    # rank 0 (nothing pending while it waits: it never stalls): SIGUSR1's dump only
    grep '^rcmsg dump \[rank 0\]: \(begin\|rc qp\)' "$log0"
    dump_is idle "$log0" 0 1 SIGUSR1
    no_dump idle "$log0" 0 2
    [ $rst -eq 0 ] || { cat "$work/rdma.err"; jobfail "rdma -j resource show qp failed ($rst)"; }
    for r in 0 1; do
        log=$(rank_log idle $r)
        pid=$(cat "$work/idle/pid.$r")
        qps_of_dump "$log" $r > "$work/dump.$r"
        [ -s "$work/dump.$r" ] || jobfail "idle: rank $r's SIGUSR1 dump has no 'rc qp 0x.. ... state S hw S' line"
        awk '$2 != $3 { exit 1 }' "$work/dump.$r" ||
            { cat "$work/dump.$r"; jobfail "idle: rank $r: a mirror state differs from the hw one while idle"; }
        cut -d' ' -f1,2 "$work/dump.$r" > "$work/dumpqp.$r"
        jq -r --argjson pid "$pid" '(if type == "object" then .qp else . end) | .[] |
            select(.pid == $pid and .type == "RC") | "\(.lqpn) \(.state)"' "$work/rdma.json" |
            sort -n > "$work/rdmaqp.$r" || jobfail "idle: jq cannot read rdma's output"
        echo "rank $r (pid $pid): rcmsg's dump (qpn hw):" $(cat "$work/dumpqp.$r") \
            "| rdma resource show qp (lqpn state):" $(cat "$work/rdmaqp.$r")
        cmp -s "$work/dumpqp.$r" "$work/rdmaqp.$r" || {
            jq . "$work/rdma.json" | head -80
            jobfail "idle: rank $r: rcmsg's QPNs and states differ from rdma resource show qp's"
        }
    done
    echo "ok: 3. the stall dump over rc; both ranks' SIGUSR1 dumps agree with rdma resource show qp ($(($(date +%s) - t00)) s so far)"
fi

# 4. idle recycling: DISCONNECTED events and the disconnects counter
if part 4; then
    echo "== 4. RCMSG_QP_MAX_ACTIVE=1, lazy: rank 0 talks to 1 then 2, its connection to 1 recycled"
    job recycle 120 3 RCMSG_CONNECT=lazy RCMSG_QP_MAX_ACTIVE=1 \
        "RCMSG_STATS_FILE=$work/recycle.%r.json" -- recycle
    [ $st -eq 0 ] || jobfail "recycle: mpirun exited with $st"
    ok_ranks recycle recycle 3
    grep '^rank [0-2]: event DISCONNECTED' "$out"
    for pair in "0 1" "1 0"; do
        set -- $pair
        grep -q "^rank $1: event DISCONNECTED peer $2 transport rc status RCMSG_OK cause qp 0x" "$out" ||
            jobfail "recycle: rank $1 got no DISCONNECTED event for peer $2"
        expect_json recycle "$work/recycle.$1.json" ".scope == \"peer\" and .peer == $2" \
            disconnects=1 connects=1
    done
    echo "ok: 4. recycling: DISCONNECTED on both sides, disconnects counted ($(($(date +%s) - t00)) s so far)"
fi
pass "monitoring over rc: exact counters, QP sync within 2 periods, dump = rdma resource show qp, callbacks, recycling"
