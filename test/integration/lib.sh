# SPDX-License-Identifier: BSD-3-Clause
# Helpers for the integration test scripts (sourced). Exit codes: 0 pass, 1 fail, 77 skip.
set -u
pass() { echo "PASS: $*"; exit 0; }
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
need_rdma() {
    [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ] ||
        skip "no RDMA device here (these tests run inside the Soft-RoCE guest: make check-rdma)"
}
need_mpirun() {
    [ -n "${MPIRUN:-}" ] && [ -x "$MPIRUN" ] || skip "mpirun not found (apt-get install openmpi-bin)"
}
# run_timeout SECONDS COMMAND...: a hang becomes a failure with status 124
run_timeout() { t=$1; shift; timeout -k 10 "$t" "$@"; }
# cm_loss DEV PCT: netem drops PCT% of the rc connection manager's UD packets leaving DEV (RoCE
# v2 on UDP port 4791 with the BTH opcode 0x64, UD SEND only), not the RC traffic: random loss
# of RC data makes rxe stall its RDMA reads ("rdma_rxe: Failed sending ACK") until a timeout.
# Replaces DEV's root qdisc; the caller deletes it.
cm_loss() {
    tc qdisc add dev "$1" root handle 1: prio &&
        tc qdisc add dev "$1" parent 1:3 handle 30: netem loss "$2%" &&
        tc filter add dev "$1" parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff \
            match ip dport 4791 0xffff match u8 0x64 0xff at 28 flowid 1:3
}

# mpirun_job SECONDS NP LOGVAR LOGDIR PROGRAM [VAR=VALUE | MPIRUN-OPTION]... -- ARGS...: runs
# PROGRAM ARGS under mpirun (NP ranks, oversubscribed, the MPIRUN-OPTIONs added) bounded by
# run_timeout SECONDS, with the VARs and LOGVAR=LOGDIR in its environment (the test programs
# write each process's log to LOGDIR/PID.log: test_log.h).
mpirun_job() {
    _secs=$1 _np=$2 _logvar=$3 _logdir=$4 _prog=$5
    shift 5
    _vars='' _opts=''
    while [ "$1" != -- ]; do
        case $1 in
        *=*) _vars="$_vars $1" ;;
        *) _opts="$_opts $1" ;;
        esac
        shift
    done
    shift
    run_timeout "$_secs" env $_vars "$_logvar=$_logdir" "$MPIRUN" --allow-run-as-root \
        -np "$_np" --oversubscribe $_opts "$_prog" "$@"
}
