#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The cost of counting (issue 16): 2-rank ping-pong latency (8 B..1 KiB, median of the
# per-iteration times) and the 8-byte message rate of the tree before the counters (--old)
# against this tree with RCMSG_STATS=no and =peer (the counters are incremented either way;
# the setting only picks the report at finalize), over sm on the host and over rc in ONE boot
# of the Soft-RoCE guest, where a 4th variant also turns the QP state sync off
# (RCMSG_QP_SYNC_INTERVAL=0). Within each round every variant runs once, the first one
# rotating from round to round, so that the machine's drift hits all alike.
#   sh bench/before_after_stats.sh --old TREE [--rounds-sm N] [--rounds-rc N]
#                                  [--phases "sm rc"] [--lock FILE] [--build DIR]
#   sh bench/before_after_stats.sh --summary DIR    (the tables again, from DIR's raw outputs)
# TREE: a built tree of the commit before (git worktree add --detach ../old 7d87e92 &&
# (cd ../old && sh contrib/build.sh)). --lock FILE: every host round and the guest boot hold
# flock FILE (on a shared machine, its guest lock: a host benchmark must not overlap a guest
# run); do not run the script itself under that lock. Writes BUILD/bench-results/stats-DATE/:
# sm.tsv and rc.tsv ("variant lat|rate size value round"), each run's stderr, rounds.log
# (time and load of each round), summary.md (also printed). docs/performance.md has the runs.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build old='' rounds_sm=15 rounds_rc=7 phases="sm rc" lock='' summary_only=''

# one run of each benchmark of one variant: "variant lat|rate size value round" lines
run_variant() { # sm|rc variant round out build old
    t=$1 v=$2 r=$3 o=$4 bin=$5/bench/rcmsg_bench
    case $v in
    before) # the old tree knows neither variable
        bin=$6/build/bench/rcmsg_bench
        set -- env -u RCMSG_STATS -u RCMSG_QP_SYNC_INTERVAL
        ;;
    no) set -- env RCMSG_STATS=no ;;
    peer) set -- env RCMSG_STATS=peer ;;
    sync0) set -- env RCMSG_STATS=peer RCMSG_QP_SYNC_INTERVAL=0 ;;
    esac
    if [ "$t" = sm ]; then
        set -- "$@" RCMSG_TRANSPORTS=self,sm mpirun --allow-run-as-root -np 2 --bind-to core
        li=20000 ri=2000
    else
        set -- "$@" RCMSG_TRANSPORTS=rc,self timeout 300 mpirun --allow-run-as-root \
            --oversubscribe -np 2
        li=3000 ri=200
    fi
    "$@" "$bin" latency --min 8 --max 1k --iters $li --stat median 2> "$o/$t.$v.lat.$r.err" |
        awk -v v="$v" -v r="$r" '/^[0-9]/ {print v, "lat", $1, $2, r}'
    "$@" "$bin" rate --min 8 --max 8 --iters $ri --stat median 2> "$o/$t.$v.rate.$r.err" |
        awk -v v="$v" -v r="$r" '/^[0-9]/ {print v, "rate", $1, $2, r}'
}

# the variants of round r, rotated by r - 1
rotate() { # r variants...
    k=$((($1 - 1) % ($# - 1)))
    shift
    while [ $k -gt 0 ]; do
        first=$1
        shift
        set -- "$@" "$first"
        k=$((k - 1))
    done
    echo "$@"
}

rounds() { # sm|rc rounds out build old lockfd-or-empty variants...
    t=$1 n=$2 o=$3 b=$4 ol=$5 fd=$6
    shift 6
    for r in $(seq 1 "$n"); do
        [ -z "$fd" ] || flock "$fd"
        echo "$t round $r of $n: $(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$o/rounds.log"
        for v in $(rotate "$r" "$@"); do run_variant "$t" "$v" "$r" "$o" "$b" "$ol" >> "$o/$t.tsv"; done
        [ -z "$fd" ] || flock -u "$fd"
    done
}

if [ "${1:-}" = --inner-rc ]; then # inside the guest: OUT ROUNDS BUILD OLD
    echo "guest: $(nproc) vCPUs, $(uname -r)" > "$2/guest.txt"
    rounds rc "$3" "$2" "$4" "$5" '' before no peer sync0
    echo "=== rc done ($(date +%T))"
    exit 0
fi

usage() {
    echo "usage: $0 --old TREE [--rounds-sm N] [--rounds-rc N] [--phases \"sm rc\"] [--lock FILE] [--build DIR]"
    echo "       $0 --summary DIR"
}
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { usage >&2; exit 2; }
    case $1 in
    --old) old=$(cd "$2" && pwd) ;;
    --rounds-sm) rounds_sm=$2 ;;
    --rounds-rc) rounds_rc=$2 ;;
    --phases) phases=$2 ;;
    --lock) lock=$2 ;;
    --build) build=$(cd "$2" && pwd) ;;
    --summary) summary_only=$2 ;;
    *) echo "before_after_stats.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift 2
