#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Eager against lazy connects (RCMSG_CONNECT) over rc, every rank in ONE boot of the Soft-RoCE
# guest (contrib/rxe-vm/rxe-run), RCMSG_TRANSPORTS=rc,self so that every peer is an rc peer:
# for each rank count and mode, bench/rcmsg_wireup_bench --peers K (rcmsg_init() time and
# phases, verbs queue memory and RC QPs (RTS / INIT) after init and after K rounds of first
# messages to new peers, the first round trip to each new peer against the next ones); then
# the 8-byte ping-pong of 2 ranks (rcmsg_bench latency) in each mode, alternating; then one
# run per mode with RCMSG_LOG_LEVEL=debug, whose connection events are counted.
# Run from the top of the source tree, with a built tree (build/ by default):
#   sh bench/connect_modes.sh [--nps "2 4 8 16 32 64"] [--modes "eager lazy"] [--peers K]
#                             [--iters M] [--lat-reps N] [--debug-np N] [--limit S] [--build DIR]
# --modes: eager, lazy, or lazy-capN (lazy with RCMSG_QP_MAX_ACTIVE=N); --peers: rounds of
# new peers (default 4, at most N - 1); --iters: round trips after the first, per round (100);
# --lat-reps: alternating 2-rank ping-pong runs per mode (3; 0: none); --debug-np: ranks of
# the debug runs (8; 0: none); --limit: seconds per run (600: a run past it is killed and
# recorded as cut).
# Writes DIR/bench-results/connect-DATE/: raw outputs and summary.md (also printed).
# Inside the guest the same script runs with --guest OUT.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build nps="2 4 8 16 32 64" modes="eager lazy" peers=4 iters=100 lat_reps=3
debug_np=8 limit=600 guest_out=
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "connect_modes.sh: $1 wants a value" >&2; exit 2; }
    case $1 in
    --nps) nps=$2 ;;
    --modes) modes=$2 ;;
    --peers) peers=$2 ;;
    --iters) iters=$2 ;;
    --lat-reps) lat_reps=$2 ;;
    --debug-np) debug_np=$2 ;;
    --limit) limit=$2 ;;
    --build) build=$(cd "$2" && pwd) ;;
    --guest) guest_out=$2 ;;
    *) echo "connect_modes.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift 2
done
for v in $nps $peers $iters $lat_reps $debug_np $limit; do
    case $v in '' | *[!0-9]*) echo "connect_modes.sh: '$v' is not a number" >&2; exit 2 ;; esac
done
for m in $modes; do
    case $m in
    eager | lazy | lazy-cap[1-9] | lazy-cap[1-9][0-9]) ;;
    *) echo "connect_modes.sh: mode '$m' is not eager, lazy or lazy-capN" >&2; exit 2 ;;
    esac
done

# the environment of a mode: "RCMSG_CONNECT=... [RCMSG_QP_MAX_ACTIVE=N]"
mode_env() {
    case $1 in
    lazy-cap*) echo "RCMSG_CONNECT=lazy RCMSG_QP_MAX_ACTIVE=${1#lazy-cap}" ;;
    *) echo "RCMSG_CONNECT=$1" ;;
    esac
}

