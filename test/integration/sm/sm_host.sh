#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The point-to-point semantics set on the host over shared memory with 2, 3 and 4 ranks
# (mpirun), once more with CMA refused (copies through the segment), a two-way rendezvous
# stream through tiny rings, a failed rendezvous read, the 4-rank flood, no file left in
# /dev/shm, and no error when a finalized peer exits before the others are done.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
prog="$top_builddir/test/integration/p2p/p2p_test"
out=$(mktemp); trap 'rm -f "$out"' EXIT
shm_before=$(ls /dev/shm | grep -c rcmsg)
for np in 2 3 4; do
    RCMSG_LOG_LEVEL=info run_timeout 300 "$MPIRUN" --allow-run-as-root -np $np --oversubscribe \
        "$prog" > "$out" 2>&1
    st=$?
    [ $st -eq 0 ] || { cat "$out"; fail "np $np: mpirun exited with $st"; }
    ranks_passed $np "$out" ||
        { cat "$out"; fail "np $np: not every rank passed"; }
    each_rank_logged $np "$out" "info: transports: self for this rank, sm for $((np - 1)) peer(s), rc for 0 peer(s)" once ||
        { cat "$out"; fail "np $np: not every peer over sm: $bad"; }
    # a refused call says why: the split with a bad color on the last rank, on every rank
    each_rank_logged $np "$out" "error: rcmsg_comm_split refused: rank $((np - 1)) of the communicator gave color -5" once ||
        { cat "$out"; fail "np $np: not every rank said once why the split was refused: $bad"; }
    echo "ok: $np ranks over sm"
done
# a rank that finalized and exited while a peer was still finishing is no loss: no error about
# it (before the fix, 6 of 15 such runs logged "peer N ... exited" at the end)
for i in 1 2 3 4 5 6 7 8; do
    run_timeout 120 "$MPIRUN" --allow-run-as-root -np 4 --oversubscribe "$prog" > "$out" 2>&1 ||
        { cat "$out"; fail "clean exits, run $i: mpirun failed"; }
    ! grep -E 'error: peer [0-9]+ .*(exited|is gone)' "$out" ||
        fail "clean exits, run $i: a rank called a finalized peer's exit a loss (above)"
done
echo "ok: 8 runs of 4 ranks: no finalized peer's exit reported as a loss"
RCMSG_SM_CMA=no RCMSG_LOG_LEVEL=info run_timeout 300 "$MPIRUN" --allow-run-as-root -np 3 \
    --oversubscribe "$prog" > "$out" 2>&1
st=$?
[ $st -eq 0 ] && ranks_passed 3 "$out" ||
    { cat "$out"; fail "RCMSG_SM_CMA=no: exit $st"; }
grep -q 'large messages are copied through the shared segment' "$out" ||
    fail "the CMA fallback was not announced at info level"
echo "ok: 3 ranks over sm with CMA refused (copies through the segment)"
# both ranks copying through each other's segments at once, with small rings (this deadlocked
# once: a reply that had to wait behind messages in a full ring)
RCMSG_SM_CMA=no RCMSG_SM_CELLS=4 run_timeout 120 "$MPIRUN" --allow-run-as-root -np 2 \
    --oversubscribe "$prog" --swap 200 300000 > "$out" 2>&1
st=$?
[ $st -eq 0 ] && one_line "$out" '^ok: rank 0 swapped 200 messages' &&
    one_line "$out" '^ok: rank 1 swapped 200 messages' ||
    { cat "$out"; fail "two-way staged copies: exit $st, or a rank did not swap its 200 messages"; }
echo "ok: two-way rendezvous through 4-cell rings with CMA refused"
# a rendezvous read that fails (the sender unmapped its buffer) fails the send too, and the
# receive counts no byte
run_timeout 120 "$MPIRUN" --allow-run-as-root -np 2 "$prog" --bad-read > "$out" 2>&1
st=$?
[ $st -eq 0 ] && ranks_passed 2 "$out" ||
    { cat "$out"; fail "a failed rendezvous read: exit $st"; }
grep '^rank [01]: ' "$out"
echo "ok: a failed rendezvous read fails the send and counts no byte"
RCMSG_LOG_LEVEL=info run_timeout 600 "$MPIRUN" --allow-run-as-root -np 4 --oversubscribe \
    "$prog" --flood 10000 > "$out" 2>&1
st=$?
grep -e '^ok' -e 'peaked' "$out"
[ $st -eq 0 ] && ranks_passed 4 "$out" ||
    { cat "$out"; fail "flood over sm: exit $st"; }
# unmatched eager payload is bounded by the credits: 4 peers x 32 x 8 KiB (the rest waits at
# the senders, announced by payload-free RTS headers)
peak=$(sed -n 's/.*unexpected queue peaked at [0-9]* message(s) holding \([0-9]*\) payload bytes.*/\1/p' "$out" | sort -n | tail -1)
[ -n "$peak" ] && [ "$peak" -le 1048576 ] || fail "unexpected payload peaked at '$peak' bytes (> 4 x 32 x 8 KiB)"
[ "$(ls /dev/shm | grep -c rcmsg)" -eq "$shm_before" ] || fail "files left in /dev/shm"
pass "point-to-point over sm with 2, 3, 4 ranks, CMA fallback and flood"
