#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Lazy connections on Soft-RoCE (RCMSG_CONNECT=lazy, RCMSG_TRANSPORTS=rc,self: every peer over
# rc), rc_lazy_test under mpirun; every message's bytes, length and per-pair order checked:
# 1. 16 ranks: all-to-all (both sides of every pair connecting at once), ring and random-peer
#    traffic: exactly one connection per rank and peer ("rc: connected to peer" at debug);
#    a ring alone connects each rank to its two neighbours and to nobody else, and fetches
#    their two addresses only (on first use: rcmsg_init's PMIx_Get calls do not grow with N)
# 2. RCMSG_QP_MAX_ACTIVE=2, 8 ranks: 5,000 messages in rounds of random derangements, eager
#    and rendezvous alternately: more than 100 "rc: disconnected from peer" in the job's log
# 3. 2 ranks sending each other their first message right after rcmsg_init: one connection
#    each
# 4. 30% netem loss of the CM's UD packets on both veths while 4 ranks connect lazily: every
#    connection forms, every message arrives (netem's drop count shows the loss applied)
# 5. a peer that died before anything connected to it: the send fails with
#    RCMSG_ERR_CONNECTION within RCMSG_CM_TIMEOUT x RCMSG_CM_RETRIES (100 ms x 10 = 1 s here,
#    plus 2 s of slack for the emulated guest), and rank 0 finalizes
# RC_LAZY_PARTS="2 5" runs only those parts (all by default).
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
prog=$top_builddir/test/integration/rc/rc_lazy_test
out=$(mktemp)
logs=$(mktemp -d)
lossy=
cleanup() {
    for v in $lossy; do tc qdisc del dev "$v" root 2> /dev/null; done
    rm -rf "$out" "$logs"
}
trap cleanup EXIT
RCMSG_TRANSPORTS=rc,self RCMSG_CONNECT=lazy RCMSG_EAGER_LIMIT=2048 RCMSG_LOG_LEVEL=debug
export RCMSG_TRANSPORTS RCMSG_CONNECT RCMSG_EAGER_LIMIT RCMSG_LOG_LEVEL

job() { # job NAME SECONDS NP [VAR=VALUE | MPIRUN-OPTION]... -- ARGS...: output kept in $out
    name=$1 secs=$2 np=$3
    shift 3
    t0=$(date +%s)
    rm -f "$logs"/*
    # each process logs to its own file (mpirun's forwarding may splice lines of two ranks)
    mpirun_job "$secs" "$np" RC_LAZY_LOG_DIR "$logs" "$prog" "$@" > "$out" 2>&1
    st=$?
    cat "$logs"/*.log >> "$out"
    grep -v ' debug: \| info: ' "$out"
    echo "$name: $(($(date +%s) - t0)) s"
    [ $st -ne 124 ] || jobfail "$name: hung (killed after $secs s)"
}

jobfail() { # jobfail WHY: the job's connection events (debug lines), then FAIL
    echo "---- the job's rc and CM events:"
    grep ' debug: \(rc\|CM\): ' "$out" | tail -3000
    fail "$*"
}

checked() { # checked NAME NP MODE: the job ended well and every rank checked its messages
    [ $st -eq 0 ] || jobfail "$1: mpirun exited with $st"
    each_rank $2 "$out" "$3: [0-9]* received, [0-9]* sent, checked$" ||
        jobfail "$1: not every rank checked its messages"
    ! grep -q ' error: ' "$out" || jobfail "$1: errors were logged"
}

# "RANK PEER" for each "rc: connected to peer" line, sorted
connections() {
    sed -n 's/^\[rcmsg [^]:]*:\([0-9]*\) [0-9]*\] debug: rc: connected to peer \([0-9]*\):.*/\1 \2/p' \
        "$out" | sort -n
}

