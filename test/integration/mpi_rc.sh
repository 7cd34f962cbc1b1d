#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The project's MPI test programs over rc in the Soft-RoCE guest (every peer over rc:
# RCMSG_TRANSPORTS=rc,self), data checked by the programs: point-to-point and requests,
# operations and blocking collectives, nonblocking collectives overlapped with point-to-point,
# groups/communicators/attributes, and intercommunicators, with 2 to 4 ranks. The guest is slow
# (a 4-rank run costs 9-18 s, mostly start-up), so to stay near 60 s each program runs once:
# p2p, nonblocking collectives and intercommunicators (groups of two and of three) with 4,
# blocking collectives with 3 (not a power of two), groups with 2. Every program with 2 and 4
# ranks took 120 s, these five 44 s; the host runs each with 1 to 8 ranks over sm.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
[ "${SANITIZER_BUILD:-no}" != yes ] ||
    skip "the MPI test programs run under the sanitizers on the host over sm (mpi_*_host.sh); over rc in the emulated guest under ASan they take minutes, beyond the suite's time budget"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT

# run PROG NP PHASES: every rank passed, every phase ran, every peer over rc
run() {
    out="$dir/out"
    t0=$(date +%s)
    RCMSG_TRANSPORTS=rc,self RCMSG_LOG_LEVEL=info run_timeout 120 "$MPIRUN" \
        --allow-run-as-root -np "$2" --oversubscribe "$top_builddir/test/mpi/$1" > "$out" 2>&1
    st=$?
    t=$(($(date +%s) - t0))
    [ $st -eq 0 ] && [ "$(grep -c "^rank [0-9] of $2: 0 failure(s)\$" "$out")" -eq "$2" ] ||
        { grep -v ' error: rcmsg_' "$out" | head -80; fail "$1 with $2 ranks over rc: status $st"; }
    [ "$(grep -c '^ok: ' "$out")" -eq "$3" ] ||
        { cat "$out"; fail "$1 with $2 ranks over rc: $(grep -c '^ok: ' "$out") phase(s), not $3"; }
    [ "$(grep -c "transports: self for this rank, sm for 0 peer(s), rc for $(($2 - 1)) peer(s)" "$out")" -eq "$2" ] ||
        { grep transports "$out"; fail "$1 with $2 ranks: not every peer over rc"; }
    echo "ok: $1 with $2 ranks over rc ($3 phases, ${t} s)"
}
t_all=$(date +%s)
run mpi_p2p_test 4 11
run mpi_coll_test 3 5
run mpi_nbc_test 4 9
run mpi_group_test 2 4
run mpi_inter_test 4 2
echo "all runs: $(($(date +%s) - t_all)) s"
pass "MPI p2p, collectives, nonblocking collectives, groups and intercommunicators over rc"
