#!/bin/sh
# 10,000 sends from every rank to every rank (4 ranks) before any receive is posted: no
# deadlock, no receive-buffer exhaustion or RNR-retry-exceeded (any transport error fails the
# run), and the unexpected queue stays within the eager credits (32 per peer: 128 messages).
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
RCMSG_LOG_LEVEL=info run_timeout 900 "$MPIRUN" --allow-run-as-root -np 4 --oversubscribe \
    "$top_builddir/test/integration/p2p_test" --flood 10000 > "$out" 2>&1
st=$?
grep -e '^ok' -e FAIL -e 'error' -e 'unexpected queue' -e '^rank' "$out"
[ $st -eq 0 ] || fail "mpirun exited with $st"
grep -q ' error: ' "$out" && fail "errors were logged"
[ "$(grep -c '^rank [0-3] of 4: 0 failure(s)$' "$out")" -eq 4 ] || fail "not every rank passed"
peak=$(sed -n 's/.*unexpected queue peaked at \([0-9]*\) message.*/\1/p' "$out" | sort -n | tail -1)
[ -n "$peak" ] && [ "$peak" -le 128 ] || fail "unexpected queue peaked at '$peak' messages (> 4 x 32)"
pass "flood: all 40,000 messages per rank delivered, unexpected queue peaked at $peak"
