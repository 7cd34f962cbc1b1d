#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A 2-rank job over rc under valgrind: after rcmsg_finalize nothing of ours is definitely
# lost (QPs, SRQ, CQs, memory registrations, buffers, the async thread; third-party leaks
# inside PMIx_Init and hwloc_topology_load are suppressed in test/valgrind.supp).
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
command -v valgrind >/dev/null || skip "valgrind not installed (apt-get install valgrind)"
out=$(mktemp); trap 'rm -f "$out"' EXIT
run_timeout 900 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe \
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite \
    --undef-value-errors=no --error-exitcode=42 --num-callers=30 \
    --suppressions="$top_srcdir/test/valgrind.supp" \
    "$top_builddir/test/integration/rc/rc_mesh_test" > "$out" 2>&1
st=$?
cat "$out"
[ $st -ne 124 ] || fail "the job hung under valgrind"
grep -q 'definitely lost' "$out" && fail "memory definitely lost (see above)"
[ $st -eq 0 ] || fail "mpirun exited with $st"
ranks_passed 2 "$out" ||
    fail "the mesh itself failed under valgrind"
pass "no leak after rcmsg_finalize (2 ranks over rc, valgrind)"
