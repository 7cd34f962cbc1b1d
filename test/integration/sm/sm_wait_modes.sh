#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Event and hybrid waits over shared memory wake when a message arrives (sm has a wakeup pipe
# per process): a 2-rank ping-pong of 8 bytes answers in microseconds, not in the 100 ms of the
# poll timeout; a 3-rank collective run takes about as long as polling; a waiting rank still
# sleeps (no spinning); and a killed local peer is still noticed within ~0.1 s (srun).
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
ms() { echo $(($(date +%s%N) / 1000000)); }
mpi() { # mode, then the program and its arguments
    mode=$1; shift
    RCMSG_WAIT_MODE=$mode RCMSG_SPIN_COUNT=10 run_timeout 120 "$MPIRUN" --allow-run-as-root \
        --oversubscribe "$@" > "$out" 2>&1
}
limit=1000 # us per 8-byte one-way trip; a 100 ms sleep per wait gave ~50000
[ "${SANITIZER_BUILD:-no}" != yes ] || limit=5000
for mode in event hybrid; do
    mpi $mode -np 2 "$top_builddir/src/tools/rcmsg_pingpong" --iters 1000 --max 8
    st=$?
    cat "$out"
    [ $st -eq 0 ] || fail "mode $mode: the ping-pong exited with $st"
    lat=$(awk '$1 == 8 { printf "%d", $2 }' "$out")
    [ -n "$lat" ] && [ "$lat" -lt $limit ] ||
        fail "mode $mode: 8-byte latency ${lat:-?} us over sm (a wakeup is missing: limit $limit us)"
    echo "ok: mode $mode: 8-byte ping-pong over sm, ${lat} us one way"
done
# the same 3-rank collective run in each mode: 28 s in event mode with 100 ms sleeps, 0.2 s now
for mode in poll event hybrid; do
    t0=$(ms)
    mpi $mode -np 3 "$top_builddir/test/integration/coll/coll_test" --ops some --sizes 0,1,7,1k,64k \
        --algs auto
    st=$?
    t=$(($(ms) - t0))
    [ $st -eq 0 ] && ranks_passed 3 "$out" ||
        { cat "$out"; fail "mode $mode: 3-rank collectives exited with $st"; }
    echo "ok: mode $mode: 3-rank collectives over sm in $t ms"
    [ $mode = poll ] && tpoll=$t
    [ $mode = poll ] || [ $t -lt $((tpoll * 5 + 3000)) ] ||
        fail "mode $mode took $t ms against $tpoll ms polling"
done
# the whole point-to-point set in event mode: a send that waits a few progress rounds for
# eager credits is work, not a reason to sleep (it used to sleep 100 ms a round: no end)
t0=$(ms)
mpi event -np 3 "$top_builddir/test/integration/p2p/p2p_test"
st=$?
t=$(($(ms) - t0))
[ $st -eq 0 ] && ranks_passed 3 "$out" &&
    [ $t -lt 30000 ] || { cat "$out"; fail "p2p_test in event mode: exit $st after $t ms"; }
echo "ok: mode event: the 3-rank point-to-point set over sm in $t ms"
# a sleeping wait does not spin (a wakeup fd that is always readable would)
mpi event -np 2 "$top_builddir/test/integration/p2p/p2p_test" --late event
st=$?
cat "$out"
pct=$(sed -n 's/^late message, wait mode event: .* (\([0-9]*\)%)$/\1/p' "$out")
[ $st -eq 0 ] && [ -n "$pct" ] && [ "$pct" -lt 25 ] ||
    fail "a late message in event mode over sm: exit $st, ${pct:-?}% of the wall time in CPU"
echo "ok: waiting 2 s in event mode over sm took $pct% CPU"
slurm="$top_srcdir/contrib/slurm/slurm-local"
if why=$("$slurm" --check 2>&1); then
    RCMSG_WAIT_MODE=event run_timeout 120 "$slurm" run -- srun --mpi=pmix -n 3 \
        "$top_builddir/test/integration/p2p/p2p_test" --kill > "$out" 2>&1
    st=$?
    [ $st -ne 124 ] || { cat "$out"; fail "event mode, a rank killed: the job hung"; }
    for r in 0 1; do
        grep -q "^rank $r: receive from the killed rank 2 returned RCMSG_ERR_CONNECTION" "$out" ||
            { cat "$out"; fail "event mode: rank $r's receive from the killed rank did not fail"; }
    done
    grep '^rank [01]: receive from the killed' "$out"
    echo "ok: event mode: a killed local peer is noticed"
else
    echo "not run: the killed-peer check in event mode (Slurm is not usable here: $why)"
fi
pass "event and hybrid waits over sm wake on arrival"