one_each() { # one_each NAME NP: every rank connected exactly once to every other rank
    conns=$(connections)
    want=$(for r in $(seq 0 $(($2 - 1))); do
        for p in $(seq 0 $(($2 - 1))); do [ "$r" = "$p" ] || echo "$r $p"; done
    done | sort -n)
    [ "$conns" = "$want" ] || {
        echo "$conns" | uniq -c | awk '$1 != 1' | head
        each_pair_logged "$2" "$out" "debug: rc: connected to peer " ":" ||
            jobfail "$1: not one connection per rank and peer: $bad"
        jobfail "$1: not one connection per rank and peer"
    }
}

part() { case " ${RC_LAZY_PARTS:-1 2 3 4 5} " in *" $1 "*) return 0 ;; esac; return 1; }

# 1. 16 ranks: all-to-all, ring, random peers; then a ring alone
if part 1; then
    job traffic 150 16 -- traffic
    checked "16 ranks" 16 traffic
    one_each "16 ranks" 16
    echo "ok: 16 ranks: all-to-all, ring and random-peer traffic checked, 240 connections, one per rank and peer"
    job ring 90 16 -- ring
    checked "16-rank ring" 16 ring
    conns=$(connections)
    want=$(for r in $(seq 0 15); do
        echo "$r $(((r + 15) % 16))"
        echo "$r $(((r + 1) % 16))"
    done | sort -n)
    [ "$conns" = "$want" ] || {
        echo "connections (rank peer):" $conns
        jobfail "16-rank ring: a rank connected to other peers than its two neighbours, or more than once"
    }
    echo "ok: 16-rank ring: each rank connected to its two neighbours only"
    # addresses on first use: each rank fetched its two neighbours' and no other, and its
    # rcmsg_init made a constant number of PMIx_Get calls (job info only), not one per peer
    fetched=$(sed -n 's/^\[rcmsg [^]:]*:\([0-9]*\) [0-9]*\] debug: address of peer \([0-9]*\):.*/\1 \2/p' \
        "$out" | sort -n)
    [ "$fetched" = "$want" ] || {
        echo "addresses fetched (rank peer):" $fetched
        jobfail "16-rank ring: a rank fetched other addresses than its two neighbours', or one twice"
    }
    gets=$(sed -n 's/.* info: wireup of 16 rank(s) .*, \([0-9]*\) PMIx_Get .*/\1/p' "$out")
    [ "$(echo "$gets" | grep -c .)" -eq 16 ] || jobfail "16-rank ring: not 16 wireup lines with a PMIx_Get count"
    for g in $gets; do
        [ "$g" -le 8 ] || jobfail "16-rank ring: rcmsg_init made $g PMIx_Get calls (at most 8 expected: O(1))"
    done
    echo "ok: 16-rank ring: addresses fetched on first use (the two neighbours' only), rcmsg_init's PMIx_Get calls:" $(echo "$gets" | sort -u)
fi

# 2. 5,000 messages among 8 ranks with RCMSG_QP_MAX_ACTIVE=2
if part 2; then
    job "max active 2" 150 8 RCMSG_QP_MAX_ACTIVE=2 -- lru 25 25
    checked "max active 2" 8 lru
    # rank 0's totals of the job (rc_lazy_test sums every rank's, the connections and
    # disconnections from rcmsg's events)
    line=$(grep '^rank 0: lru: 5000 of 5000 messages received, ' "$out") ||
        jobfail "max active 2: not 5000 of 5000 messages received"
    conn=$(echo "$line" | sed 's/.* received, \([0-9]*\) connections.*/\1/')
    disc=$(echo "$line" | sed 's/.* and \([0-9]*\) disconnections.*/\1/')
    # the cap holds for the connects a rank starts; answering a peer's connect may exceed it
    # until an idle connection is found (docs/rc.md): the most a rank held, from its own count
    most=$(sed -n 's/.* debug: rc: .*; \([0-9]*\) qps connected, .*/\1/p' "$out" | sort -n | tail -1)
    echo "max active 2: $conn connections, $disc disconnections, at most $most connected at once"
    [ "$disc" -gt 100 ] || jobfail "max active 2: $disc disconnects, not more than 100"
    [ "$conn" -gt 100 ] || jobfail "max active 2: $conn connections: not more than 100 reconnects"
    echo "ok: max active 2: 5000 messages checked (bytes and order), $disc disconnects"
