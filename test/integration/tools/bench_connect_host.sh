#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/rcmsg_wireup_bench --peers (the first round trip to each new peer against the next
# ones, used by bench/connect_modes.sh) on the host over shared memory: 4 ranks, 3 rounds, a
# TSV line of 37 columns with numbers where rounds ran and "-" without rounds; bad arguments
# refused with the usage (status 2); bench/connect_summary.sh turns a run, a run cut at its
# limit and a missing run into table rows.
. "$top_srcdir/test/integration/lib.sh"
need_mpirun
prog="$top_builddir/bench/rcmsg_wireup_bench"
[ -x "$prog" ] || fail "$prog is not built"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT

RCMSG_TRANSPORTS=self,sm run_timeout 120 "$MPIRUN" --allow-run-as-root -np 4 --oversubscribe \
    "$prog" --tsv --peers 3 --iters 5 --delay 0 > "$dir/wireup.eager.4" 2> "$dir/err"
st=$?
cat "$dir/wireup.eager.4" "$dir/err"
[ $st -eq 0 ] || fail "4 ranks with --peers 3: status $st"
echo "0 3" > "$dir/wireup.eager.4.status"
awk -F'\t' '/^# ranks/ {h = NF} !/^#/ {d = NF; line = $0} END {exit !(h == 37 && d == 37)}' \
    "$dir/wireup.eager.4" || fail "the TSV header and line do not both have 37 columns"
awk -F'\t' '!/^#/ && $1 == 4 {ok = 1; for (i = 2; i <= 37; i++) if ($i !~ /^-?[0-9.]+$/) ok = 0}
    END {exit !ok}' "$dir/wireup.eager.4" || fail "not every column of 4 ranks, 3 rounds is a number"
echo "ok: 4 ranks, 3 rounds of new peers"

RCMSG_TRANSPORTS=self,sm run_timeout 120 "$MPIRUN" --allow-run-as-root -np 2 --oversubscribe \
    "$prog" --tsv > "$dir/none" 2>&1 || { cat "$dir/none"; fail "2 ranks without --peers"; }
awk -F'\t' '!/^#/ && $1 == 2 {ok = $26 == "-" && $29 == "-" && $2 ~ /^[0-9.]+$/} END {exit !ok}' \
    "$dir/none" || { cat "$dir/none"; fail "without rounds the round-trip columns are not '-'"; }
echo "ok: no rounds, no round trips"

for args in "--peers 65" "--peers x" "--iters -1" "--peers" "--bogus 1"; do
    # shellcheck disable=SC2086
    run_timeout 30 "$prog" $args > "$dir/bad" 2>&1
    st=$?
    if [ $st -ne 2 ] || ! grep -q 'usage: rcmsg_wireup_bench' "$dir/bad"; then
        cat "$dir/bad"
        fail "'$args' not refused with the usage (status $st)"
    fi
done
echo "ok: bad arguments refused"

: > "$dir/wireup.lazy.4"
echo "timeout: killed" > "$dir/wireup.lazy.4.err"
echo "124 3" > "$dir/wireup.lazy.4.status"
sh "$top_srcdir/bench/connect_summary.sh" "$dir" "4 8" "eager lazy" 900 > "$dir/summary" ||
    fail "connect_summary.sh failed"
cat "$dir/summary"
grep -q '^| 4 | eager | 3 | [0-9.]* / [0-9.]* | .* | ok |$' "$dir/summary" || fail "no row for the run"
grep -q '^| 4 | lazy | 3 | - | .* | cut at 900 s |$' "$dir/summary" || fail "no row for the cut run"
grep -q '^| 8 | eager | - | - | .* | not run |$' "$dir/summary" || fail "no row for the missing run"
pass "rcmsg_wireup_bench --peers and connect_summary.sh"
