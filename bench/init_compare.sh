#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rcmsg_init against Open MPI + UCX's MPI_Init, every rank in ONE boot of the Soft-RoCE guest
# (contrib/rxe-vm/rxe-run): for each rank count and repetition, in a rotating order,
#   Open MPI + UCX   mpirun -np N (UCX_TLS=rc_verbs,ud_verbs,self, each rank on rxe<local
#                    rank mod 2>, bench/ucx_dev.sh) bench/rcmsg_mpi_init_time_mpi
#   rcmsg eager/lazy RCMSG_TRANSPORTS=rc,self RCMSG_CONNECT=eager|lazy mpirun -np N
#                    bench/rcmsg_wireup_bench --tsv (rcmsg_init, its phases, PMIx_Get calls;
#                    RCMSG_LOG_LEVEL=info: rc's open in parts, from its log)
# and the same rcmsg runs of a second build (--before DIR: an older tree's build directory,
# inside the tree given to rxe-run --rw). Run from the top of the source tree:
#   sh bench/init_compare.sh [--nps "2 8 32 64"] [--reps N] [--before DIR] [--limit S]
#                            [--debug-np N] [--ompi-nps "2 8"] [--kinds "eager lazy ..."]
# --kinds: which of ompi, eager, lazy, eager-before, lazy-before run (all by default).
# --ompi-nps: the rank counts Open MPI runs at (all of --nps by default; its MPI_Init takes
# minutes at 32 ranks and more in the guest).
# --debug-np N (0: none): one more eager run of N ranks per build at RCMSG_LOG_LEVEL=debug,
# whose CM events are counted (REQs sent again, simultaneous REQs dropped, REQs kept).
# Writes build/bench-results/init-DATE/: raw outputs and summary.md (also printed). To share a
# boot with other work, run the guest part inside it (--guest OUT, the same options) and then
# summarize on the host: sh bench/init_compare.sh --summary OUT (the same options).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build nps="2 8 32 64" reps=1 before="" limit=600 guest_out="" summary="" debug_np=0 ompi_nps="" kinds=""
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "init_compare.sh: $1 wants a value" >&2; exit 2; }
    case $1 in
    --nps) nps=$2 ;;
    --reps) reps=$2 ;;
    --before) before=$(cd "$2" && pwd) ;;
    --limit) limit=$2 ;;
    --debug-np) debug_np=$2 ;;
    --ompi-nps) ompi_nps=$2 ;;
    --kinds) kinds=$2 ;;
    --build) build=$(cd "$2" && pwd) ;;
    --guest) guest_out=$2 ;;
    --summary) summary=$2 ;;
    *) echo "init_compare.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift 2
done
[ -n "$ompi_nps" ] || ompi_nps=$nps
for v in $nps $reps $limit $debug_np $ompi_nps; do
    case $v in '' | *[!0-9]*) echo "init_compare.sh: '$v' is not a number" >&2; exit 2 ;; esac
done
if [ -z "$kinds" ]; then
    kinds="ompi eager lazy"
    [ -n "$before" ] && kinds="$kinds eager-before lazy-before"
fi
for k in $kinds; do
    case $k in
    ompi | eager | lazy) ;;
    eager-before | lazy-before) [ -n "$before" ] || { echo "init_compare.sh: $k needs --before" >&2; exit 2; } ;;
    *) echo "init_compare.sh: unknown kind '$k'" >&2; exit 2 ;;
    esac
done

