# SPDX-License-Identifier: BSD-3-Clause
# Helpers for monitor_host.sh, monitor_rc.sh and sm_eager_host.sh (sourced after lib.sh):
# jobs of monitor_test ($prog) with a log file per process under $work (removed at exit), and
# checks of the counters (JSON lines of RCMSG_STATS_FILE, the aligned text of RCMSG_STATS) and
# of the dumps. Skips without jq.
command -v jq > /dev/null || skip "jq not found (apt-get install jq)"
prog=$top_builddir/test/integration/monitor/monitor_test
work=$(mktemp -d) out=/dev/null
trap 'rm -rf "$work"' EXIT

# The counters of every peer line and of the rank line (SPEC of issue 16), and the rank's own.
PEER_KEYS="msgs_sent_inline bytes_sent_inline msgs_sent_eager bytes_sent_eager msgs_sent_rndv
    bytes_sent_rndv msgs_recv_eager bytes_recv_eager msgs_recv_rndv bytes_recv_rndv reads
    reads_bytes credit_waits rndv_fallbacks ctrl_sent ctrl_recv qp_transitions cq_errors
    recoveries rereads connects disconnects cm_retries"
RANK_KEYS="unexp_peak unexp_bytes_peak cqes empty_polls qp_syncs qp_sync_mismatches events_dropped"

# the jobs of lib.sh's start, finish and jobfail
job_logvar=MONITOR_DIR
job_hide=' info: \| debug: \|^rcmsg stats:\|^rcmsg dump '
job_show=' \(warn\|error\): '
job_what='warnings and errors'

# job NAME SECONDS NP ...: start and finish
job() {
    start "$@"
    finish "$1" $jobpid
}

# rank_log NAME RANK: the log file of RANK in job NAME
rank_log() {
    [ -s "$work/$1/pid.$2" ] || jobfail "$1: rank $2 wrote no pid file"
    echo "$work/$1/$(cat "$work/$1/pid.$2").log"
}

# wait_file FILE SECONDS: until FILE exists (fails after SECONDS)
wait_file() {
    i=0
    until [ -e "$1" ]; do
        i=$((i + 1))
        [ $i -le $(($2 * 10)) ] || fail "$1 did not appear within $2 s"
        sleep 0.1
    done
}

# ok_ranks NAME MODE NP: every rank ended MODE with 0 failures and finalized
ok_ranks() {
    each_rank "$3" "$out" "$2:.* 0 failures$" || jobfail "$1: not every rank of $3 ended '$2' with 0 failures"
    each_rank $3 "$out" 'finalized$' || jobfail "$1: not every rank finalized"
}

# expect_json WHAT FILE FILTER KEY=VALUE|KEY>=VALUE...: FILE holds JSON lines, exactly one
# object matches FILTER, and each of its KEYs is VALUE (or at least VALUE). Two jq runs (jq
# starts slowly in the emulated guest).
expect_json() {
    what=$1 f=$2 sel=$3
    shift 3
    [ -s "$f" ] || jobfail "$what: no stats file $f"
    obj=$(jq -c "select($sel)" "$f") || { cat "$f"; jobfail "$what: $f is not JSON lines"; }
    [ -n "$obj" ] || { cat "$f"; jobfail "$what: no object of $f matches $sel"; }
    [ -z "$(echo "$obj" | sed -n 2p)" ] || { cat "$f"; jobfail "$what: more than one object of $f matches $sel"; }
    kv=$(echo "$obj" | jq -r 'to_entries[] | select(.value | type != "object") | "\(.key)=\(.value)"')
    bad=
    for c; do
        case $c in
        *'>='*) k=${c%%>=*} v=${c#*>=} op=ge ;;
        *) k=${c%%=*} v=${c#*=} op=eq ;;
        esac
        got=$(echo "$kv" | sed -n "s/^$k=//p")
        if [ $op = ge ]; then
            [ "$got" -ge "$v" ] 2> /dev/null || bad="$bad $k=$got (want >= $v);"
        else
            [ "$got" = "$v" ] || bad="$bad $k=$got (want $v);"
        fi
    done
    [ -z "$bad" ] || { echo "$obj"; jobfail "$what: $sel in $f:$bad"; }
    echo "ok: $what: $sel: $*"
}

