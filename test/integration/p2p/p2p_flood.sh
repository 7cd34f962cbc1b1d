#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# 10,000 sends from every rank to every rank (4 ranks) before any receive is posted: no
# deadlock, no receive-buffer exhaustion or RNR-retry-exceeded (any transport error fails the
# run), and the unexpected eager payload stays within the credits (32 per peer; sends beyond
# them go by rendezvous, so only their headers wait at the receiver).
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
RCMSG_LOG_LEVEL=info run_timeout 900 "$MPIRUN" --allow-run-as-root -np 4 --oversubscribe \
    "$top_builddir/test/integration/p2p/p2p_test" --flood 10000 > "$out" 2>&1
st=$?
grep -e '^ok' -e FAIL -e 'error' -e 'unexpected queue' -e '^rank' "$out"
[ $st -eq 0 ] || fail "mpirun exited with $st"
grep -q ' error: ' "$out" && fail "errors were logged"
ranks_passed 4 "$out" || fail "not every rank passed"
# unmatched eager payload is bounded by the credits: 4 peers x 32 x 8 KiB (the rest waits at
# the senders, announced by payload-free RTS headers)
peak=$(sed -n 's/.*unexpected queue peaked at [0-9]* message(s) holding \([0-9]*\) payload bytes.*/\1/p' "$out" | sort -n | tail -1)
[ -n "$peak" ] && [ "$peak" -le 1048576 ] || fail "unexpected payload peaked at '$peak' bytes (> 4 x 32 x 8 KiB)"
pass "flood: all 40,000 messages per rank delivered; unexpected eager payload peaked at $peak bytes"
