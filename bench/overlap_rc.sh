#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs INSIDE the Soft-RoCE guest, from the build directory: rcmsg_bench overlap (OSU's
# overlap method, bench/bench_overlap.c) over rc, RCMSG_ASYNC_PROGRESS=full and control
# against Open MPI + UCX (rc_verbs, as bench/guest_inner.sh), alternating, REPS rounds:
#   sh ../bench/overlap_rc.sh [REPS [SIZE]]
# The host side boots it (docs/threads.md "Overlap"):
#   flock /tmp/rxe.lock flock /tmp/bench.lock env RCMSG_TRANSPORTS=rc,self \
#       ../contrib/rxe-vm/rxe-run --rxe 2 --rw SRC -- sh ../bench/overlap_rc.sh 3
set -u
reps=${1:-3} size=${2:-1m}
src=$(cd "$(dirname "$0")" && pwd)
mpirun="mpirun --allow-run-as-root --oversubscribe -np 2"
ucx_env="-x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_IB_GID_INDEX=0 --mca pml ucx --mca btl ^openib,uct"
r=1
while [ "$r" -le "$reps" ]; do
    for w in rndv iallreduce; do
        for m in full control; do
            RCMSG_ASYNC_PROGRESS=$m $mpirun -x RCMSG_ASYNC_PROGRESS -x RCMSG_TRANSPORTS \
                bench/rcmsg_bench overlap $w --min "$size" --max "$size" 2>&1 |
                grep -v '^#' | sed "s/^/round $r rcmsg-$m $w: /"
        done
        $mpirun $ucx_env sh "$src/ucx_dev.sh" bench/rcmsg_bench_mpi overlap $w --min "$size" \
            --max "$size" 2>&1 | grep -v '^#' | sed "s/^/round $r ompi-ucx $w: /"
    done
    r=$((r + 1))
done
