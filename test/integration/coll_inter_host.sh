#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rcmsg.h's intercommunicators over shared memory (issue 39 item 4): coll_inter_test with 2, 3,
# 4, 5 and 8 ranks (two groups of unequal size): every collective blocking and nonblocking,
# zero counts, user operations, bad arguments, merge.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
for np in ${COLL_INTER_NPS:-2 3 4 5 8}; do
    run_timeout 300 "$MPIRUN" --allow-run-as-root -np "$np" --oversubscribe \
        "$top_builddir/test/integration/coll_inter_test" > "$out" 2>&1
    st=$?
    [ $st -eq 0 ] && [ "$(grep -c "^rank [0-9]* of $np: .* 0 failure(s)\$" "$out")" -eq "$np" ] ||
        { grep -v ' error: rcmsg_' "$out" | head -60; fail "$np ranks: status $st"; }
    echo "ok: $np ranks: $(grep "^rank 0 of" "$out")"
done