# ---- inside the guest ------------------------------------------------------------------------
if [ -n "$guest_out" ]; then
    out=$guest_out mpi="mpirun --allow-run-as-root --oversubscribe"
    ucx="-x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_IB_GID_INDEX=0 --mca pml ucx --mca btl ^openib,uct"
    {
        echo "guest: $(nproc) vCPUs, $(uname -r), $(free -m | awk '/^Mem:/ {print $2 " MiB"}')"
        ompi_info --version 2> /dev/null | head -1
        ucx_info -v 2> /dev/null | head -1
    } > "$out/guest.txt" 2>&1
    run() { # run KIND NP FILE (its exit status in FILE.status: 124 or 137 when cut)
        st=0
        case $1 in
        ompi)
            # shellcheck disable=SC2086
            timeout -k 10 "$limit" $mpi -np "$2" $ucx sh "$top/bench/ucx_dev.sh" \
                "$build/bench/rcmsg_mpi_init_time_mpi" ;;
        *)
            b=$build
            case $1 in *-before) b=$before ;; esac
            # shellcheck disable=SC2086
            RCMSG_TRANSPORTS=rc,self RCMSG_CONNECT=${1%-before} RCMSG_LOG_LEVEL=info \
                timeout -k 10 "$limit" $mpi \
                -np "$2" "$b/bench/rcmsg_wireup_bench" --tsv ;;
        esac > "$3" 2> "$3.err" || st=$?
        echo "$st" > "$3.status"
    }
    # the first run of a fresh boot is slow: untimed
    run eager 2 "$out/warmup" || true
    run ompi 2 "$out/warmup-ompi" || true
    # rot N WORDS...: the words rotated left N times
    rot() {
        n=$1
        shift
        while [ "$n" -gt 0 ]; do
            x=$1
            shift
            set -- "$@" "$x"
            n=$((n - 1))
        done
        echo "$*"
    }
    i=0 nk=$(echo "$kinds" | wc -w)
    for np in $nps; do
        for r in $(seq 1 "$reps"); do
            # rotate the order: no kind always first after another's exit
            # shellcheck disable=SC2086
            order=$(rot $((i % nk)) $kinds)
            i=$((i + 1))
            for k in $order; do
                case "$k: $ompi_nps " in ompi:*" $np "*) ;; ompi:*) continue ;; esac
                echo "=== $np ranks, $k, repetition $r ($(date +%T))"
                run "$k" "$np" "$out/init.$k.$np.$r"
            done
        done
    done
    if [ "$debug_np" -gt 1 ]; then
        for k in eager ${before:+eager-before}; do
            echo "=== $debug_np ranks, $k, RCMSG_LOG_LEVEL=debug ($(date +%T))"
            b=$build
            [ "$k" = eager ] || b=$before
            # shellcheck disable=SC2086
            RCMSG_TRANSPORTS=rc,self RCMSG_CONNECT=eager RCMSG_LOG_LEVEL=debug \
                timeout -k 10 "$limit" $mpi -np "$debug_np" "$b/bench/rcmsg_wireup_bench" \
                > "$out/debug.$k" 2>&1
        done
    fi
    echo "=== done ($(date +%T))"
    exit 0
fi

# ---- on the host -----------------------------------------------------------------------------
if [ -n "$summary" ]; then
    out=$(cd "$summary" && pwd)
else
    for p in rcmsg_wireup_bench rcmsg_mpi_init_time_mpi; do
        [ -x "$build/bench/$p" ] || { echo "init_compare.sh: $build/bench/$p is missing" >&2; exit 2; }
    done
    "$top/contrib/rxe-vm/rxe-run" --check || exit 77
    out=$build/bench-results/init-$(date +%Y%m%d-%H%M%S)
    mkdir -p "$out"
    echo "results in $out"
    cd "$build"
    runs=$(($(echo "$nps" | wc -w) * reps * $(echo "$kinds" | wc -w) + 4))
    set +e
    # shellcheck disable=SC2046
    env -u MAKEFLAGS "$top/contrib/rxe-vm/rxe-run" --rxe 2 --numa --mem 4G --rw "$top" \
        $([ -n "$before" ] && echo --rw "$before") --timeout $((runs * (limit + 15) + 120)) -- \
        sh "$top/bench/init_compare.sh" --guest "$out" --build "$build" --nps "$nps" \
        --reps "$reps" --limit "$limit" --debug-np "$debug_np" --ompi-nps "$ompi_nps" \
        --kinds "$kinds" \
        $([ -n "$before" ] && echo --before "$before") 2>&1 |
        tee "$out/guest.log"
    set -e
