#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Waiting 2 s for a late message: in event and hybrid mode the waiting process sleeps on
# completion events (CPU far below wall time); poll mode, for comparison, spins. Then, with
# lazy connect and 4 ranks, the late message is the pair's first contact: the sleeping rank
# is woken by the connection manager's packets (its CQ is on the completion channel), answers,
# and still sleeps the rest of the time.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
for mode in poll event hybrid; do
    RCMSG_WAIT_MODE=$mode run_timeout 300 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe \
        "$top_builddir/test/integration/p2p/p2p_test" --late $mode >> "$out" 2>&1 ||
        { cat "$out"; fail "mode $mode: mpirun failed"; }
done
RCMSG_CONNECT=lazy RCMSG_WAIT_MODE=event RCMSG_LOG_LEVEL=debug run_timeout 300 "$MPIRUN" \
    --allow-run-as-root -np 4 --oversubscribe "$top_builddir/test/integration/p2p/p2p_test" \
    --late event_lazy > "$out.lazy" 2>&1 || { cat "$out.lazy"; fail "lazy event: mpirun failed"; }
grep -v ' debug: ' "$out.lazy" >> "$out"
grep -q '^\[rcmsg [^ ]*:0 [0-9]*\] debug: rc: connected to peer 2: ' "$out.lazy" ||
    { cat "$out.lazy"; fail "lazy event: rank 0 never connected to rank 2"; }
rm -f "$out.lazy"
cat "$out"
for mode in event hybrid event_lazy; do
    pct=$(sed -n "s/^late message, wait mode $mode: .* (\([0-9]*\)%)$/\1/p" "$out")
    [ -n "$pct" ] && [ "$pct" -lt 25 ] || fail "mode $mode used ${pct:-?}% of the wall time in CPU"
done
pass "event and hybrid waits sleep; poll spins"
