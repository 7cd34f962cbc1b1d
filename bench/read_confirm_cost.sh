#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The cost of RCMSG_READ_CONFIRM, inside the Soft-RoCE guest: rendezvous latency (4 KiB-1 MiB)
# and bandwidth (16 KiB-1 MiB) over rc, =no and =yes alternating, 3 repetitions. Lines:
# "no|yes lat|bw SIZE VALUE".
#   flock /work/guest.lock contrib/rxe-vm/rxe-run --rxe 2 --numa --mem 4G --rw TREE \
#       --timeout 1200 -- sh TREE/bench/read_confirm_cost.sh
b=$(cd "$(dirname "$0")/.." && pwd)/build/bench/rcmsg_bench
run() { RCMSG_TRANSPORTS=rc,self timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 "$@"; }
for rep in 1 2 3; do
  for c in no yes; do
    run -x RCMSG_READ_CONFIRM=$c $b latency --min 4k --max 1m --iters 300 --stat median 2>/dev/null | awk -v c=$c '/^[0-9]/ {print c, "lat", $1, $2}'
    run -x RCMSG_READ_CONFIRM=$c $b bw --min 16k --max 1m 2>/dev/null | awk -v c=$c '/^[0-9]/ {print c, "bw", $1, $2}'
  done
done