fi

# 3. both ranks of a pair send their first message at once: one connection each
if part 3; then
    for i in 1 2; do
        job "simultaneous #$i" 60 2 -- simul
        checked "simultaneous #$i" 2 simul
        one_each "simultaneous #$i" 2
    done
    echo "ok: simultaneous first messages: one connection per rank, twice"
fi

# 4. 30% loss of the CM's packets (RoCE v2, UDP 4791, BTH opcode 0x64 UD SEND_ONLY, 28 bytes
# into the IP packet) while 4 ranks connect lazily; RC traffic is spared, as in rc_cm.sh
# (rxe does not recover RDMA READs from random loss within any bound)
if part 4; then
    for v in veth0 veth1; do
        [ -e "/sys/class/net/$v" ] || continue
        lossy="$lossy $v"
        cm_loss "$v" 30 ||
            fail "tc: cannot drop the CM's packets on $v (no sch_prio, sch_netem or cls_u32?)"
    done
    [ -n "$lossy" ] || skip "no veth0/veth1 to impair here (not the rxe guest?)"
    job "30% CM loss" 150 4 -- traffic
    checked "30% CM loss" 4 traffic
    one_each "30% CM loss" 4
    # packets netem dropped (a lost RTU costs no retry: traffic on the RC QP stands for it)
    dropped=$(for v in $lossy; do tc -s qdisc show dev "$v"; done |
        awk '/qdisc netem/ { f = 1; next } f && /dropped/ { sub(/.*dropped /, ""); n += $1; f = 0 }
            END { print n + 0 }')
    retried=no
    ! grep -q 'CM: retry' "$out" || retried=yes
    [ "$dropped" -gt 0 ] || jobfail "30% CM loss: netem dropped no CM packet: was the loss applied?"
    for v in $lossy; do tc qdisc del dev "$v" root; done
    lossy=
    echo "ok: 30% loss of CM packets: $dropped dropped, CM retries logged: $retried, 12 connections formed, every message checked"
fi

# 5. a peer that died before anything connected to it (mpirun --enable-recovery keeps rank 0)
if part 5; then
    job dead 60 2 RCMSG_CM_TIMEOUT=100ms RCMSG_CM_RETRIES=10 --enable-recovery -- dead
    grep -q '^rank 1: killing itself' "$out" || jobfail "dead: rank 1 did not get to the kill"
    line=$(grep '^rank 0: a send to the dead rank 1 returned' "$out") || jobfail "dead: the send never returned"
    echo "$line" | grep -q 'returned RCMSG_ERR_CONNECTION after' || jobfail "dead: not RCMSG_ERR_CONNECTION"
    secs=$(echo "$line" | sed 's/.* after \([0-9.]*\) s$/\1/')
    awk -v s="$secs" 'BEGIN { exit !(s <= 1 + 2) }' ||
        jobfail "dead: failed after $secs s, beyond the 1 s bound (+2 s slack)"
    if grep -q 'error: cannot connect to peer 1' "$out"; then
        how="the CM gave up"
    elif grep -q 'the launcher reports that rank 1 terminated' "$out"; then
        how="the launcher reported it"
    else
        jobfail "dead: no error naming peer 1 and the reason"
    fi
    grep -q '^rank 0: finalized' "$out" || jobfail "dead: rank 0 did not finalize"
    echo "ok: dead peer: RCMSG_ERR_CONNECTION after $secs s ($how)"
fi
pass "lazy connections, parts ${RC_LAZY_PARTS:-1 2 3 4 5}: 16 ranks (all-to-all, ring, random), max active 2, simultaneous first messages, 30% CM loss, dead peer"
