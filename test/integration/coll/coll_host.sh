#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The collectives on the host over shared memory: the whole matrix (every collective x every
# algorithm x sizes 0, 1, 7, 1 KiB, 64 KiB, 1 MiB x datatypes/ops, in-place variants, a split
# and a dup, bitwise floating point, no scratch allocated by steady loops, bad arguments) with
# 1, 2, 3, 4, 5 and 8 ranks, and the steady loops again with RCMSG_COLL_CHECK=yes; then each
# algorithm forced through its RCMSG_COLL_*_ALGORITHM variable, seen in the debug log and
# checked again; then a bad algorithm name refused at init. With each rank count, coll_v_test:
# the v-variants, reduce_scatter, scan/exscan, user ops, the nonblocking collectives.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
prog="$top_builddir/test/integration/coll/coll_test"
out=$(mktemp); trap 'rm -f "$out"' EXIT
ops=full sizes8=
if [ "${SANITIZER_BUILD:-no}" = yes ]; then
    ops=some # four (datatype, op) pairs at every size: the full set runs in the plain build
    sizes8="--sizes 0,1,7,1k,64k" # 8 ASan ranks on 2 cores take 2 min more with 1 MiB
    echo "sanitizer build: the matrix runs with --ops some, and on 8 ranks without 1 MiB"
fi

run_np() { # np, then coll_test arguments
    np=$1; shift
    if [ "$np" -eq 1 ]; then
        run_timeout 300 "$prog" "$@" > "$out" 2>&1
    else
        run_timeout 600 "$MPIRUN" --allow-run-as-root -np "$np" --oversubscribe "$prog" "$@" \
            > "$out" 2>&1
    fi
}
check_np() { # np, status, what
    [ "$2" -eq 0 ] && ranks_passed $1 "$out" ||
        { grep -v ' error: rcmsg_' "$out" | head -60; fail "$3: status $2"; }
}

for np in ${COLL_NPS:-1 2 3 4 5 8}; do
    # shellcheck disable=SC2046
    run_np $np --ops $ops $([ $np -eq 8 ] && echo "$sizes8")
    check_np $np $? "matrix on $np rank(s)"
    echo "ok: the matrix on $np rank(s): $(grep "^rank 0 of" "$out")"
    # issue 39's calls: v-variants with zero counts, scans, user ops (non-commutative order),
    # nonblocking collectives outstanding together with point-to-point
    prog="$top_builddir/test/integration/coll/coll_v_test"
    run_np $np
    st=$?
    prog="$top_builddir/test/integration/coll/coll_test"
    check_np $np $st "coll_v_test on $np rank(s)"
    echo "ok: v-variants, scans, user ops, nonblocking on $np rank(s)"
done

# Scratch with RCMSG_COLL_CHECK=yes (the check's exchange takes scratch of its own before each
# call): the steady loops still allocate nothing after their first call
RCMSG_COLL_CHECK=yes run_np 3 --steady-only
check_np 3 $? "RCMSG_COLL_CHECK=yes with the steady loops"
grep -q '^ok: steady loops' "$out" || fail "RCMSG_COLL_CHECK=yes: no steady-loop line"
echo "ok: with RCMSG_COLL_CHECK=yes: $(grep '^ok: steady loops' "$out")"

# Forcing: round i sets every collective to its i-th algorithm (cycling through shorter lists)
set -- "barrier dissemination linear dissemination" \
    "bcast binomial scatter_allgather linear" \
    "reduce binomial reduce_scatter_gather linear" \
    "allreduce recursive_doubling rabenseifner ring" \
    "allgather recursive_doubling bruck ring" \
    "alltoall bruck pairwise bruck" \
    "gather binomial linear binomial" \
    "scatter linear binomial linear" \
    "reduce_scatter recursive_halving ring recursive_halving"
for round in 2 3 4; do
    envs="" expects=""
    for spec in "$@"; do
        coll=${spec%% *}
        alg=$(echo "$spec" | cut -d' ' -f$round)
        var=RCMSG_COLL_$(echo "$coll" | tr a-z A-Z)_ALGORITHM
        envs="$envs $var=$alg"
        expects="$expects --expect $coll=$alg"
    done
    # shellcheck disable=SC2086
    (export RCMSG_LOG_LEVEL=debug $envs
        run_timeout 300 "$MPIRUN" --allow-run-as-root -np 5 --oversubscribe "$prog" --algs env \
            --ops some --sizes 7,64k $expects > "$out" 2>&1)
    check_np 5 $? "forced algorithms ($envs)"
    for spec in "$@"; do
        coll=${spec%% *}
        alg=$(echo "$spec" | cut -d' ' -f$round)
        var=RCMSG_COLL_$(echo "$coll" | tr a-z A-Z)_ALGORITHM
        grep -q "debug: $coll: algorithm $alg ($var)" "$out" ||
            fail "$var=$alg: no debug line shows $coll running $alg"
        grep "debug: $coll: algorithm" "$out" | grep -v "algorithm $alg ($var)" | head -3 |
            grep . && fail "$var=$alg: $coll also ran something else"
    done
    echo "ok: forced via the variables, each seen at debug level with correct results:$envs"
done

# Nothing forced: the automatic choice by size and rank count, also at debug level. With more
# ranks than CPUs a bcast, a reduce (its root combining at most 4 MiB), a gather and a scatter on
# up to 8 ranks go linear (no rank waits for another to forward), and so does the barrier (rank
# 0 released first); gather and scatter on up to 4 ranks too.
if [ "$(nproc)" -ge 5 ]; then
    long_bcast=scatter_allgather long_reduce=reduce_scatter_gather gs=binomial bar=dissemination
else
    long_bcast=linear long_reduce=linear gs=linear bar=linear
fi
RCMSG_LOG_LEVEL=debug run_timeout 300 "$MPIRUN" --allow-run-as-root -np 5 --oversubscribe \
    "$prog" --algs env --ops some --sizes 7,64k --expect allreduce=rabenseifner \
    --expect bcast=$long_bcast --expect reduce=$long_reduce --expect gather=$gs --expect scatter=$gs \
    --expect allgather=ring --expect alltoall=pairwise --expect reduce_scatter=recursive_halving \
    --expect barrier=$bar > "$out" 2>&1
check_np 5 $? "automatic choices"
for line in "allreduce: algorithm recursive_doubling (auto), 7 x" \
    "allgather: algorithm bruck (auto), 7 x" "alltoall: algorithm bruck (auto), 7 x"; do
    grep -q "debug: $line" "$out" || fail "no debug line '$line'"
done
echo "ok: the automatic choices on 5 ranks (7 elements and 64 KiB; long bcast and reduce $long_bcast, gather and scatter $gs, $(nproc) CPUs) as documented"

RCMSG_COLL_ALLREDUCE_ALGORITHM=butterfly run_timeout 60 "$prog" > "$out" 2>&1
st=$?
[ $st -ne 0 ] && grep -q "'butterfly' for RCMSG_COLL_ALLREDUCE_ALGORITHM: expected one of auto|recursive_doubling|rabenseifner|ring" "$out" ||
    { cat "$out"; fail "a bad algorithm name was not refused clearly (status $st)"; }
echo "ok: a bad algorithm name is refused: $(grep -m1 butterfly "$out")"
pass "collectives over sm: matrix on 1-8 ranks, forced algorithms, bad names"
