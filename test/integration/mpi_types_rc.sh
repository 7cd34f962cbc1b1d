#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Noncontiguous datatypes in MPI point-to-point (test/mpi/mpi_types_p2p.c) over rc in the
# Soft-RoCE guest with 2, 3 and 4 ranks, data checked.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
[ "${SANITIZER_BUILD:-no}" != yes ] ||
    skip "the MPI datatype programs run under the sanitizers on the host over sm (mpi_*_host.sh); over rc in the emulated guest under ASan they take minutes, beyond the suite's time budget"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
prog="$top_builddir/test/mpi/mpi_types_p2p"
for np in 2 3 4; do
    RCMSG_TRANSPORTS=rc,self RCMSG_LOG_LEVEL=info run_timeout 300 "$MPIRUN" --allow-run-as-root \
        -np $np --oversubscribe "$prog" > "$dir/out" 2>&1
    st=$?
    [ $st -eq 0 ] && [ "$(grep -c "^rank [0-9] of $np: 0 failure(s)\$" "$dir/out")" -eq $np ] ||
        { grep -v ' error: rcmsg_' "$dir/out" | head -60; fail "$np ranks: status $st"; }
    [ "$(grep -c "transports: self for this rank, sm for 0 peer(s), rc for $((np - 1)) peer(s)" "$dir/out")" -eq $np ] ||
        { grep transports "$dir/out"; fail "$np ranks: not every peer over rc"; }
    echo "ok: $np ranks over rc"
done
pass "noncontiguous datatypes in point-to-point over rc with 2, 3 and 4 ranks"
