#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Monitoring over rc on Soft-RoCE (issue 16), monitor_test under mpirun (RCMSG_TRANSPORTS=
# rc,self; rank 0 on rxe0, rank 1 on rxe1), every message's bytes checked by the program:
# 1. counters: rank 0 sends rank 1 50 messages of 8 B (they fit the QP's max_inline: inline),
#    100 of 1000 B (eager, too big for max_inline's 256 B) and 10 rendezvous ones of 64 KiB
#    read in 16 KiB chunks (RCMSG_RNDV_CHUNK=16k: 4 reads each), and nothing else goes
#    between the two ranks (see monitor_host.sh): rank 0's line for peer 1 has exactly
#    msgs_sent_inline 50 (400 B), msgs_sent_eager 100 (100000 B), msgs_sent_rndv 10
#    (655360 B), ctrl_sent 0 (FINs and CREDITs only); rank 1's for peer 0 msgs_recv_eager 150 (100400 B:
#    inline ones are eager ones received), msgs_recv_rndv 10 (655360 B), reads 40 of
#    655360 B, ctrl_sent >= 10 (the FINs; as many as rank 0 received), ctrl_recv 0; both: transport rc, a qpn, connects >= 1, cq_errors 0, credit_waits and
#    rndv_fallbacks 0 (RCMSG_EAGER_CREDITS=256); every counter present, the rank line sums
#    the peer lines; the RCMSG_STATS=peer tables align
# 2. QP sync: RCMSG_QP_SYNC_INTERVAL=500ms; while both ranks idle (nothing posted: only the
#    sync can notice), rank 0 moves its QP to rank 1 into ERR behind the mirror's back
#    (rcmsg_rc_btl_force_qp_err) 3 times, at random phases of the period: each time the
#    connection recovered within 2 x 500 ms + 500 ms (the recovery's CM handshake and the
#    emulated guest; measured by the program from the forced ERR to the recovery counted),
#    rank 0 logged 3 "hardware says ERR, mirror RTS (qp state sync); recovering" warnings and
#    counted qp_sync_mismatches 3, and the traffic after each recovery is intact
# 3. dumps: a receive unmatched for 4 s with RCMSG_STALL_TIMEOUT=2s prints rank 1's dump once,
#    naming the receive and its QP to rank 0 (RTS, hw RTS); then, against the hardware: both
#    ranks idle (rank 1 in a blocking receive); the script
#    sends SIGUSR1 to both and takes `rdma -j resource show qp` at once: the QPNs and hw
#    states of each rank's "rc qp" dump lines are exactly the RC QPs rdma lists for that pid,
#    with the same states (all RTS), and each mirror state equals the hw one
# 4. callbacks: CONNECTED once for each rc peer; 3 ranks (mpirun --enable-recovery), rank 2
#    killed: ranks 0 and 1 get PEER_FAILED for it exactly once with an error status (bounded
#    by the liveness probe, RCMSG_IB_TIMEOUT=14 with 2 retries and RCMSG_RECOVERY_TIMEOUT=2s);
#    2 ranks: 3 recoveries forced by rank 0 (rcmsg_rc_btl_force_error) give 3 RECOVERED
#    events on each side, traffic checked after each
# MONITOR_PARTS="1 3" runs only those parts.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
command -v jq > /dev/null || skip "jq not found (apt-get install jq)"
prog=$top_builddir/test/integration/monitor_test
work=$(mktemp -d) out=/dev/null
trap 'rm -rf "$work"' EXIT
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
    grep -h '^rcmsg stats:' "$work/traffic"/*.log > "$work/table"
    aligned "traffic: RCMSG_STATS=peer" "$work/table"
    for pair in "0 1" "1 0"; do
        set -- $pair
        awk -v r=$1 -v p=$2 '$3 == r && $4 == p && $5 == "rc" { f = 1 } END { exit !f }' \
            "$work/table" || jobfail "traffic: no RCMSG_STATS=peer row 'rank $1 peer $2 rc'"
    done
    echo "ok: 1. counters over rc: exact, complete, summed, aligned ($(($(date +%s) - t00)) s so far)"
fi

if part 2; then
    echo "== 2. QP sync: a QP moved into ERR behind the mirror's back, RCMSG_QP_SYNC_INTERVAL=500ms"
    job qpsync 120 2 RCMSG_QP_SYNC_INTERVAL=500ms "RCMSG_STATS_FILE=$work/sync.%r.json" \
        -- qpsync 3 500
    grep '^rank 0: qpsync: ' "$out"
    [ $st -eq 0 ] || jobfail "qpsync: mpirun exited with $st"
    ok_ranks qpsync qpsync 2
    n=$(grep -c '^\[rcmsg [^]:]*:0 [0-9]*\] warn: rc: qp 0x[0-9a-f]* to peer 1: hardware says ERR, mirror RTS (qp state sync); recovering' "$out")
    [ "$n" -eq 3 ] || jobfail "qpsync: rank 0 logged $n 'qp state sync' mismatches, not 3"
    expect_json qpsync "$work/sync.0.json" '.scope == "rank"' qp_sync_mismatches=3 'qp_syncs>=3'
    expect_json qpsync "$work/sync.0.json" '.scope == "peer" and .peer == 1' recoveries=3
    expect_json qpsync "$work/sync.1.json" '.scope == "peer" and .peer == 0' recoveries=3
    echo "ok: 2. QP sync: 3 QPs in ERR behind the mirror found by the sync within 2 periods ($(($(date +%s) - t00)) s so far)"
fi

# qps_of_dump LOG RANK: "QPN-in-decimal HW MIRROR" per "rc qp" line of RANK's dump, sorted
qps_of_dump() {
    sed -n "s/^rcmsg dump \[rank $2\]: rc qp 0x\([0-9a-f]*\) .*state \([A-Z]*\) hw \([A-Z]*\).*/\1 \3 \2/p" "$1" |
        while read -r q hw mirror; do echo "$((0x$q)) $hw $mirror"; done | sort -n
}

