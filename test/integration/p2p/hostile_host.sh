#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Peer data is checked: a rank that puts crafted headers on the wire (test/integration/
# hostile_test.c) is treated as lost by the rank it talks to, which says why, instead of
# being believed. Two ranks over sm under mpirun, one case per job.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
check() { # check CASE WHY-PATTERN
    run_timeout 120 "$MPIRUN" --allow-run-as-root -np 2 \
        "$top_builddir/test/integration/p2p/hostile_test" "$1" > "$out" 2>&1
    st=$?
    [ $st -eq 0 ] && ranks_passed 2 "$out" ||
        { cat "$out"; fail "$1: exit $st"; }
    grep -q "error: rank 1 sent bad data: $2.*; rank 1 is treated as lost" "$out" ||
        { cat "$out"; fail "$1: rank 0 did not say why rank 1 was refused"; }
    echo "ok: $1: $(grep -o 'rank 1 sent bad data: .*' "$out" | head -1)"
}
check credits '1000 eager credits returned, but only 0 are lent to it'
check gap 'a CREDIT message with sequence number 7 where 0 was expected'
check src 'a EAGER message on communicator 0x0 claims to come from its rank 0'
check fin "a FIN with status 12345, which is no rcmsg error"
check fin-none "a FIN that names no rendezvous send of this rank to it (0x4d)"
check break "a BREAK of communicator 0x0 naming its rank 0 with status -12"
check cancel-ahead 'a CANCEL naming its message 5, which it has not sent before it (0)'
check cancel-lie 'a CANCEL of its message 0 on communicator 0x0 with another tag or length'
check cancel-ack 'a CANCEL_ACK that names no cancel this rank asked of it (0x4d)'
check orphans 'more than 65536 messages for communicators this rank does not have'
pass "crafted headers (credits, sequence gap, sender, orphan flood, FINs, CANCELs) refused"