done

# cell FILE VARIANT KIND SIZE: "median (min-max)" over the rounds (median: the lower middle)
fmt='function f(v) {return v >= 1e6 ? sprintf("%.2fM", v / 1e6) : sprintf(v >= 100 ? "%.0f" : \
    v >= 10 ? "%.1f" : "%.2f", v)}'
cell() {
    awk -v v="$2" -v k="$3" -v s="$4" '$1 == v && $2 == k && $3 == s {print $4}' "$1" | sort -g |
        awk "$fmt"' {x[n++] = $1} END {if (n == 0) print "-"; else
            print f(x[int((n - 1) / 2)]) " (" f(x[0]) "-" f(x[n - 1]) ")"}'
}
# ratio FILE A B KIND SIZE: "m (lo-hi) s/n": the ratio of A's median to B's, the range of
# A/B within each round (the two runs of one round are next to each other in time), and in
# how many of the n rounds A was slower than B
ratio() {
    awk -v a="$2" -v b="$3" -v k="$4" -v s="$5" '$2 == k && $3 == s && ($1 == a || $1 == b) {
            if ($1 == a) {x[$5] = $4; xs[na++] = $4} else {y[$5] = $4; ys[nb++] = $4}}
        function med(arr, n,   i, j, t) {for (i = 1; i < n; i++) for (j = i; j > 0 && \
            arr[j - 1] > arr[j]; j--) {t = arr[j]; arr[j] = arr[j - 1]; arr[j - 1] = t}
            return arr[int((n - 1) / 2)]}
        END {if (na == 0 || nb == 0) {print "-"; exit}
            lo = 1e9; hi = 0
            for (r in x) if (r in y && y[r] > 0) {q = x[r] / y[r]; if (q < lo) lo = q; if (q > hi) hi = q
                n++; if (k == "lat" ? q > 1 : q < 1) slow++}
            printf "%.2f (%.2f-%.2f) %d/%d\n", med(xs, na) / med(ys, nb), lo, hi, slow, n}' "$1"
}