# ---- inside the guest ------------------------------------------------------------------------
if [ -n "$guest_out" ]; then
    out=$guest_out b=$build/bench mpi="--allow-run-as-root --oversubscribe"
    {
        echo "guest: $(nproc) vCPUs, $(uname -r), $(free -m | awk '/^Mem:/ {print $2 " MiB"}')"
        ibv_devinfo -d rxe0 | grep -E 'hca_id|active_mtu'
    } > "$out/guest.txt" 2>&1
    # the first run of a fresh boot is slow (a 1 s connect of 1 QP, 4 ms round trips): untimed
    # shellcheck disable=SC2086
    RCMSG_TRANSPORTS=rc,self timeout -k 10 "$limit" mpirun $mpi -np 2 "$b/rcmsg_wireup_bench" \
        --peers 1 > "$out/warmup" 2>&1 || true
    for np in $nps; do
        k=$peers
        [ "$k" -ge "$np" ] && k=$((np - 1))
        for m in $modes; do
            echo "=== $np ranks, $m, $k rounds of new peers ($(date +%T))"
            set +e
            # shellcheck disable=SC2046,SC2086
            env RCMSG_TRANSPORTS=rc,self $(mode_env "$m") timeout -k 10 "$limit" mpirun $mpi \
                -np "$np" "$b/rcmsg_wireup_bench" --tsv --peers "$k" --iters "$iters" \
                > "$out/wireup.$m.$np" 2> "$out/wireup.$m.$np.err"
            echo "$? $k" > "$out/wireup.$m.$np.status"
            set -e
        done
    done
    for r in $(seq 1 "$lat_reps"); do
        for m in $modes; do
            echo "=== 2-rank ping-pong, $m, repetition $r ($(date +%T))"
            # shellcheck disable=SC2046,SC2086
            env RCMSG_TRANSPORTS=rc,self $(mode_env "$m") timeout -k 10 "$limit" mpirun $mpi -np 2 \
                "$b/rcmsg_bench" latency --min 8 --max 8 --iters 3000 --stat median \
                > "$out/latency.$m.$r" 2>&1 || echo "exit $?" >> "$out/latency.$m.$r"
        done
    done
    if [ "$debug_np" -gt 1 ]; then
        k=$peers
        [ "$k" -ge "$debug_np" ] && k=$((debug_np - 1))
        for m in $modes; do
            echo "=== $debug_np ranks, $m, RCMSG_LOG_LEVEL=debug ($(date +%T))"
            # shellcheck disable=SC2046,SC2086
            env RCMSG_TRANSPORTS=rc,self RCMSG_LOG_LEVEL=debug $(mode_env "$m") timeout -k 10 \
                "$limit" mpirun $mpi -np "$debug_np" "$b/rcmsg_wireup_bench" --peers "$k" \
                --iters 10 > "$out/debug.$m" 2>&1 || echo "exit $?" >> "$out/debug.$m"
        done
    fi
    echo "=== done ($(date +%T))"
    exit 0
fi

# ---- on the host -----------------------------------------------------------------------------
for p in rcmsg_wireup_bench rcmsg_bench; do
    [ -x "$build/bench/$p" ] || {
        echo "connect_modes.sh: $build/bench/$p is missing (build first)" >&2
        exit 2
    }
done
"$top/contrib/rxe-vm/rxe-run" --check || exit 77
out=$build/bench-results/connect-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
echo "results in $out"
cd "$build"
nmodes=$(echo "$modes" | wc -w)
runs=$(($(echo "$nps" | wc -w) * nmodes + lat_reps * nmodes + nmodes))
set +e
env -u MAKEFLAGS "$top/contrib/rxe-vm/rxe-run" --rxe 2 --numa --mem 4G --rw "$top" \
    --timeout $((runs * (limit + 15) + 120)) -- sh "$top/bench/connect_modes.sh" --guest "$out" \
    --build "$build" --nps "$nps" --modes "$modes" --peers "$peers" --iters "$iters" \
    --lat-reps "$lat_reps" --debug-np "$debug_np" --limit "$limit" 2>&1 | tee "$out/guest.log"
set -e
sh "$top/bench/connect_summary.sh" "$out" "$nps" "$modes" "$limit" > "$out/summary.md"
{
    echo
    echo "Command: \`sh bench/connect_modes.sh --nps \"$nps\" --modes \"$modes\" --peers $peers" \
        "--iters $iters --lat-reps $lat_reps --debug-np $debug_np --limit $limit\`" \
        "(commit $(git -C "$top" rev-parse --short HEAD 2> /dev/null || echo unknown));" \
        "$(head -1 "$out/guest.txt" 2> /dev/null)"
} >> "$out/summary.md"
cat "$out/summary.md"