fi
# median over the repetitions of column C (median of the ranks) and of column C+1 (max); a run
# cut at the limit shows as such
stat() { # stat KIND NP COL
    cut=$(cat "$out"/init."$1"."$2".*.status 2> /dev/null | grep -c '^\(124\|137\)$' || true)
    for f in "$out"/init."$1"."$2".*; do
        case $f in *.err | *.status) continue ;; esac
        awk -v c="$3" '!/^#/ && NF > c {print $c "\t" $(c + 1)}' "$f" 2> /dev/null
    done | sort -g | awk -v cut="$cut" -v lim="$limit" '{m[NR] = $1; x[NR] = $2}
        END {if (NR == 0 && cut > 0) printf "> %d000 (cut)", lim; else if (NR == 0) print "-"; else printf "%s / %s", m[int((NR + 1) / 2)], x[int((NR + 1) / 2)]}'
}
gets() { # gets KIND NP: PMIx_Get calls of rcmsg_init (median / max over the ranks)
    for f in "$out"/init."$1"."$2".*; do
        case $f in *.err | *.status) continue ;; esac
        awk '!/^#/ && NF >= 37 {printf "%d\n", $(NF - 1); exit}' "$f" 2> /dev/null
    done | head -1
}
{
    echo "### rcmsg_init against Open MPI + UCX's MPI_Init, every rank in one guest (ms, median / max over the ranks; median of $reps run(s))"
    echo
    printf '| ranks | Open MPI + UCX MPI_Init |'
    for k in $kinds; do [ "$k" = ompi ] || printf ' rcmsg %s |' "$k"; done
    echo ' PMIx_Get calls in rcmsg_init: eager / lazy |'
    printf '|---:|---:|'
    for k in $kinds; do [ "$k" = ompi ] || printf -- '---:|'; done
    echo '---|'
    for np in $nps; do
        printf '| %s | %s |' "$np" "$(stat ompi "$np" 2)"
        for k in $kinds; do [ "$k" = ompi ] || printf ' %s |' "$(stat "$k" "$np" 2)"; done
        echo " $(gets eager "$np") / $(gets lazy "$np") |"
    done
    echo
    echo "Phases of rcmsg_init (median over the ranks, ms): PMIx init, transport open, exchange (of it the address gets), connect (of it the closing fence)"
    echo
    echo "| ranks | mode | PMIx init | open | exchange | gets | connect | closing fence |"
    echo "|---:|---|---:|---:|---:|---:|---:|---:|"
    for np in $nps; do
        for k in $kinds; do
            [ "$k" = ompi ] && continue
            f=$out/init.$k.$np.1
            [ -f "$f" ] || continue
            awk -v k="$k" '!/^#/ && NF >= 29 {printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, k, $4, $6, $8, (NF >= 37 ? $32 : "-"), $10, (NF >= 37 ? $34 : "-")}' "$f"
        done
    done
    echo
    echo "rc's transport open in parts (median over the ranks of its info line, ms): device choice and open, CQs / SRQ / buffers, CM"
    echo
    echo "| ranks | mode | device | cqs, srq, buffers | cm |"
    echo "|---:|---|---:|---:|---:|"
    for np in $nps; do
        for k in $kinds; do
            [ "$k" = ompi ] && continue
            f=$out/init.$k.$np.1.err
            [ -f "$f" ] || continue
            sed -n 's/.*device choice and open \([0-9.]*\) ms, cqs\/srq\/buffers \([0-9.]*\) ms, cm \([0-9.]*\) ms.*/\1 \2 \3/p' "$f" |
                awk -v np="$np" -v k="$k" '{a[NR] = $1; b[NR] = $2; c[NR] = $3}
                    function med(v, n,   i, j, t) {for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) {t = v[i]; v[i] = v[j]; v[j] = t}; return v[int((n + 1) / 2)]}
                    END {if (NR > 0) printf "| %s | %s | %s | %s | %s |\n", np, k, med(a, NR), med(b, NR), med(c, NR)}'
        done
    done
    if ls "$out"/debug.* > /dev/null 2>&1; then
        echo
        echo "CM events of one eager run at RCMSG_LOG_LEVEL=debug (whole job)"
        echo
        echo "| build | connected (active / passive) | REQs sent again | simultaneous REQs dropped | REQs kept until the address came |"
        echo "|---|---:|---:|---:|---:|"
        for f in "$out"/debug.*; do
            n() { grep -c "$1" "$f" || true; }
            echo "| ${f##*debug.} | $(n 'CM: connected to peer.*active') / $(n 'CM: connected to peer.*passive') | $(n 'CM: retry: REQ') | $(n 'dropped: simultaneous connect') | $(n 'kept until its CM address') |"
        done
    fi
    echo
    echo "Command: \`sh bench/init_compare.sh --nps \"$nps\" --reps $reps${before:+ --before $before} --limit $limit --debug-np $debug_np --ompi-nps \"$ompi_nps\"\` (commit $(git -C "$top" rev-parse --short HEAD 2> /dev/null || echo unknown)); $(head -1 "$out/guest.txt" 2> /dev/null)"
} > "$out/summary.md"
cat "$out/summary.md"
