#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Locked memory (docs/rc.md, "Locked memory"): as a process without CAP_IPC_LOCK under Debian's
# default `ulimit -l` (8 MiB), a 2-rank rc job runs, its pools shrunk to half the limit with
# a warning naming `ulimit -l` and the sizes; under 512 KiB it fails at init with the error
# naming memlock; with CAP_IPC_LOCK (root) the limit does not apply and nothing is shrunk.
. "$top_srcdir/test/integration/lib.sh"
need_rdma
need_mpirun
command -v setpriv > /dev/null || skip "setpriv not found (util-linux)"
out=$(mktemp); trap 'rm -f "$out"' EXIT
pingpong="$top_builddir/src/tools/rcmsg_pingpong"
# drop_ipc_lock KIB COMMAND...: COMMAND without CAP_IPC_LOCK (nor its children), ulimit -l KIB
drop_ipc_lock() {
    kib=$1; shift
    setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock \
        sh -c 'ulimit -l "$0" && exec "$@"' "$kib" "$@"
}
capeff=$(drop_ipc_lock 8192 grep CapEff /proc/self/status) || skip "setpriv cannot drop CAP_IPC_LOCK here"
[ $(( 0x$(echo "$capeff" | awk '{print $2}') >> 14 & 1 )) -eq 0 ] || fail "CAP_IPC_LOCK still there: $capeff"

drop_ipc_lock 8192 timeout -k 10 300 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe \
    "$pingpong" --iters 10 --max 1048576 > "$out" 2>&1
st=$?
cat "$out"
[ $st -eq 0 ] || fail "under ulimit -l 8192 without CAP_IPC_LOCK: mpirun exited with $st"
grep -q '^ *1048576 ' "$out" || fail "the ping-pong did not reach 1 MiB"
each_rank_logged 2 "$out" "warn: the locked memory limit ('ulimit -l') is 8192 KiB: rc on [a-z0-9_]* uses 304 receive buffers (RCMSG_SRQ_SIZE asks 1024) and 151 send buffers (RCMSG_SEND_BUFS asks 512) of 9216 bytes" once ||
    fail "each rank must warn once naming ulimit -l and the sizes chosen: $bad"
echo "ok: under ulimit -l 8192 without CAP_IPC_LOCK the job ran, with 304 + 151 buffers"

drop_ipc_lock 512 timeout -k 10 300 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe \
    "$pingpong" --iters 10 --max 1024 > "$out" 2>&1
st=$?
cat "$out"
[ $st -ne 124 ] || fail "under ulimit -l 512: the job hung"
[ $st -ne 0 ] || fail "under ulimit -l 512: the job should have failed"
grep -q "error: the locked memory limit (memlock, 'ulimit -l') of 512 KiB is too low for rc on [a-z0-9_]*: it needs at least 2304 KiB" "$out" ||
    fail "under ulimit -l 512: no error naming memlock, the limit and the minimum"
echo "ok: under ulimit -l 512 init fails naming memlock and the minimum"

# root with CAP_IPC_LOCK: the limit does not apply to registrations, nothing shrinks
sh -c 'ulimit -l 512 && exec "$@"' sh timeout -k 10 300 "$MPIRUN" --allow-run-as-root -np 2 \
    --oversubscribe "$pingpong" --iters 10 --max 1024 > "$out" 2>&1
st=$?
[ $st -eq 0 ] || { cat "$out"; fail "with CAP_IPC_LOCK under ulimit -l 512: mpirun exited with $st"; }
! grep -q 'locked memory limit' "$out" || { cat "$out"; fail "with CAP_IPC_LOCK: the limit was applied"; }
echo "ok: with CAP_IPC_LOCK the limit is ignored"
pass "rc fits its pools to the locked memory limit"
