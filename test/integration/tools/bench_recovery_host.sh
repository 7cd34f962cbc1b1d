#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/rcmsg_recovery_bench and bench/recovery.sh's tables (issue 15's benchmark), on the
# host: the undisturbed stream over sm (eager and rendezvous sizes, every message checked, the
# gap summary), breaks asked for without rc said to be a SKIP (77), bad arguments refused
# (status 2, naming the argument), and recovery.sh --summary turning raw outputs (the warn
# lines in rc_rec.c's format, the bench's lines, yes/no/old runs) into the right medians.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
prog="$top_builddir/bench/rcmsg_recovery_bench"
[ -x "$prog" ] || fail "$prog is not built"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT

RCMSG_TRANSPORTS=self,sm run_timeout 120 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe \
    "$prog" --errors 0 --between 3000 --sizes 8,1024,65536 --window 8 > "$dir/out" 2>&1
st=$?
cat "$dir/out"
[ $st -eq 0 ] || fail "the undisturbed stream over sm: status $st"
grep -q '^# 3000 messages received in order and intact$' "$dir/out" ||
    fail "the receiver did not report 3000 intact messages"
grep -Eq '^summary gap median [0-9.]+ p90 [0-9.]+ max [0-9.]+ n 2999$' "$dir/out" ||
    fail "no gap summary over 2999 gaps"
echo "ok: 3000 messages of 8 B, 1 KiB and 64 KiB over sm, in order and intact"

RCMSG_TRANSPORTS=self,sm run_timeout 120 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe \
    "$prog" --errors 2 > "$dir/out" 2>&1
st=$?
[ $st -eq 77 ] && grep -q '^SKIP: --errors needs the rc transport' "$dir/out" ||
    { cat "$dir/out"; fail "breaks without rc: status $st, not a SKIP"; }
echo "ok: breaks without rc are a SKIP"

for args in "--sizes 4" "--sizes 8,x" "--kind bogus" "--window 0" "--errors -1" "--bogus"; do
    # shellcheck disable=SC2086
    run_timeout 30 "$prog" $args > "$dir/bad" 2>&1
    st=$?
    if [ $st -ne 2 ] || ! grep -q -e "${args%% *}" "$dir/bad"; then
        cat "$dir/bad"
        fail "'$args' not refused naming it (status $st)"
    fi
done
echo "ok: bad arguments refused"

# recovery.sh --summary on made-up raw outputs
r=$dir/res
mkdir "$r"
warn() { # peer cause ms count how
    echo "rcmsg warn: rc: connection to peer $1 recovered: qp 0x11 -> 0x12, cause $2, psn sq 0x1" \
        "rq 0x2 when it broke; replayed 3 message(s) (3072 bytes) and 0 read(s) (0 bytes), 1" \
        "already delivered; in $3 ms (recovery $4 of this connection, $5)"
}
printf '# 0 breaks (reset)\nsummary gap median 150.00 p90 200.00 max 900.00 n 799\nexit 0\n' \
    > "$r/rec.none.out"
for k in reset fatal; do
    how="qp reset" m=1
    [ $k = fatal ] && how="qp re-created" m=10
    {
        echo "# 3 breaks ($k) of rank 0's qp to rank 1, every 400 messages; sizes 1024; window 16"
        for i in 0 1 2; do
            echo "counted $i $(((i + 1) * 1000 * m)).0"
            echo "stall $i $(((i + 2) * 1000 * m)).0"
        done
        echo "summary gap median 160.00 p90 210.00 max 5000.00 n 1599"
        echo "recoveries rank 0 3"
        echo "exit 0"
    } > "$r/rec.$k.out"
    : > "$r/rec.$k.err"
    for i in 1 2 3; do
        cause="forced by test hook"
        [ $k = fatal ] && cause="async event local catastrophic error"
        warn 1 "$cause" "$((i * m)).5" $i "$how" >> "$r/rec.$k.err"
        warn 0 "the peer's side broke" "$((i * m * 2)).0" $i "$how" >> "$r/rec.$k.err"
    done
done
for v in yes no old; do
    for rep in 1 2 3; do
        echo "$v lat 8 $((rep * 10)).0 $rep"
        echo "$v rate 8 $((rep * 1000)) $rep"
    done
done > "$r/steady.tsv"
sh "$top_srcdir/bench/recovery.sh" --summary "$r" > "$dir/summary" 2>&1 ||
    { cat "$dir/summary"; fail "recovery.sh --summary failed"; }
cat "$dir/summary"
expect() { grep -qF -- "$1" "$dir/summary" || fail "the summary has no '$1'"; }
expect '| warn line "in T ms", breaking side (rank 0), ms | 2.5 / 3.5 / 3.5 (n 3) | 20.5 / 30.5 / 30.5 (n 3) |'
expect '| warn line "in T ms", passive side (rank 1), ms | 4.0 / 6.0 / 6.0 (n 3) | 40.0 / 60.0 / 60.0 (n 3) |'
expect '| rank 0: break to its recovery count moving, ms | 2.0 / 3.0 / 3.0 (n 3) | 20.0 / 30.0 / 30.0 (n 3) |'
expect '| rank 1: longest gap between receives around a break, ms | 3.0 / 4.0 / 4.0 (n 3) |'
expect 'gap between two receive completions median / p90 / max 150.00 / 200.00 / 900.00 us'
expect '| 8 B | 20.0 (10.0-30.0) | 20.0 (10.0-30.0) | 1.00 | 20.0 (10.0-30.0) | 1.00 |'
expect '| 8 B | 2000 (1000-3000) | 2000 (1000-3000) | 1.00 | 2000 (1000-3000) | 1.00 |'
echo "ok: recovery.sh --summary"
