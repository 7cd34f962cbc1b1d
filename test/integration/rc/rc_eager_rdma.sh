#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Eager over RDMA WRITE (RCMSG_EAGER_RDMA, src/btl_rc/rc_fast.c) in the Soft-RoCE guest, rc
# and self only. The counters (RCMSG_STATS_FILE) prove which path carried the messages:
# 1. p2p: the point-to-point suite (p2p_test, 4 ranks) forced on for every peer (rdmaw_sent
#    > 0 on every rank); p2p_mpirun.sh runs it forced off (no ring, rdmaw_sent 0)
# 2. coll: the collective suite (coll_test, some ops) with 3 ranks forced on (7 elements and
#    256k) and automatic (7 elements); coll_rc.sh runs it forced off at 2-4 ranks (rdmaw_sent
#    0); automatic is threshold 4 and RCMSG_EAGER_RDMA_MAX_PEERS=1: each process registers
#    one ring at most, so 1 to 3 rings in all
# 3. wrap and slow receiver: 2-slot rings under p2p_test's flood (10,000 sends per pair
#    before any receive): the rings wrap around thousands of times (rdmaw_sent far above the
#    slots) and senders that find no free slot go by SEND (rdmaw_fallbacks > 0), no deadlock;
#    written plus fallbacks at most the messages sent (a send retried is counted once)
# 4. recovery: rc_recovery_test's stream (2 ranks, both ways, 8 B .. 512 KiB) with rank 0
#    forcing 20 QP errors: nothing lost, duplicated or reordered, 20 forced recoveries on each
#    side (rxe may break a QP by itself under load: more recoveries are allowed),
#    the rings rebuilt after them (rdmaw_rings > 1) and carrying messages
# 5. kill: rank 2 of 3 SIGKILLed mid-stream with the fast path on: the survivors get
#    RCMSG_ERR_CONNECTION for rank 2 within the retries + RCMSG_RECOVERY_TIMEOUT (+ slack) and
#    finish their own stream intact
# 6. packets: a message whose ring write (its 16-byte tail) would take one packet of the path MTU
#    more than a SEND of it goes by SEND (rdmaw_fallbacks); 8 bytes less goes into the ring
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
RCMSG_TRANSPORTS=rc,self
export RCMSG_TRANSPORTS
p2p=$top_builddir/test/integration/p2p/p2p_test
coll=$top_builddir/test/integration/coll/coll_test
prog=$top_builddir/test/integration/rc/rc_recovery_test

# counter_min NAME DIR NP: the smallest per-rank sum of counter NAME
counter_min() {
    min=
    for r in $(seq 0 $(($3 - 1))); do
        v=$(grep '"scope":"peer"' "$2/stats.$r.json" 2> /dev/null |
            grep -o "\"$1\":[0-9]*" | awk -F: '{ n += $2 } END { print n + 0 }')
        [ -z "$min" ] || [ "$v" -lt "$min" ] && min=$v
    done
    echo "${min:-0}"
}

# run NAME SECS NP VAR=VALUE... -- PROGRAM ARGS...: output in $work/NAME.out, stats in
# $work/NAME/; $st its status
run() {
    name=$1 secs=$2 np=$3
    shift 3
    vars=
    while [ "$1" != -- ]; do vars="$vars $1"; shift; done
    shift
    mkdir -p "$work/$name"
    t0=$(date +%s)
    echo "== $name: $vars $(basename "$1") (at $(date +%T))"
    run_timeout "$secs" env $vars RCMSG_STALL_TIMEOUT=30s RCMSG_STATS=summary "RCMSG_STATS_FILE=$work/$name/stats.%r.json" \
        "$MPIRUN" --allow-run-as-root -np "$np" --oversubscribe "$@" > "$work/$name.out" 2>&1
    st=$?
    secs=$(($(date +%s) - t0))
}
# written_read NAME: every message written into a ring was read, but for control messages (a
# credit return, say) that a peer wrote as the reader was leaving: unread, they are counted in
# ctrl_sent and not in ctrl_recv (the data itself is checked by the program's own receives)
written_read() {
    w=$(stats_sum rdmaw_sent "$work/$1") r=$(stats_sum rdmaw_recv "$work/$1")
    cs=$(stats_sum ctrl_sent "$work/$1") cr=$(stats_sum ctrl_recv "$work/$1")
    [ "$w" -ge "$r" ] && [ $((w - r)) -le $((cs - cr)) ] ||
        show_fail "$1: $w messages written by RDMA WRITE, $r read (control messages unread: $((cs - cr)))"
}
show_fail() { # "NAME: WHY": the end of NAME's output, then FAIL
    grep -v ' error: rcmsg_' "$work/${1%%:*}.out" | tail -60
    fail "$*"
}
p2p_ok() { # NAME NP
    [ $st -eq 0 ] && ranks_passed $2 "$work/$1.out" ||
        show_fail "$1: p2p_test: status $st"
    # p2p_test provokes API-misuse errors (rcmsg_*) on purpose, and frees a communicator with
    # messages unreceived: one that went by rendezvous (credits short after the test of 100
    # unmatched messages) is refused, its sender told by the FIN (a warning)
    ! grep ' error: ' "$work/$1.out" | grep -v -e ' error: rcmsg_' |
        grep -q . || show_fail "$1: errors were logged"
}
coll_ok() { # NAME NP
    [ $st -eq 0 ] && ranks_passed $2 "$work/$1.out" ||
        show_fail "$1: coll_test: status $st"
    # coll_test's edges pass mismatched counts on purpose: the receiver names the sender
    ! grep ' error: ' "$work/$1.out" | grep -v -e ' error: rcmsg_' \
        -e 'do all ranks pass the same count, datatype and root?$' | grep -q . ||
        show_fail "$1: errors were logged"
}

