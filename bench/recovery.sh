#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Recovery from QP errors (issue 15), measured: what a broken rc connection costs the
# application, and what RCMSG_RECOVERY=yes costs when nothing breaks (docs/performance.md).
#   sh bench/recovery.sh [--errors N] [--reps R] [--old TREE] [--phases "recovery steady sm"]
#                        [--build DIR]
#   sh bench/recovery.sh --summary DIR      (the tables again, from DIR's raw outputs)
# Phases:
#   recovery  in ONE boot of the Soft-RoCE guest (with steady): N breaks (default 50) of a
#             2-rank stream's qp, reset and re-created (bench/recovery_bench.c): the time each
#             warn line reports, the longest gap in the receiver's completions per break, and
#             the undisturbed gaps
#   steady    in the same boot: latency and message rate 8 B..8 KiB over rc with
#             RCMSG_RECOVERY=yes and =no (and TREE's build, before recovery, with --old),
#             interleaved, R repetitions (default 5)
#   sm        on the host afterwards: the same yes/no comparison over sm (rc-only recovery:
#             sm should not move)
# The guest run must hold the machine's guest lock: flock /work/guest.lock sh bench/recovery.sh
# Writes DIR=BUILD/bench-results/recovery-DATE/: raw outputs and summary.md (also printed).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build errors=50 reps=5 old='' phases="recovery steady sm" summary_only=''
usage() {
    echo "usage: $0 [--errors N] [--reps R] [--old TREE] [--phases \"recovery steady sm\"] [--build DIR]"
    echo "       $0 --summary DIR"
}
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { usage >&2; exit 2; }
    case $1 in
    --errors) errors=$2 ;;
    --reps) reps=$2 ;;
    --old) old=$(cd "$2" && pwd) ;;
    --phases) phases=$2 ;;
    --build) build=$(cd "$2" && pwd) ;;
    --summary) summary_only=$2 ;;
    *) echo "recovery.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift 2
done
for v in "$errors" "$reps"; do
    case $v in '' | *[!0-9]*) echo "recovery.sh: --errors and --reps take a number" >&2; exit 2 ;; esac
done
for p in $phases; do
    case $p in recovery | steady | sm) ;; *) echo "recovery.sh: unknown phase '$p'" >&2; exit 2 ;; esac
done

# stats: values on stdin, one a line -> "median p90 max n" (median and p90 as the bench's)
stats() {
    sort -g | awk '{v[n++] = $1} END {if (n == 0) {print "- - - 0"; exit}
        p = int(n * 9 / 10); if (p >= n) p = n - 1
        printf "%.1f %.1f %.1f %d\n", v[int(n / 2)], v[p], v[n - 1], n}'
}

# the warn lines' "in T ms", of the breaking side or of the passive side ("the peer's side broke")
warn_ms() { # file passive|breaking
    grep 'recovered: qp' "$1" | if [ "$2" = passive ]; then grep "the peer's side broke"; else
        grep -v "the peer's side broke"; fi | sed -n 's/.* in \([0-9.]*\) ms (recovery.*/\1/p'
}

summary_recovery() { # dir
    d=$1
    [ -f "$d/rec.reset.out" ] || return 0
    gap=$(awk '/^summary gap/ {print $4 " / " $6 " / " $8}' "$d/rec.none.out" 2>/dev/null)
    echo "#### Time to recover: $(awk '/^# [0-9]+ breaks/ {sub(/^# /, ""); print; exit}' \
        "$d/rec.reset.out")"
    echo
    echo "Undisturbed stream (no break): gap between two receive completions median / p90 / max" \
        "${gap:-?} us."
    echo
    kinds="reset fatal"
    hdr="| | reset (rcmsg_rc_btl_force_error) | re-create (rcmsg_rc_btl_force_fatal) |"
    sep="|---|---:|---:|"
    if [ -f "$d/rec.mixed.out" ]; then
        kinds="$kinds mixed" hdr="$hdr reset, 8 B / 1 KiB / 64 KiB in turn |" sep="$sep---:|"
    fi
    echo "$hdr"
    echo "$sep"
    row() { # label command...
        label=$1
        shift
        printf '| %s |' "$label"
        for k in $kinds; do
            printf ' %s |' "$("$@" "$d/rec.$k" | stats | awk '{print $1 " / " $2 " / " $3 " (n " $4 ")"}')"
        done
        echo
    }
    warn_break() { warn_ms "$1.err" breaking; }
    warn_pass() { warn_ms "$1.err" passive; }
    counted() { awk '/^counted/ {print $3 / 1000}' "$1.out"; }
    hook() { awk '/^hook/ {print $3 / 1000}' "$1.out"; }
    stall() { awk '/^stall/ {print $3 / 1000}' "$1.out"; }
    typical() { awk '/^summary gap/ {print $4}' "$1.out"; }
    row "warn line \"in T ms\", breaking side (rank 0), ms" warn_break
    row "warn line \"in T ms\", passive side (rank 1), ms" warn_pass
    row "rank 0: break to its recovery count moving, ms" counted
    row "rank 0: the test hook's call alone (ibv_modify_qp to ERR ...), ms" hook
    row "rank 1: longest gap between receives around a break, ms" stall
    row "rank 1: median gap between receives over the whole run, us" typical
    echo
    echo "Each cell: median / p90 / max over the breaks (n: how many)."
    for k in $kinds; do
        echo "- $k: $(grep -hE '^(recoveries|FAIL|exit)' "$d/rec.$k.out" | tr '\n' ' ')"
        grep -hE ' error: |not recovered' "$d/rec.$k.err" | head -5
    done
    echo
}

