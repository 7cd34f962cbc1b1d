#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A whole node lost (run last: part 2 stops node2). 4 ranks, 2 per node, nodes_kill_test:
# every rank exchanges checked messages with every peer in rounds; RCMSG_IB_TIMEOUT=14,
# RCMSG_IB_RETRY_COUNT=2 (a retry budget of 3 x 4.096 us x 2^14 = 0.2 s),
# RCMSG_RECOVERY_TIMEOUT=5s. The bound of docs/liveness.md for a rank waiting on a lost rc peer
# (the longest of its rows): 2 x RCMSG_LIVENESS_INTERVAL (1s) + 0.2 s + 5 s = 7.2 s; asserted
# with 5 s of slack (the emulated guests). The strike's time is taken on node1 when it writes
# the word that a waiting `rxe-rsh node2 'echo ready; read go; ...'` (ready said) turns into the
# kill (strike below), so the remote shell's start-up (seconds of perl under emulation) is not
# counted.
# 1. mpirun --enable-recovery: node2's two ranks SIGKILLed (rxe-rsh node2 kill -9 PIDS): ranks
#    0 and 1 get RCMSG_ERR_CONNECTION for both within the bound (their CLOCK_REALTIME against
#    the kill's, both on node1), go on checked with each other over sm, finalize and exit; no
#    nodes_kill_test left on either node. mpirun under --enable-recovery does not end by itself
#    once every rank is gone (it and node2's orted wait on, idle: Open MPI 4.1's ORTE), so the
#    script ends it then, as part 2 does srun; then no orted is left either.
# 2. srun -N 2 -n 4 (with the two-node Slurm): node2's VM stopped (sysrq poweroff): the same
#    bound and outcome on ranks 0 and 1; srun, which cannot learn of it before Slurm's own
#    node timeout, is then ended; no nodes_kill_test left on node1, node2 unreachable.
. "$top_srcdir/test/integration/lib.sh"
. "$top_srcdir/test/integration/nodes/nodes_lib.sh"
need_nodes
prog=$top_builddir/test/integration/nodes/nodes_kill_test
work=$(mktemp -d "$top_builddir/test/integration/nodes/kill.XXXXXX")
# the strike's fifo on node1's own /tmp (the shared build tree's file system has no fifos)
fifodir=$(mktemp -d) || fail "mktemp -d"
fifo=$fifodir/go
trap 'rm -rf "$work" "$fifodir"' EXIT
vars="RCMSG_IB_TIMEOUT=14 RCMSG_IB_RETRY_COUNT=2 RCMSG_RECOVERY_TIMEOUT=5s"
bound=12.2 # 7.2 s, and 5 s of slack

# wait_line FILE PATTERN SECS: until FILE has a line matching PATTERN
wait_line() {
    _i=0
    until grep -q "$2" "$1" 2> /dev/null; do
        _i=$((_i + 1))
        [ $_i -le $(($3 * 10)) ] || { cat "$1"; fail "no line '$2' after $3 s"; }
        sleep 0.1
    done
}
# survivors OUT KILLED_AT WHAT: ranks 0 and 1 lost ranks 2 and 3 with RCMSG_ERR_CONNECTION
# within the bound, went on checked and finalized
survivors() {
    for r in 0 1; do
        for p in 2 3; do
            line=$(grep "^rank $r: peer $p failed: " "$1") || fail "$3: rank $r: no error for rank $p"
            echo "$line" | grep -q 'first error RCMSG_ERR_CONNECTION at' ||
                fail "$3: rank $r: rank $p's requests did not fail with RCMSG_ERR_CONNECTION: $line"
            at=$(echo "$line" | sed 's/.* at \([0-9.]*\)$/\1/')
            d=$(echo "$at - $2" | bc)
            echo "$3: rank $r: rank $p lost after $d s"
            [ "$(echo "$d <= $bound" | bc)" = 1 ] || fail "$3: rank $r learnt of rank $p's loss after $d s, beyond $bound s"
        done
        grep -q "^rank $r: 5 rounds checked with the live peers after the loss$" "$1" &&
            grep -q "^rank $r: finalized$" "$1" && grep -q "^rank $r: 0 failure(s)$" "$1" ||
            fail "$3: rank $r did not go on with rank $((1 - r)) and finalize cleanly"
    done
    ! grep '^FAIL' "$1" || fail "$3: a survivor failed a check"
}
victims() { sed -n 's/^rank [23]: host node2, pid \([0-9]*\)$/\1/p' "$1" | tr '\n' ' '; }
# strike COMMAND: runs COMMAND on node2 the moment `struck` is set (CLOCK_REALTIME of node1):
# the remote shell is started first, says "ready" and waits on its stdin for the word (a fixed
# 3 s for its start-up may be too short on a loaded host: 14.3 s against the 12.2 s bound, once)
strike() {
    rm -f "$fifo"
    mkfifo "$fifo" || fail "mkfifo $fifo"
    rxe-rsh node2 "echo ready && read go && $1" < "$fifo" > "$work/strike.out" 2>&1 &
    rshpid=$!
    exec 8> "$fifo"
    wait_line "$work/strike.out" '^ready$' 60
    struck=$(date +%s.%N)
    echo go >&8
    exec 8>&-
}