# 1. p2p forced on (forced off: p2p_mpirun.sh)
run p2p_on 240 4 RCMSG_EAGER_RDMA=yes -- "$p2p"
p2p_ok p2p_on 4
m=$(counter_min rdmaw_sent "$work/p2p_on" 4)
[ "$m" -gt 0 ] || show_fail "p2p_on: a rank sent nothing by RDMA WRITE"
echo "ok: 1. p2p, forced on: 4 ranks passed; rdmaw_sent $(stats_sum rdmaw_sent "$work/p2p_on") in all (at least $m per rank), rdmaw_recv $(stats_sum rdmaw_recv "$work/p2p_on"), fallbacks $(stats_sum rdmaw_fallbacks "$work/p2p_on") ($secs s)"
written_read p2p_on

# 2. collectives at 3 ranks: on, and automatic with one ring per process (off: coll_rc.sh)
run coll_on 240 3 RCMSG_EAGER_RDMA=yes -- "$coll" --ops some --sizes 7,256k
coll_ok coll_on 3
[ "$(counter_min rdmaw_sent "$work/coll_on" 3)" -gt 0 ] || show_fail "coll_on: a rank wrote nothing"
echo "ok: 2. coll, forced on, 3 ranks: rdmaw_sent $(stats_sum rdmaw_sent "$work/coll_on"), fallbacks $(stats_sum rdmaw_fallbacks "$work/coll_on") ($secs s)"
run coll_auto 240 3 RCMSG_EAGER_RDMA=auto RCMSG_EAGER_RDMA_THRESHOLD=4 \
    RCMSG_EAGER_RDMA_MAX_PEERS=1 -- "$coll" --ops some --sizes 7
coll_ok coll_auto 3
rings=$(stats_sum rdmaw_rings "$work/coll_auto")
[ "$(stats_sum rdmaw_sent "$work/coll_auto")" -gt 0 ] && [ "$rings" -ge 1 ] && [ "$rings" -le 3 ] ||
    show_fail "coll_auto: $rings rings given in all (1 to 3 expected: one per process at most)"
echo "ok: 2. coll, automatic (threshold 4, 1 ring per process), 3 ranks: $rings ring(s), rdmaw_sent $(stats_sum rdmaw_sent "$work/coll_auto") ($secs s)"

# 3. wrap-around and no free slot: 2-slot rings under a flood
run flood 240 4 RCMSG_EAGER_RDMA=yes RCMSG_EAGER_RDMA_SLOTS=2 -- "$p2p" --flood 10000
p2p_ok flood 4
sent=$(stats_sum rdmaw_sent "$work/flood") fb=$(stats_sum rdmaw_fallbacks "$work/flood")
[ "$(counter_min rdmaw_sent "$work/flood" 4)" -gt 1000 ] || show_fail "flood: a rank wrote 1000 messages or fewer into 2-slot rings"
[ "$fb" -gt 0 ] || show_fail "flood: no sender ever found its ring full"
# each message is counted once, whatever path it took and however often it was retried
msgs=0
for c in msgs_sent_inline msgs_sent_eager msgs_sent_rndv ctrl_sent; do
    msgs=$((msgs + $(stats_sum $c "$work/flood")))
done
[ $((sent + fb)) -le "$msgs" ] ||
    show_fail "flood: $sent written and $fb sent by SEND for want of a slot, but only $msgs messages sent"
written_read flood
echo "ok: 3. flood into 2-slot rings: $sent messages written (each ring wrapped hundreds of times), $fb sent by SEND for want of a slot, no deadlock ($secs s)"

# 4. forced recovery with the fast path on
job_logvar=RC_RECOVERY_LOG_DIR
job_hide=' info: \| debug: '
job_show=' \(warn\|error\): \| info: \(rc\|CM\): '
job_what='errors, warnings and rc and CM events'
mkdir -p "$work/rec"
t0=$(date +%s)
start rec 150 2 RCMSG_EAGER_RDMA=yes RCMSG_LOG_LEVEL=info RCMSG_STATS=summary \
    "RCMSG_STATS_FILE=$work/rec/stats.%r.json" -- stream --forces 20 --min-msgs 400 --deadline 120
