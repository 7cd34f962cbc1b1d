#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Losses while a rank computes, over rc in the Soft-RoCE guest (issue 41 item 3;
# compute_lib.sh, launcher/compute_test): with RCMSG_ASYNC_PROGRESS=control rc's progress
# thread probes the peers it heard nothing from for a round of RCMSG_LIVENESS_INTERVAL and runs
# the recoveries, so a loss is noticed within the bound of docs/liveness.md while the rank makes
# no rcmsg call, logged then, and its next calls fail at once. RC retries cut to 3 x 4.2 ms
# (RCMSG_IB_TIMEOUT=10, RCMSG_IB_RETRY_COUNT=2) and RCMSG_RECOVERY_TIMEOUT=3s, so the bound
# 2 x 1 s + 13 ms + 3 s = 5 s; 12 s of compute.
# 1. rank 1 SIGKILLed 0.5 s into rank 0's compute (mpirun --enable-recovery): rank 0 logs the
#    connection to peer 1 lost within 5 s (+ slack), during its compute; its wait on a receive
#    from rank 1 and a send to it then fail with RCMSG_ERR_CONNECTION at once
# 2. veth1 (rank 1's rxe1) down for good 0.5 s into both ranks' compute: the recoveries cannot
#    reconnect; each rank logs the peer lost within 5 s (+ slack), during its compute, and its
#    wait and send then fail with RCMSG_ERR_CONNECTION at once
# 3. rcmsg's threads cannot start on rank 0 (compute_test interposes pthread_create): rc's
#    progress thread does not start, rank 0's rcmsg_init fails saying so, rank 1's names rank 0
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
. "$top_srcdir/test/integration/compute_lib.sh"
extra_cleanup() {
    if [ -e /sys/class/net/veth1 ] && ! ip link show veth1 | grep -q '[<,]UP[,>]'; then
        ip link set veth1 up # and the route the down took with it (as rc_recovery.sh)
        ip route replace 10.55.0.1 dev veth1 src 10.55.0.2 table 102 2> /dev/null
    fi
}
secs=12 bound=5
vars="RCMSG_TRANSPORTS=rc,self RCMSG_IB_TIMEOUT=10 RCMSG_IB_RETRY_COUNT=2 RCMSG_RECOVERY_TIMEOUT=3s RCMSG_LAUNCHER_TIMEOUT=30s"
lost="error: \(connection to peer %d lost\|no connection to peer %d\)"
mpi() { echo run_timeout 120 env $vars "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe "$@"; }

# 1. a peer killed
launch $(mpi --enable-recovery) "$prog" peer $secs "$dir"
wait_out 2 "^rank [01]: \(computing\|waiting\)" 90
sleep 0.5
killed=$(now)
kill -9 "$(rank_pid 1)"
wait $jobpid
jobpid=""
within_bound 0 "1. a peer killed" "$(printf "$lost" 1 1)" "$killed" $bound RCMSG_ERR_CONNECTION

# 2. a recovery that fails
if [ -e /sys/class/net/veth1 ]; then
    launch $(mpi) "$prog" all $secs "$dir"
    wait_out 2 "^rank [01]: computing$" 90
    sleep 0.5
    killed=$(now)
    ip link set veth1 down || fail "ip link set veth1 down"
    wait_out 2 "^rank [01]: send after compute: " $((secs + 30))
    extra_cleanup
    wait $jobpid
    jobpid=""
    within_bound 0 "2. link down for good" "$(printf "$lost" 1 1)" "$killed" $bound RCMSG_ERR_CONNECTION
    within_bound 1 "2. link down for good" "$(printf "$lost" 0 0)" "$killed" $bound RCMSG_ERR_CONNECTION
else
    echo "SKIP (part 2): no veth1 to take down (not the rxe guest?)"
fi

# 3. a thread that cannot start
init_fails env $vars "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe
pass "losses while a rank computes over rc: a killed peer and a failed recovery noticed within the bound by the progress thread, the next calls fail at once; a thread that cannot start fails rcmsg_init"
