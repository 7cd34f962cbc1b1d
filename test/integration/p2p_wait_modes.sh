#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Waiting 2 s for a late message: in event and hybrid mode the waiting process sleeps on
# completion events (CPU far below wall time); poll mode, for comparison, spins.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
for mode in poll event hybrid; do
    RCMSG_WAIT_MODE=$mode run_timeout 300 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe \
        "$top_builddir/test/integration/p2p_test" --late $mode >> "$out" 2>&1 ||
        { cat "$out"; fail "mode $mode: mpirun failed"; }
done
cat "$out"
for mode in event hybrid; do
    pct=$(sed -n "s/^late message, wait mode $mode: .* (\([0-9]*\)%)$/\1/p" "$out")
    [ -n "$pct" ] && [ "$pct" -lt 25 ] || fail "mode $mode used ${pct:-?}% of the wall time in CPU"
done
pass "event and hybrid waits sleep; poll spins"
