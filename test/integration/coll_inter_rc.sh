#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rcmsg.h's intercommunicators over rc in the Soft-RoCE guest (issue 39 item 4): coll_inter_test
# with 2, 3 and 4 ranks, every peer over rc.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
out=$(mktemp); trap 'rm -f "$out"' EXIT
for np in 2 3 4; do
    RCMSG_LOG_LEVEL=info run_timeout 600 "$MPIRUN" --allow-run-as-root -np $np --oversubscribe \
        "$top_builddir/test/integration/coll_inter_test" > "$out" 2>&1
    st=$?
    [ $st -eq 0 ] && [ "$(grep -c "^rank [0-9]* of $np: .* 0 failure(s)\$" "$out")" -eq $np ] ||
        { grep -v ' error: rcmsg_' "$out" | head -60; fail "$np ranks: status $st"; }
    [ "$(grep -c "transports: self for this rank, sm for 0 peer(s), rc for $((np - 1)) peer(s)" "$out")" -eq $np ] ||
        { grep transports "$out"; fail "$np ranks: not every peer over rc"; }
    echo "ok: $np ranks over rc: $(grep "^rank 0 of" "$out")"
done
