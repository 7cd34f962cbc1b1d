#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A rank exits before rcmsg_init and mpirun --enable-recovery reports its termination to the
# others before their address exchange begins (test/integration/launcher/early_exit_test.c orders it
# so: mpirun tells a rank that registers its event handler after the termination): their rcmsg_init fails at once with RCMSG_ERR_CONNECTION naming rank 1, not after
# RCMSG_LAUNCHER_TIMEOUT (300 s by default; it used to wait for it, since only a termination
# reported during the wait shortened it). Under srun there is nothing to test: Slurm 22.05's
# mpi/pmix reports no termination of a task that never called PMIx_Init (exit status 0 or
# not), so the others wait for RCMSG_LAUNCHER_TIMEOUT (launcher_srun.sh checks that bound).
# early_exit_rc.sh runs this over rc in the guest.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
slack=3
[ "${SANITIZER_BUILD:-no}" = yes ] && slack=10
for st in 0 3; do
    rm -f "$dir"/gone*
    run_timeout 120 env -u RCMSG_LAUNCHER_TIMEOUT EARLY_EXIT_RANK=1 EARLY_EXIT_STATUS=$st \
        EARLY_EXIT_PEERS=2 EARLY_EXIT_FILE="$dir/gone" "$MPIRUN" --allow-run-as-root -np 3 --oversubscribe \
        --enable-recovery "$top_builddir/test/integration/launcher/early_exit_test" > "$dir/out" 2>&1
    rc=$?
    cat "$dir/out"
    what="rank 1 exiting with status $st"
    [ $rc -ne 124 ] || fail "$what: the job hung"
    grep -q '^rank 1: exiting before rcmsg_init' "$dir/out" || fail "$what: rank 1 did not exit early"
    for r in 0 2; do
        grep -q "^rank $r: rank 1 has exited; rcmsg_init goes on" "$dir/out" ||
            fail "$what: rank $r did not wait for rank 1's exit"
        line=$(grep "^rank $r: init: " "$dir/out") || fail "$what: rank $r: rcmsg_init did not return"
        echo "$line" | grep -q 'init: RCMSG_ERR_CONNECTION after' ||
            fail "$what: rank $r: rcmsg_init did not fail with RCMSG_ERR_CONNECTION"
        secs=$(echo "$line" | sed 's/.* after \([0-9.]*\) s$/\1/')
        awk -v s="$secs" -v b="$slack" 'BEGIN { exit !(s <= b) }' ||
            fail "$what: rank $r: rcmsg_init failed after $secs s, not at once (bound $slack s)"
        grep -q "^\[rcmsg [^ ]*:$r [0-9]*\] error: the address exchange of rcmsg_init: not every rank arrived; the launcher reports rank(s) 1 terminated" "$dir/out" ||
            fail "$what: rank $r did not name rank 1"
    done
    echo "ok: $what: the others' rcmsg_init failed at once naming it"
done
pass "a termination reported before rcmsg_init's fence ends the fence at once, naming the rank"
