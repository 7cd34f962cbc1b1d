#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Before/after a change on the host over sm: 8 B..4 KiB ping-pong latency (median of
# per-iteration times), the 8-byte message rate and the 1 MiB bandwidth (rendezvous: CMA),
# two builds alternating, 3 repetitions (REPS=N to change).
#   sh bench/before_after_sm.sh OLD_TREE NEW_TREE   (each with a built build/ directory)
old=${1:?old tree}; new=${2:?new tree}
for rep in $(seq 1 "${REPS:-3}"); do
  for v in old new; do
    d=$old; [ $v = new ] && d=$new
    RCMSG_TRANSPORTS=self,sm mpirun --allow-run-as-root -np 2 --bind-to core $d/build/bench/rcmsg_bench latency --min 8 --max 4096 --stat median --iters 20000 2>/dev/null | awk -v v=$v '/^[0-9]/ {print v, "lat", $1, $2}'
    RCMSG_TRANSPORTS=self,sm mpirun --allow-run-as-root -np 2 --bind-to core $d/build/bench/rcmsg_bench rate --min 8 --max 8 2>/dev/null | awk -v v=$v '/^[0-9]/ {print v, "rate", $1, $2}'
    RCMSG_TRANSPORTS=self,sm mpirun --allow-run-as-root -np 2 --bind-to core $d/build/bench/rcmsg_bench bw --min 1m --max 1m --stat median 2>/dev/null | awk -v v=$v '/^[0-9]/ {print v, "bw", $1, $2}'
  done
done