if part 3; then
    echo "== 3. SIGUSR1 dumps of both ranks against rdma resource show qp"
    command -v rdma > /dev/null || skip "rdma (iproute2) not found"
    # first the stall dump over rc (liveness probes while rank 1 waits are no progress)
    job stall 120 2 RCMSG_STALL_TIMEOUT=2s -- stall
    [ $st -eq 0 ] || jobfail "stall: mpirun exited with $st"
    ok_ranks stall stall 2
    log1=$(rank_log stall 1)
    dump_once stall "$log1" 1 'STALL'
    grep -q '^rcmsg dump \[rank 1\]: request recv peer any tag 77 ctx [0-9]* len 64 step ' "$log1" ||
        jobfail "stall: the dump does not name the receive (recv peer any tag 77 ... len 64)"
    grep -q '^rcmsg dump \[rank 1\]: rc qp 0x[0-9a-f]* peer 0 state RTS hw RTS ' "$log1" ||
        jobfail "stall: the dump has no 'rc qp 0x.. peer 0 state RTS hw RTS' line"
    ! grep -q '^rcmsg dump' "$(rank_log stall 0)" || jobfail "stall: rank 0 (nothing pending) printed a dump"
    echo "ok: 3. the stall dump over rc, once, naming the receive and the QP"
    start idle 120 2 -- idle
    wait_file "$work/idle/pid.0" 60
    wait_file "$work/idle/pid.1" 60
    i=0
    until [ "$(grep -c '^rank [01]: idle: running' "$work/idle.out")" -eq 2 ]; do
        i=$((i + 1))
        [ $i -le 600 ] || { cat "$work/idle.out"; fail "idle: the ranks never got idle"; }
        sleep 0.1
    done
    sleep 0.5
    p0=$(cat "$work/idle/pid.0") p1=$(cat "$work/idle/pid.1")
    kill -USR1 "$p0" "$p1" || fail "idle: cannot signal the ranks"
    rdma -j resource show qp > "$work/rdma.json" 2> "$work/rdma.err"
    rst=$?
    for r in 0 1; do
        wait_file "$work/idle/pid.$r" 1
        i=0
        until grep -q "^rcmsg dump \[rank $r\]: end" "$work/idle/$(cat "$work/idle/pid.$r").log"; do
            i=$((i + 1))
            [ $i -le 100 ] || break
            sleep 0.1
        done
    done
    touch "$work/idle/go"
    finish idle $jobpid
    [ $st -eq 0 ] || jobfail "idle: mpirun exited with $st"
    ok_ranks idle idle 2
    [ $rst -eq 0 ] || { cat "$work/rdma.err"; jobfail "rdma -j resource show qp failed ($rst)"; }
    for r in 0 1; do
        log=$(rank_log idle $r)
        pid=$(cat "$work/idle/pid.$r")
        dump_once idle "$log" $r SIGUSR1
        qps_of_dump "$log" $r > "$work/dump.$r"
        [ -s "$work/dump.$r" ] || jobfail "idle: rank $r's dump has no 'rc qp 0x.. ... state S hw S' line"
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
    echo "ok: 3. both ranks' dumps agree with rdma resource show qp ($(($(date +%s) - t00)) s so far)"
fi

if part 4; then
    echo "== 4. callbacks over rc: CONNECTED, PEER_FAILED for a killed rank, RECOVERED"
    job events 120 3 --enable-recovery RCMSG_IB_TIMEOUT=14 RCMSG_IB_RETRY_COUNT=2 \
        RCMSG_RECOVERY_TIMEOUT=2s -- events rc
    grep '^rank [0-9]*: event \|^rank [0-9]*: receive from' "$out"
    grep -q '^rank 2: killing itself with SIGKILL' "$out" || jobfail "events: rank 2 did not get to the kill"
    ok_ranks events events 2
    for r in 0 1; do
        n=$(grep -c "^rank $r: event PEER_FAILED peer 2 transport rc status RCMSG_ERR_[A-Z_]* cause " "$out")
        [ "$n" -eq 1 ] || jobfail "events: rank $r got $n PEER_FAILED events for rank 2 with an error status, not 1"
        ! grep "^rank $r: event PEER_FAILED peer [01] " "$out" || jobfail "events: rank $r: PEER_FAILED for a live rank"
    done
    for r in 0 1 2; do
        for p in 0 1 2; do
            [ $r -ne $p ] || continue
            n=$(grep -c "^rank $r: event CONNECTED peer $p transport rc " "$out")
            [ "$n" -eq 1 ] || jobfail "events: rank $r got $n CONNECTED events for peer $p, not 1"
        done
    done
    job recover 120 2 -- recover 3
    grep '^rank [0-9]*: event \|^rank [0-9]*: recover:' "$out"
    [ $st -eq 0 ] || jobfail "recover: mpirun exited with $st"
    ok_ranks recover recover 2
    for r in 0 1; do
        n=$(grep -c "^rank $r: event RECOVERED peer $((1 - r)) transport rc status [A-Z_]* cause " "$out")
        [ "$n" -eq 3 ] || jobfail "recover: rank $r got $n RECOVERED events, not 3"
    done
    echo "ok: 4. callbacks over rc ($(($(date +%s) - t00)) s so far)"
fi
pass "monitoring over rc: exact counters, QP sync within 2 periods, dump = rdma resource show qp, callbacks"
