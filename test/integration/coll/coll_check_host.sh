#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# RCMSG_COLL_CHECK=yes on 17 and 4 ranks over shared memory (coll_check_test): one rank passes a
# different root, count, datatype or op, calls another collective, refuses its own arguments,
# gives an invalid split color or dups among splits; every rank gets RCMSG_ERR_INVALID_PARAM
# (no hang: the job is killed after 60 s and the test says so) and logs one line naming the
# ranks and the values; the communicator keeps working after each case, and a dup and a split
# made with the check on work. Then the collective matrix (coll_test) with the check on gives
# the right results. (With RCMSG_COLL_CHECK=no, coll_host.sh covers the matching calls.)
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
prog="$top_builddir/test/integration/coll/coll_check_test"
out=$(mktemp) logs=$(mktemp -d)
trap 'rm -rf "$out" "$logs"' EXIT
cases() { # NP: coll_check_test on NP ranks; every rank refuses every case and logs one line each
    np=$1 t0=$(date +%s)
    rm -f "$logs"/*
    mpirun_job 60 "$np" COLL_CHECK_LOG_DIR "$logs" "$prog" RCMSG_COLL_CHECK=yes -- > "$out" 2>&1
    st=$?
    grep -v '^rank [0-9]*: ' "$out"
    [ $st -ne 124 ] || { cat "$out" "$logs"/*.log; fail "coll_check_test on $np ranks hung (killed after 60 s)"; }
    [ $st -eq 0 ] && ranks_passed $np "$out" ||
        { cat "$out" "$logs"/*.log; fail "coll_check_test on $np ranks: status $st"; }
    echo "ok: every case refused on all $np ranks, the communicator still working after each, in $(($(date +%s) - t0)) s"
    # each rank checked its log after each case (one line of the check): the logs must be there
    [ "$(ls "$logs" | wc -l)" -eq "$np" ] || fail "expected $np logs in $logs"
    echo "ok: each of the $np ranks logged one line per case (checked by each rank)"
}

# 17 ranks: more than the check gathers onto the stack
cases 17
grep -qF "error: rcmsg_bcast: collective arguments differ: ranks 0-1,3-16 root 0 count 4 INT32; rank 2 root 1 count 4 INT32 (RCMSG_COLL_CHECK)" "$logs"/*.log ||
    fail "17 ranks: no line naming rank 2's root"

cases 4
cat "$logs"/*.log > "$out"
expect() { # RANKS (of 0 to 3), then the text after "error: ": each of RANKS logged it once, the
    # other ranks not
    for r in 0 1 2 3; do
        l=$(rank_logged $r "$out" "error: $2")
        case ",$1," in
        *",$r,"*) [ -n "$l" ] && [ -z "$(echo "$l" | sed -n 2p)" ] ||
            { cat "$out"; fail "rank $r did not log 'error: $2' once"; } ;;
        *) [ -z "$l" ] || { cat "$out"; fail "rank $r logged 'error: $2'"; } ;;
        esac
    done
}
all=0,1,2,3
expect $all "rcmsg_bcast: collective arguments differ: ranks 0-1,3 root 0 count 4 INT32; rank 2 root 1 count 4 INT32 (RCMSG_COLL_CHECK)"
expect $all "rcmsg_allgather: collective arguments differ: ranks 0-1,3 count 4 INT32; rank 2 count 5 INT32 (RCMSG_COLL_CHECK)"
expect $all "rcmsg_allreduce: collective arguments differ: ranks 0-1,3 count 4 INT32 SUM; rank 2 count 4 FLOAT SUM (RCMSG_COLL_CHECK)"
expect $all "rcmsg_allreduce: collective arguments differ: ranks 0-1,3 count 4 INT32 SUM; rank 2 count 4 INT32 MAX (RCMSG_COLL_CHECK)"
expect 0,1,2 "rcmsg_bcast: ranks call different collectives: ranks 0-2 rcmsg_bcast root 0 count 4 INT32; rank 3 rcmsg_allreduce count 4 INT32 SUM (RCMSG_COLL_CHECK)"
expect 3 "rcmsg_allreduce: ranks call different collectives: ranks 0-2 rcmsg_bcast root 0 count 4 INT32; rank 3 rcmsg_allreduce count 4 INT32 SUM (RCMSG_COLL_CHECK)"
expect $all "rcmsg_bcast: collective arguments differ: ranks 0,2-3 root 0 count 4 INT32; rank 1 root 99 count 4 INT32 (local argument check failed) (RCMSG_COLL_CHECK)"
expect 1 "rcmsg_bcast: root 99 is not a rank of this 4-rank communicator"
expect $all "rcmsg_comm_split: collective arguments differ: ranks 0-1,3 color valid; rank 2 color -5 (colors are >= 0, or RCMSG_UNDEFINED) (RCMSG_COLL_CHECK)"
expect 0,1,2 "rcmsg_comm_split: ranks call different collectives: ranks 0-2 rcmsg_comm_split color valid; rank 3 rcmsg_comm_dup (RCMSG_COLL_CHECK)"
echo "ok: the lines name the ranks and their values, e.g.:"
grep -h 'collective arguments differ: .* root' "$logs"/*.log | head -1
grep -h 'call different' "$logs"/*.log | head -1

# agreeing calls are unaffected: the matrix with the check on (5 ranks: a folded group)
mpirun_job 120 5 COLL_CHECK_LOG_DIR "$logs" "$top_builddir/test/integration/coll/coll_test" \
    RCMSG_COLL_CHECK=yes -- --algs env --ops some --sizes 0,1,7,1k,64k,1m > "$out" 2>&1
st=$?
[ $st -ne 124 ] || fail "coll_test with RCMSG_COLL_CHECK=yes hung"
[ $st -eq 0 ] && ranks_passed 5 "$out" ||
    { cat "$out"; fail "coll_test with RCMSG_COLL_CHECK=yes: status $st"; }
echo "ok: the collective matrix on 5 ranks gives the right results with the check on"
pass "RCMSG_COLL_CHECK: mismatches refused on every rank, named, no hang, communicator usable"