finish rec $jobpid
[ $st -eq 0 ] || jobfail "rec: mpirun exited with $st"
streams_clean rec 2
# recoveries R P: how many recoveries rank R counted with peer P ("" without the line)
recoveries() { sed -n "s/^rank $1: recoveries: peer $2 \([0-9]*\) (forced 20)\$/\1/p" "$out"; }
r0=$(recoveries 0 1) r1=$(recoveries 1 0)
[ "${r0:-0}" -ge 20 ] && [ "${r1:-0}" -ge 20 ] ||
    jobfail "rec: recoveries rank 0 '${r0}', rank 1 '${r1}': 20 forced expected on both ranks"
! grep ' error: ' "$out" || jobfail "rec: errors were logged"
rings=$(counter_min rdmaw_rings "$work/rec" 2) sent=$(counter_min rdmaw_sent "$work/rec" 2)
[ "$rings" -gt 1 ] && [ "$sent" -gt 0 ] ||
    jobfail "rec: rings given per rank $rings (> 1: rebuilt after a recovery), written $sent"
echo "ok: 4. 20 forced recoveries with the fast path on ($r0 and $r1 counted): every message once and in order, rings rebuilt ($rings per rank at least), rdmaw_sent $(stats_sum rdmaw_sent "$work/rec") ($(($(date +%s) - t0)) s)"

# 5. a peer killed with writes in flight
t0=$(date +%s)
start kill 120 3 RCMSG_EAGER_RDMA=yes RCMSG_LOG_LEVEL=info RCMSG_IB_TIMEOUT=14 \
    RCMSG_IB_RETRY_COUNT=2 RCMSG_RECOVERY_TIMEOUT=5s --enable-recovery -- \
    kill --min-msgs 400 --deadline 100
finish kill $jobpid
grep -q '^rank 2: killing itself with SIGKILL' "$out" || jobfail "kill: rank 2 did not get to the kill"
streams_clean kill 2 '[01]'
for r in 0 1; do
    killed_ok $r 2 10.2 # 0.2 + 5 s, and 5 s of slack
    grep -q "^rank $r: finalized" "$out" || jobfail "kill: rank $r did not finalize"
    echo "ok: 5. kill: rank $r: RCMSG_ERR_CONNECTION for rank 2, its requests done $secs s after the kill"
done
grep -q 'rc: eager rdma forced on' "$out" || jobfail "kill: the fast path was not on"
echo "ok: 5. kill ($(($(date +%s) - t0)) s)"
# 6. a message whose ring write would take one packet more than its SEND goes by SEND: at the
# path MTU M, M - 48 bytes (32 of the pml's header, 16 of the tail) fill one packet in the ring,
# M - 40 bytes are one packet by SEND and two in the ring. M: the smaller active MTU of the two
# ports (RCMSG_IB_MTU left at its default); slots large enough to hold M bytes at any MTU.
unset RCMSG_IB_MTU
mtu=$(for d in rxe0 rxe1; do ibv_devinfo -d $d | awk '/active_mtu/ { print $2; exit }'; done |
    sort -n | head -1)
case $mtu in
256 | 512 | 1024 | 2048 | 4096) ;;
*) fail "mtu: no active MTU read off rxe0 and rxe1 with ibv_devinfo ('$mtu')" ;;
esac
slot=2048
[ $((mtu + 64)) -le $slot ] || slot=$((mtu + 64))
bench=$top_builddir/bench/rcmsg_bench
for size in $((mtu - 48)) $((mtu - 40)); do
    run "mtu$size" 120 2 RCMSG_EAGER_RDMA=yes RCMSG_EAGER_RDMA_SLOT_SIZE=$slot -- \
        "$bench" latency --min "$size" --max "$size" --iters 200
    [ $st -eq 0 ] || show_fail "mtu$size: rcmsg_bench latency: status $st"
done
[ "$(counter_min rdmaw_sent "$work/mtu$((mtu - 48))" 2)" -ge 200 ] ||
    show_fail "mtu$((mtu - 48)): $((mtu - 48))-byte messages did not go into the ring (path mtu $mtu)"
[ "$(counter_min rdmaw_fallbacks "$work/mtu$((mtu - 40))" 2)" -ge 200 ] ||
    show_fail "mtu$((mtu - 40)): $((mtu - 40))-byte messages did not go by SEND (path mtu $mtu)"
echo "ok: 6. path mtu $mtu, $slot-byte slots: $((mtu - 48)) bytes by RDMA WRITE, $((mtu - 40)) bytes (a packet more in the ring) by SEND"
pass "eager over RDMA WRITE: p2p and coll forced on (off: p2p_mpirun.sh, coll_rc.sh), automatic, wrap-around and full rings, forced recovery, killed peer, no write a packet longer than its SEND"
