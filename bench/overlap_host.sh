#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rcmsg_bench overlap on the host over sm, 2 ranks (docs/threads.md "Overlap"):
# RCMSG_ASYNC_PROGRESS=full and control against Open MPI (its default sm/vader path),
# alternating, REPS rounds, at each of SIZES; run from the build directory:
#   flock /tmp/bench.lock sh ../bench/overlap_host.sh [REPS [SIZES [BENCH OPTIONS]]]
# e.g. 3 "1m 16m" "--stat median --iters 300"
set -u
reps=${1:-3} sizes=${2:-1m 16m} opts=${3:-}
mpirun="mpirun --allow-run-as-root --oversubscribe -np 2"
r=1
while [ "$r" -le "$reps" ]; do
    for s in $sizes; do
        for w in rndv iallreduce; do
            for m in full control; do
                RCMSG_ASYNC_PROGRESS=$m $mpirun -x RCMSG_ASYNC_PROGRESS bench/rcmsg_bench overlap \
                    $w --min "$s" --max "$s" $opts 2>&1 | grep -v '^#' | sed "s/^/round $r rcmsg-$m $w: /"
            done
            $mpirun bench/rcmsg_bench_mpi overlap $w --min "$s" --max "$s" $opts 2>&1 | grep -v '^#' |
                sed "s/^/round $r ompi $w: /"
        done
    done
    echo "round $r: load $(cut -d' ' -f1-3 /proc/loadavg)"
    r=$((r + 1))
done