summary_one() { # file title
    f=$1
    [ -s "$f" ] || return 0
    has_sync0=no
    grep -q '^sync0 ' "$f" && has_sync0=yes
    n=$(awk '{print $5}' "$f" | sort -u | wc -l)
    echo "#### $2: median of $n rounds (min-max)"
    echo
    hdr="| benchmark | before (7d87e92) | RCMSG_STATS=no | =peer |" sep="|---|---:|---:|---:|"
    [ $has_sync0 = yes ] && hdr="$hdr =peer, RCMSG_QP_SYNC_INTERVAL=0 |" sep="$sep---:|"
    echo "$hdr"
    echo "$sep"
    rows="lat:8 lat:64 lat:1024 rate:8"
    for row in $rows; do
        k=${row%%:*} s=${row#*:}
        label="latency $s B (us)"
        [ "$k" = rate ] && label="rate $s B (msg/s)"
        line="| $label | $(cell "$f" before "$k" "$s") | $(cell "$f" no "$k" "$s") | $(cell "$f" peer "$k" "$s") |"
        [ $has_sync0 = yes ] && line="$line $(cell "$f" sync0 "$k" "$s") |"
        echo "$line"
    done
    echo
    echo "Ratios: of the medians; in brackets the lowest and highest ratio of the two runs within"
    echo "one round; then in how many rounds the first was slower than the second (ties are not)."
    echo "Latency: above 1 is slower; rate: below 1 is slower."
    echo
    hdr="| benchmark | no/before | peer/before | peer/no |" sep="|---|---:|---:|---:|"
    [ $has_sync0 = yes ] && hdr="$hdr sync0/peer |" sep="$sep---:|"
    echo "$hdr"
    echo "$sep"
    for row in $rows; do
        k=${row%%:*} s=${row#*:}
        line="| $k $s B | $(ratio "$f" no before "$k" "$s") | $(ratio "$f" peer before "$k" "$s") |"
        line="$line $(ratio "$f" peer no "$k" "$s") |"
        [ $has_sync0 = yes ] && line="$line $(ratio "$f" sync0 peer "$k" "$s") |"
        echo "$line"
    done
    echo
}

# the runs' stderr: the peer report was printed, nothing else went wrong
check_errs() { # dir sm|rc
    set -- "$1"/"$2".*.err
    [ -f "$1" ] || return 0
    t=$(basename "$1" | cut -d. -f1)
    reports=0 runs=0
    for e in "$@"; do
        case $e in */"$t".peer.* | */"$t".sync0.*)
            runs=$((runs + 1))
            grep -q '^rcmsg stats:' "$e" && reports=$((reports + 1)) ;;
        esac
    done
    # (the two ranks' report lines can interleave on the shared stderr: only log lines count)
    echo "- $t: RCMSG_STATS=peer report printed by $reports of $runs runs that asked for it;" \
        "warnings and errors in all runs' stderr:" \
        "$(cat "$@" | grep -cE '\] (warn|error|fatal):|mpirun|Segmentation|Abort' || true)"
}

summarize() { # dir
    d=$1
    echo "Command: \`sh bench/before_after_stats.sh $(cat "$d/args" 2>/dev/null)\`"
    echo
    summary_one "$d/sm.tsv" "sm on the host, 2 ranks bound to cores"
    summary_one "$d/rc.tsv" "rc in the guest, 2 ranks (rxe0/rxe1)"
    check_errs "$d" sm
    check_errs "$d" rc
}

if [ -n "$summary_only" ]; then
    summarize "$summary_only"
    exit 0
fi
[ -n "$old" ] || { usage >&2; exit 2; }
for v in "$rounds_sm" "$rounds_rc"; do
    case $v in '' | *[!0-9]* | 0) echo "before_after_stats.sh: --rounds-* take a number > 0" >&2; exit 2 ;; esac
done
for p in $phases; do
    case $p in sm | rc) ;; *) echo "before_after_stats.sh: unknown phase '$p'" >&2; exit 2 ;; esac
done
for b in "$build" "$old/build"; do
    [ -x "$b/bench/rcmsg_bench" ] ||
        { echo "before_after_stats.sh: $b/bench/rcmsg_bench is missing (build first)" >&2; exit 2; }
done
[ -z "$lock" ] || [ -w "$lock" ] || { echo "before_after_stats.sh: cannot write lock file $lock" >&2; exit 2; }
out=$build/bench-results/stats-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
echo "--old $old --rounds-sm $rounds_sm --rounds-rc $rounds_rc --phases \"$phases\"${lock:+ --lock $lock}" > "$out/args"
echo "results in $out"
cd "$build"
for p in $phases; do
    case $p in
    sm)
        fd=''
        if [ -n "$lock" ]; then
            exec 9>> "$lock"
            fd=9
        fi
        rounds sm "$rounds_sm" "$out" "$build" "$old" "$fd" before no peer
        [ -z "$fd" ] || exec 9>&-
        ;;
    rc)
        "$top/contrib/rxe-vm/rxe-run" --check || exit 77
        # shellcheck disable=SC2086
        ${lock:+flock "$lock"} env -u MAKEFLAGS "$top/contrib/rxe-vm/rxe-run" --rxe 2 --numa \
            --mem 4G --rw "$top" --rw "$old" --timeout "${RXE_GUEST_TIMEOUT:-1500}" -- \
            sh "$top/bench/before_after_stats.sh" --inner-rc "$out" "$rounds_rc" "$build" "$old" 2>&1 |
            tee "$out/guest.log"
        ;;
    esac
done
summarize "$out" | tee "$out/summary.md"