summary_steady() { # file title
    f=$1
    [ -s "$f" ] || return 0
    variants=$(awk '{print $1}' "$f" | sort -u | tr '\n' ' ')
    has_old=no
    case " $variants " in *" old "*) has_old=yes ;; esac
    for k in lat rate; do
        unit="one-way latency, us"
        [ $k = rate ] && unit="messages/s"
        echo "#### $2: $k ($unit): median of the runs (min-max)"
        echo
        hdr="| size | RCMSG_RECOVERY=yes | =no | yes/no |"
        sep="|---:|---:|---:|---:|"
        [ $has_old = yes ] && hdr="$hdr before recovery (e29a810) | yes/before |" sep="$sep---:|---:|"
        echo "$hdr"
        echo "$sep"
        for s in $(awk -v k=$k '$2 == k {print $3}' "$f" | sort -nu); do
            cell() { # variant -> "median (min-max)"
                awk -v k=$k -v s="$s" -v v="$1" '$1 == v && $2 == k && $3 == s {print $4}' "$f" |
                    sort -g | awk 'function f(v) {return sprintf(v >= 100 ? "%.0f" : v >= 10 ? \
                        "%.1f" : "%.2f", v)} {x[n++] = $1} END {if (n == 0) print "-"; else
                        print f(x[int((n - 1) / 2)]) " (" f(x[0]) "-" f(x[n - 1]) ")"}'
            }
            yes=$(cell yes) no=$(cell no)
            line="| $s B | $yes | $no | $(ratio "$yes" "$no") |"
            if [ $has_old = yes ]; then
                o=$(cell old)
                line="$line $o | $(ratio "$yes" "$o") |"
            fi
            echo "$line"
        done
        echo
    done
}

ratio() { echo "$1 $2" | awk '{if ($1 == "-" || $3 == "-" || $3 == 0) print "-"; else printf "%.2f\n", $1 / $3}'; }

summarize() { # dir
    d=$1
    echo "Command: \`sh bench/recovery.sh $(cat "$d/args" 2>/dev/null)\`"
    echo
    summary_recovery "$d"
    summary_steady "$d/steady.tsv" "rc in the guest, 2 ranks (rxe0/rxe1)"
    summary_steady "$d/sm.tsv" "sm on the host, 2 ranks bound to cores"
}

if [ -n "$summary_only" ]; then
    summarize "$summary_only"
    exit 0
fi
[ -x "$build/bench/rcmsg_recovery_bench" ] && [ -x "$build/bench/rcmsg_bench" ] ||
    { echo "recovery.sh: $build/bench/rcmsg_recovery_bench or rcmsg_bench is missing (build first)" >&2; exit 2; }
[ -z "$old" ] || [ -x "$old/build/bench/rcmsg_bench" ] ||
    { echo "recovery.sh: $old/build/bench/rcmsg_bench is missing (build the old tree)" >&2; exit 2; }
out=$build/bench-results/recovery-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
echo "--errors $errors --reps $reps${old:+ --old $old} --phases \"$phases\"" > "$out/args"
echo "results in $out"
cd "$build"
guest=''
for p in $phases; do [ "$p" = sm ] || guest="$guest $p"; done
if [ -n "$guest" ]; then
    "$top/contrib/rxe-vm/rxe-run" --check || exit 77
    env -u MAKEFLAGS "$top/contrib/rxe-vm/rxe-run" --rxe 2 --numa --mem 4G --rw "$top" \
        ${old:+--rw "$old"} --timeout "${RXE_GUEST_TIMEOUT:-900}" -- \
        sh "$top/bench/recovery_inner.sh" "$out" "$guest" "$errors" "$reps" "$old" 2>&1 |
        tee "$out/guest.log"
fi
case " $phases " in *" sm "*)
    # on the host: sm, ranks bound to cores, yes and no alternating (rotating who goes first)
    run_sm() { # yes|no rep
        for b in "latency --min 8 --max 8k --iters 20000 --stat median" \
            "rate --min 8 --max 8k --stat median"; do
            # shellcheck disable=SC2086
            RCMSG_RECOVERY=$1 RCMSG_TRANSPORTS=self,sm mpirun --allow-run-as-root -np 2 \
                --bind-to core bench/rcmsg_bench $b 2>> "$out/sm.err" |
                awk -v v="$1" -v r="$2" -v k="${b%% *}" \
                    '/^[0-9]/ {print v, (k == "latency" ? "lat" : k), $1, $2, r}'
        done
    }
    for r in $(seq 1 "$reps"); do
        echo "=== sm on the host, repetition $r of $reps ($(date +%T))"
        if [ $((r % 2)) = 1 ]; then order="yes no"; else order="no yes"; fi
        for v in $order; do run_sm "$v" "$r" >> "$out/sm.tsv"; done
    done
    ;;
esac
summarize "$out" | tee "$out/summary.md"
