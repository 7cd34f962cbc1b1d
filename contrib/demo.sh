#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The main demo: installs what it needs (Debian 12), builds rcmsg, runs a 4-rank ping-pong on
# this machine over shared memory, then boots the Soft-RoCE guest (two rxe devices on a veth
# pair) and runs a 4-rank job over RC queue pairs under mpirun (RCMSG_TRANSPORTS=rc,self):
# rcmsg_info shows the devices; then every rank connects to every other rank in rcmsg_init()
# (wireup choices and phase times logged at info level) and ranks 0 and 1 ping-pong messages
# from 0 bytes to 4 MiB (eager, then rendezvous with RDMA_READ), each reply checked.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/contrib/install-deps.sh"
sh "$top/contrib/build.sh"
cd "$top/build"
echo "=== on this machine, over shared memory: mpirun -np 4 rcmsg_pingpong"
mpirun --allow-run-as-root -np 4 --oversubscribe ./src/tools/rcmsg_pingpong --iters 1000
echo
if ! why=$("$top/contrib/rxe-vm/rxe-run" --check 2>&1); then
    echo "the Soft-RoCE guest cannot run here ($why): the RC part of the demo is skipped"
    exit 0
fi
exec "$top/contrib/rxe-vm/rxe-run" --rxe 2 --mem 4G --rw "$top" -- sh -c '
    echo "=== rcmsg_info --devices (inside the Soft-RoCE guest)"
    ./src/tools/rcmsg_info --devices
    echo
    echo "=== mpirun -np 4 rcmsg_pingpong: the RC mesh wired up at init, ranks 0 and 1 ping-pong"
    RCMSG_TRANSPORTS=rc,self RCMSG_LOG_LEVEL=info mpirun --allow-run-as-root -np 4 --oversubscribe \
        ./src/tools/rcmsg_pingpong --iters 100 2>&1 | grep -v -e " info: candidate" -e " info: qp 0x"
'