# json_complete WHAT FILE: every peer line has every counter, the rank line every per-rank one,
# and each counter of the rank line is the sum of the peer lines'
json_complete() {
    probs=$(jq -s -r --arg pk "$(echo $PEER_KEYS)" --arg rk "$(echo $RANK_KEYS)" '
        ($pk | split(" ")) as $pk | ($rk | split(" ")) as $rk |
        [.[] | select(.scope == "peer")] as $p | [.[] | select(.scope == "rank")] as $r |
        if ($r | length) != 1 then "\($r | length) rank lines, not 1" else
        ($p[] | . as $o | $pk[] | select(($o[.] | type) != "number") | "peer \($o.peer): no \(.)"),
        ($r[0] as $o | ($pk + $rk + ["size"])[] | select(($o[.] | type) != "number") | "rank line: no \(.)"),
        ($pk[] | . as $k | select(([$p[][$k]] | add) != $r[0][$k]) |
            "rank line: \($k) \($r[0][$k]), the peer lines sum to \([$p[][$k]] | add)")
        end' "$2") || jobfail "$1: jq cannot read $2"
    [ -z "$probs" ] || { cat "$2"; echo "$probs"; jobfail "$1: $2 is incomplete"; }
    echo "ok: $1: $2 has every counter, the rank line sums the peer lines"
}

# aligned WHAT FILE: the lines of FILE (one table: header and rows) have as many columns each,
# and every column starts, or ends, at the same position in all of them
aligned() {
    why=$(awk '
    {
        n = 0; inw = 0
        for (i = 1; i <= length($0) + 1; i++) {
            c = substr($0, i, 1)
            if (c != " " && c != "" && !inw) { st[NR, ++n] = i; inw = 1 }
            else if ((c == " " || c == "") && inw) { en[NR, n] = i - 1; inw = 0 }
        }
        nf[NR] = n
    }
    END {
        if (NR < 2) { print NR " line(s)"; exit 1 }
        for (r = 2; r <= NR; r++) if (nf[r] != nf[1]) { print "line " r ": " nf[r] " columns, line 1: " nf[1]; exit 1 }
        for (j = 1; j <= nf[1]; j++) {
            s = 1; e = 1
            for (r = 2; r <= NR; r++) { if (st[r, j] != st[1, j]) s = 0; if (en[r, j] != en[1, j]) e = 0 }
            if (!s && !e) { print "column " j " neither starts nor ends at one position"; exit 1 }
        }
    }' "$2") || { cat "$2"; jobfail "$1: the lines are not aligned: $why"; }
    echo "ok: $1: header and rows aligned"
}

# dump_nth LOG RANK K: the lines of RANK's K-th dump in LOG (K from 1), from its begin line to
# its end line (nothing when there is no K-th begin line)
dump_nth() {
    awk -v p="rcmsg dump [rank $2]: " -v k="$3" '
        index($0, p "begin") == 1 { n++ }
        n == k && index($0, p) == 1 { print; if (index($0, p "end") == 1) exit }' "$1"
}

# dump_is WHAT LOG RANK K KIND [LINE]...: RANK's K-th dump in LOG begins with a line matching
# KIND (a grep pattern: why it was printed), ends with its end line, and has one line (not two)
# matching each LINE (grep patterns of what follows "rcmsg dump [rank R]: ")
dump_is() {
    _w=$1 _log=$2 _rk=$3 _k=$4 _kind=$5
    shift 5
    _d=$(dump_nth "$_log" "$_rk" "$_k")
    [ -n "$_d" ] || jobfail "$_w: rank $_rk printed no dump number $_k"
    echo "$_d" | head -1 | grep -q "$_kind" || jobfail "$_w: rank $_rk's dump $_k does not begin with '$_kind'"
    echo "$_d" | tail -1 | grep -q "^rcmsg dump \[rank $_rk\]: end" ||
        jobfail "$_w: rank $_rk's dump $_k has no end line"
    for _l; do
        _m=$(echo "$_d" | grep -m 2 "^rcmsg dump \[rank $_rk\]: $_l")
        [ -n "$_m" ] && [ -z "$(echo "$_m" | sed -n 2p)" ] ||
            jobfail "$_w: rank $_rk's dump $_k has not one line '$_l'"
    done
}

# no_dump WHAT LOG RANK K: RANK printed no K-th dump (no K-th begin line), nor an end line of
# its own after its (K-1)-th dump's
no_dump() {
    [ -z "$(dump_nth "$2" "$3" "$4")" ] || jobfail "$1: rank $3 printed a dump number $4"
    awk -v p="rcmsg dump [rank $3]: " '
        index($0, p "begin") == 1 { n++; open = 1 } index($0, p "end") == 1 && !open { bad = 1 }
        index($0, p "end") == 1 { open = 0 } END { exit bad }' "$2" ||
        jobfail "$1: rank $3 printed a dump end line outside a dump"
}

# dump_once WHAT LOG RANK KIND: LOG has exactly one dump of RANK, whose begin line matches KIND
# (a grep pattern: why it was printed), its lines contiguous from begin to end
dump_once() {
    pre="rcmsg dump \[rank $3\]:"
    grep "^$pre" "$2"
    dump_is "$1" "$2" "$3" 1 "$4"
    no_dump "$1" "$2" "$3" 2
    # from begin to end, nothing but dump lines (a line of another writer may come between
    # only if rcmsg printed the dump in pieces)
    sed -n "/^$pre begin/,/^$pre end/p" "$2" | grep -v "^$pre" &&
        jobfail "$1: other lines inside rank $3's dump"
    return 0
}

# peer_tables JOB TRANSPORT: the RCMSG_STATS=peer report of JOB's two ranks: the per-peer table
# (rank 0's header, a row per peer) aligned, the summary table after it aligned, and the rows
# "rank 0 peer 1" and "rank 1 peer 0" over TRANSPORT
peer_tables() {
    grep -h '^rcmsg stats:' "$work/$1"/*.log | grep -v ' all ' |
        awk '/ rank / && seen++ { next } { print }' > "$work/table"
    aligned "$1: RCMSG_STATS=peer" "$work/table"
    grep -h '^rcmsg stats:' "$work/$1"/*.log | awk '/ rank / { h = $0 } END { print h }' \
        > "$work/table2"
    grep -h '^rcmsg stats: *[0-9]* *all ' "$work/$1"/*.log >> "$work/table2"
    aligned "$1: RCMSG_STATS=peer, the summary after it" "$work/table2"
    for pair in "0 1" "1 0"; do
        set -- "$1" "$2" $pair
        awk -v r="$3" -v p="$4" -v t="$2" '$3 == r && $4 == p && $5 == t { f = 1 } END { exit !f }' \
            "$work/table" || jobfail "$1: no RCMSG_STATS=peer row 'rank $3 peer $4 $2'"
    done
}
