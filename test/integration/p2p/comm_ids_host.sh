#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Communicator context ids agreed by the members (comm_ids_test), 4 ranks over shared memory:
# 100,000 communicators made and freed (dup, split, create_ranks of pairs, 8 held at a time)
# run to the end, with a late message of a freed communicator refused (a warning) and never
# found on a new one; holding duplicates until the limit fails the same dup on every rank with
# RCMSG_ERR_NO_RESOURCE and a line naming the limit, and after freeing them a dup and a split
# work. Then the same through the MPI face (mpi_comm_ids_test: 20,000 communicators of every
# kind; Comm_dup at the limit fails on every rank with MPI_ERR_OTHER). Last, a send cancelled
# after its communicator was freed and its id reused is cancelled, and nobody is lost.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
prog="$top_builddir/test/integration/p2p/comm_ids_test"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
np=4

t0=$(date +%s)
run_timeout 120 "$MPIRUN" --allow-run-as-root -np $np --oversubscribe "$prog" churn 100000 > "$out" 2>&1
st=$?
[ $st -ne 124 ] || { tail -40 "$out"; fail "churn: killed after 120 s"; }
[ $st -eq 0 ] && ranks_passed $np "$out" ||
    { tail -40 "$out"; fail "churn: status $st"; }
each_rank $np "$out" "churn: 100000 communicators made and freed" ||
    { tail -40 "$out"; fail "churn: not every rank made 100000 communicators"; }
grep -q "warn: a 8-byte message from rank 0 (tag 3) on communicator 0x[0-9a-f]* was discarded unreceived: its communicator was freed" "$out" ||
    { tail -40 "$out"; fail "churn: the late message was not refused on rank 1"; }
grep 'churn:' "$out"
echo "ok: 100000 communicators made and freed on $np ranks in $(($(date +%s) - t0)) s; the late message refused"

run_timeout 120 "$MPIRUN" --allow-run-as-root -np $np --oversubscribe "$prog" exhaust > "$out" 2>&1
st=$?
[ $st -ne 124 ] || { tail -40 "$out"; fail "exhaust: killed after 120 s"; }
[ $st -eq 0 ] && ranks_passed $np "$out" ||
    { tail -40 "$out"; fail "exhaust: status $st"; }
each_rank $np "$out" "exhaust: dup [0-9]* failed with RCMSG_ERR_NO_RESOURCE" ||
    { tail -40 "$out"; fail "exhaust: not every rank got RCMSG_ERR_NO_RESOURCE"; }
each_rank_logged $np "$out" "error: rcmsg_comm_dup: no communicator context id is free on every member: a process holds at most 16384 communicators" once ||
    { tail -40 "$out"; fail "exhaust: not every rank named the limit once: $bad"; }
each_rank $np "$out" "exhaust: after freeing them, a dup and a split work" ||
    { tail -40 "$out"; fail "exhaust: the program could not go on after freeing"; }
grep -m1 'error: rcmsg_comm_dup' "$out"
grep 'exhaust: dup' "$out"
echo "ok: at the limit every rank failed the same dup naming it, and went on after freeing"

run_timeout 60 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe "$prog" cancel > "$out" 2>&1
st=$?
[ $st -eq 0 ] && ranks_passed 2 "$out" &&
    each_rank 2 "$out" "cancel: a send on a freed communicator whose id was reused cancelled" &&
    ! grep -q "treated as lost" "$out" ||
    { tail -40 "$out"; fail "cancel after the id was reused: status $st"; }
echo "ok: a send on a freed communicator whose id was reused cancelled, nobody lost"

# the same through the MPI face: Comm_dup, Comm_split, Comm_create, Comm_create_group and
# merged intercommunicators; Comm_dup at the limit returns MPI_ERR_OTHER on every rank
prog="$top_builddir/test/integration/mpi/mpi_comm_ids_test"
run_timeout 120 "$MPIRUN" --allow-run-as-root -np $np --oversubscribe "$prog" churn 20000 > "$out" 2>&1
st=$?
[ $st -eq 0 ] && ranks_passed $np "$out" &&
    grep -q "^ok: churn: 20000 communicators made and freed" "$out" ||
    { tail -40 "$out"; fail "MPI churn: status $st"; }
grep '^ok: churn' "$out"
run_timeout 120 "$MPIRUN" --allow-run-as-root -np $np --oversubscribe "$prog" exhaust > "$out" 2>&1
st=$?
[ $st -eq 0 ] && ranks_passed $np "$out" &&
    each_rank $np "$out" "exhaust: Comm_dup [0-9]* failed: .*RCMSG_ERR_NO_RESOURCE" &&
    grep -q "^ok: exhaust: after freeing them, Comm_dup and Comm_split work" "$out" ||
    { tail -40 "$out"; fail "MPI exhaust: status $st"; }
grep -m1 '^rank [0-9]: exhaust' "$out"
echo "ok: the MPI face: 20000 communicators of every kind made and freed; the limit on every rank"
pass "communicator context ids: 100000 made and freed, a late message never adopted, the limit named on every rank"
