#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Losses while a rank computes, over sm (issue 41 item 3; compute_lib.sh): with the default
# RCMSG_ASYNC_PROGRESS=control the watch thread notices them while the rank makes no rcmsg
# call, logs them within the bound (~0.1 s: docs/liveness.md), and the rank's next calls fail
# at once.
# 1. a local peer SIGKILLed (mpirun --enable-recovery, 2 ranks, 5 s of compute): rank 0 logs
#    "peer 1 ... exited" within 0.1 s (+ slack: compute_lib.sh); its wait on a receive from rank 1 and a send to
#    it then fail with RCMSG_ERR_CONNECTION at once
# 2. the same with RCMSG_ASYNC_PROGRESS=no: the loss is logged only at the next call (after
#    the compute), as before the thread: the check of 1 tells the two apart
# 3. mpirun SIGKILLed while both ranks compute: each logs the lost launcher within 0.1 s
#    (+ slack), its wait and a send then fail with RCMSG_ERR_LAUNCHER at once; the same with
#    slurmstepd under srun when Slurm is usable here
# 4. rcmsg's threads cannot start on rank 0 (compute_test interposes pthread_create): its
#    rcmsg_init fails saying so, and rank 1's names rank 0 (SKIP in a sanitizer build)
# threads_tsan.sh runs it again from its TSan build (COMPUTE_NO_SLURM: mpirun only).
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
. "$top_srcdir/test/integration/compute_lib.sh"
secs=5
mpi() { run_timeout 60 env "$@" "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe; }

# peer_case WHAT VAR=VALUE...: rank 1 killed 0.5 s into rank 0's compute; $killed, the time
peer_case() {
    _w=$1
    shift
    launch run_timeout 60 env "$@" "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe \
        --enable-recovery "$prog" peer $secs "$dir"
    wait_out 2 "^rank [01]: \(computing\|waiting\)" 30
    sleep 0.5
    killed=$(now)
    kill -9 "$(rank_pid 1)"
    wait $jobpid
    jobpid=""
    echo "$_w: rank 1 killed at $killed"
}

peer_case "1. peer" RCMSG_TRANSPORTS=sm,self
within_bound 0 "1. a local peer killed" "error: peer 1 (local rank 1, pid [0-9]*) \(exited\|is gone\)" \
    "$killed" 0.1 RCMSG_ERR_CONNECTION

peer_case "2. peer, no thread" RCMSG_TRANSPORTS=sm,self RCMSG_ASYNC_PROGRESS=no
line=$(grep -m 1 "error: peer 1 (local rank 1" "$dir/log.0") || { show; fail "2. rank 0 never logged the loss"; }
end=$(sed -n "s/^rank 0: computing from [0-9.]* to \([0-9.]*\) .*/\1/p" "$dir/out.0")
le "$end" "${line%% *}" || { show; fail "2. with RCMSG_ASYNC_PROGRESS=no the loss was logged during the compute: the check of 1 does not tell"; }
echo "ok: 2. RCMSG_ASYNC_PROGRESS=no: the loss is logged at the next call, after the compute (at ${line%% *}, compute ended at $end)"

# launcher_case WHAT LAUNCH...: the launcher process (rank 0's parent) killed 0.5 s into the compute
launcher_case() {
    _w=$1
    shift
    launch "$@" "$prog" all $secs "$dir"
    wait_out 2 "^rank [01]: computing$" 60
    sleep 0.5
    victim=$(ps -o ppid= -p "$(rank_pid 0)" | tr -d ' ')
    echo "$_w: killing the launcher process $(ps -o pid=,comm= -p "$victim")"
    killed=$(now)
    kill -9 "$victim"
    wait_out 2 "^rank [01]: finalize: " $((secs + 10))
    ! command -v end_job > /dev/null || end_job
    wait $jobpid 2> /dev/null
    jobpid=""
    for r in 0 1; do
        within_bound $r "$_w" "error: lost the connection to the launcher (mpirun or slurmstepd)" \
            "$killed" 0.1 RCMSG_ERR_LAUNCHER
    done
}

launcher_case "3. mpirun killed" run_timeout 60 env RCMSG_TRANSPORTS=sm,self "$MPIRUN" \
    --allow-run-as-root -np 2 --oversubscribe
slurm="$top_srcdir/contrib/slurm/slurm-local"
if [ -n "${COMPUTE_NO_SLURM:-}" ]; then
    echo "SKIP (part): COMPUTE_NO_SLURM is set (threads_tsan.sh: mpirun's case is enough there)"
elif why=$("$slurm" --check 2>&1); then
    eval "$("$slurm" start)" || fail "slurm-local start failed"
    extra_cleanup() { "$slurm" stop > /dev/null 2>&1; }
    end_job() { for j in $(squeue -h -o %i); do scancel "$j"; done; }
    launcher_case "3. slurmstepd killed" run_timeout 60 env RCMSG_TRANSPORTS=sm,self srun --mpi=pmix -n 2
else
    echo "SKIP (part): Slurm is not usable here: $why"
fi

init_fails env RCMSG_TRANSPORTS=sm,self "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe
pass "losses while a rank computes over sm: a peer and the launcher noticed within the bound, the next calls fail at once; a thread that cannot start fails rcmsg_init"