# 1. SIGKILL of node2's ranks under mpirun
launcher=mpirun
# shellcheck disable=SC2086
job 120 "$work/kill.out" $vars -- --enable-recovery "$prog" node2 &
jobpid=$!
wait_line "$work/kill.out" '^rank 0: running' 60
wait_line "$work/kill.out" '^rank 3: host node2, pid' 10
pids=$(victims "$work/kill.out")
grep '^rank [0-3]: host' "$work/kill.out"
[ "$(echo $pids | wc -w)" = 2 ] || fail "kill: not two ranks on node2 (pids '$pids')"
strike "kill -9 $pids"
wait $rshpid || { cat "$work/strike.out"; fail "kill: rxe-rsh node2 kill -9 $pids"; }
wait_line "$work/kill.out" '^rank 0: [0-9]* failure' 60
wait_line "$work/kill.out" '^rank 1: [0-9]* failure' 10
i=0
while [ -n "$(pgrep -x nodes_kill_test)" ]; do # the survivors exit
    i=$((i + 1))
    [ $i -le 100 ] || fail "kill: a survivor still runs 10 s after its last line"
    sleep 0.1
done
sleep 1
pkill -x mpirun # idle since its ranks are gone (above)
wait $jobpid
grep -e '^rank' -e FAIL -e ' error: ' "$work/kill.out" | grep -v ': host '
survivors "$work/kill.out" "$struck" "SIGKILL"
no_leftovers nodes_kill_test
no_leftovers orted
echo "ok: 1. node2's ranks SIGKILLed: ranks 0 and 1 got RCMSG_ERR_CONNECTION within $bound s, finalized"

# 2. node2's VM stopped under srun
if [ "${NODES_SLURM:-}" != up ]; then
    echo "note: no two-node Slurm: part 2 (node2's VM stopped) not run"
    pass "node2's ranks SIGKILLed: the survivors' errors within the bound, nothing left"
fi
# shellcheck disable=SC2086
env $vars timeout -k 10 120 srun --mpi=pmix -N 2 -n 4 --distribution=block "$prog" node2 \
    > "$work/stop.out" 2>&1 &
spid=$!
wait_line "$work/stop.out" '^rank 0: running' 60
grep '^rank [0-3]: host' "$work/stop.out"
[ "$(victims "$work/stop.out" | wc -w)" = 2 ] || fail "stop: not two ranks on node2"
strike 'echo o > /proc/sysrq-trigger'
wait_line "$work/stop.out" '^rank 0: \(finalized\|0 failure\)' 60
wait_line "$work/stop.out" '^rank 1: \(finalized\|0 failure\)' 10
sleep 1
kill $spid 2> /dev/null
grep -e '^rank' -e FAIL -e ' error: ' "$work/stop.out" | grep -v ': host '
survivors "$work/stop.out" "$struck" "VM stopped"
kill $rshpid 2> /dev/null # its connection to the stopped node, until keepalive notices
rxe-rsh node2 true 2> /dev/null
[ $? = 255 ] || fail "stop: node2 still answers"
[ -z "$(pgrep -x nodes_kill_test)" ] || fail "stop: nodes_kill_test left on node1"
echo "ok: no nodes_kill_test left on node1; node2 unreachable (stopped)"
echo "ok: 2. node2's VM stopped: ranks 0 and 1 got RCMSG_ERR_CONNECTION within $bound s, finalized"
pass "a whole node lost (its ranks SIGKILLed; its VM stopped): the survivors' errors within the bound, nothing left"
