#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Before/after a change over rc, inside the Soft-RoCE guest: 1 B..8 KiB ping-pong latency
# (median of per-iteration times) and the 1 B..1 KiB message rate, two builds alternating,
# 3 repetitions (REPS=N to change). Lines: "old|new lat|rate SIZE VALUE".
#   flock /work/guest.lock contrib/rxe-vm/rxe-run --rxe 2 --numa --mem 4G --rw OLD_TREE \
#       --rw NEW_TREE --timeout 1500 -- sh NEW_TREE/bench/before_after_rc.sh OLD_TREE NEW_TREE
old=${1:?old tree}; new=${2:?new tree}
run() {
    RCMSG_TRANSPORTS=rc,self timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 "$@"
}
for rep in $(seq 1 "${REPS:-3}"); do
  for v in old new; do
    d=$old; [ $v = new ] && d=$new
    run $d/build/bench/rcmsg_bench latency --max 8k --iters 3000 --stat median 2>/dev/null |
        awk -v v=$v '/^[0-9]/ {print v, "lat", $1, $2}'
    run $d/build/bench/rcmsg_bench rate --max 1k 2>/dev/null |
        awk -v v=$v '/^[0-9]/ {print v, "rate", $1, $2}'
  done
done
