#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What packet loss costs rcmsg over rc on Soft-RoCE, for each RCMSG_IB_TIMEOUT: ping-pongs of
# 8 B and 1 MiB between 2 ranks (RCMSG_TRANSPORTS=rc,self; rank 0 on rxe0, rank 1 on rxe1),
# without loss and with netem dropping a share of the packets that leave veth0 (rxe0's side:
# one direction), all inside ONE boot of the guest (contrib/rxe-vm/rxe-run). Every run is
# bounded (iterations, and a time limit: a run cut short keeps the round trips it finished).
# Run from the top of the source tree, with a built tree (build/ by default):
#   sh bench/loss_cost.sh [--losses "0 5"] [--timeouts "18 12 12/7"] [--iters N]
#                         [--iters-large N] [--iters-slow N] [--limit S] [--build DIR]
# --timeouts: RCMSG_IB_TIMEOUT values, each optionally with an RCMSG_IB_RETRY_COUNT
# (TIMEOUT/COUNT; without one, the default); --iters: 8 B round trips per run (default 200);
# --iters-large: 1 MiB round trips (10); --iters-slow: 1 MiB round trips with loss and a
# timeout of 16 or more (3: each loss there can cost a whole retry timeout); --limit: seconds
# per run (240).
# Writes DIR/bench-results/loss-DATE/: raw outputs and summary.md (also printed): for each
# loss, timeout and size the median, mean and max round trip, the ratio of the median and
# the mean to those without loss, rxe's retry counters, and how the run ended.
# Inside the guest the same script runs with --guest OUT.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build losses="0 5" timeouts="18 12 12/7" iters=200 iters_large=10 iters_slow=3 limit=240
guest_out=
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "loss_cost.sh: $1 wants a value" >&2; exit 2; }
    case $1 in
    --losses) losses=$2 ;;
    --timeouts) timeouts=$2 ;;
    --iters) iters=$2 ;;
    --iters-large) iters_large=$2 ;;
    --iters-slow) iters_slow=$2 ;;
    --limit) limit=$2 ;;
    --build) build=$(cd "$2" && pwd) ;;
    --guest) guest_out=$2 ;;
    *) echo "loss_cost.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift 2
done
for v in $iters $iters_large $iters_slow $limit; do
    case $v in '' | *[!0-9]*) echo "loss_cost.sh: '$v' is not a number" >&2; exit 2 ;; esac
done
for v in $timeouts; do
    case $v in
    '' | /* | */ | *[!0-9/]* | */*/*)
        echo "loss_cost.sh: '$v' is not TIMEOUT or TIMEOUT/RETRY_COUNT" >&2
        exit 2
        ;;
    esac
done
for v in $losses; do
    case $v in '' | *[!0-9.]*) echo "loss_cost.sh: loss '$v' is not a percentage" >&2; exit 2 ;; esac
done
sizes="8 1048576"

# ---- inside the guest ------------------------------------------------------------------------
counters() { # the rxe retry counters of both devices, summed: "timeouts seq_naks retry_exceeded"
    d=/sys/class/infiniband
    cat $d/rxe0/ports/1/hw_counters/completer_retry_err $d/rxe1/ports/1/hw_counters/completer_retry_err \
        $d/rxe0/ports/1/hw_counters/rcvd_seq_err $d/rxe1/ports/1/hw_counters/rcvd_seq_err \
        $d/rxe0/ports/1/hw_counters/retry_exceeded_err $d/rxe1/ports/1/hw_counters/retry_exceeded_err \
        2> /dev/null | tr '\n' ' ' | awk '{print $1 + $2, $3 + $4, $5 + $6} END {if (NR == 0) print 0, 0, 0}'
}
default_retry() { # RCMSG_IB_RETRY_COUNT's default, from the library's own table
    sed -n 's/.*X(IB_RETRY_COUNT, INT, "\([0-9]*\)".*/\1/p' "$top/src/base/config_vars.h"
}
if [ -n "$guest_out" ]; then
    out=$guest_out b=$build/bench
    {
        echo "guest: $(nproc) vCPUs, $(uname -r)"
        ibv_devinfo -d rxe0 | grep -E 'hca_id|active_mtu'
    } > "$out/guest.txt" 2>&1
    for loss in $losses; do
        tc qdisc del dev veth0 root 2> /dev/null || true
        if [ "$loss" != 0 ]; then
            tc qdisc add dev veth0 root netem loss "$loss%" || exit 1
        fi
        tc qdisc show dev veth0 >> "$out/guest.txt"
        for e in $timeouts; do
            t=${e%/*} retry=
            [ "$t" = "$e" ] || retry=${e#*/}
            for s in $sizes; do
                n=$iters
                [ "$s" -gt 8192 ] && n=$iters_large
                [ "$s" -gt 8192 ] && [ "$loss" != 0 ] && [ "$t" -ge 16 ] && n=$iters_slow
                cell=$out/cell.$loss.$(echo "$e" | tr / r).$s
                echo "=== loss $loss%, RCMSG_IB_TIMEOUT=$t${retry:+ RCMSG_IB_RETRY_COUNT=$retry}," \
                    "$s B, $n round trips ($(date +%T))"
                before=$(counters)
                start=$(date +%s.%N)
                set +e
                RCMSG_TRANSPORTS=rc,self RCMSG_IB_TIMEOUT=$t \
                    RCMSG_IB_RETRY_COUNT=${retry:-$(default_retry)} timeout -k 10 "$limit" \
                    mpirun --allow-run-as-root --oversubscribe -np 2 "$b/rcmsg_bench" latency \
                    --min "$s" --max "$s" --iters "$n" --iters-large "$n" --warmup 1 \
                    --stat median --samples > "$cell" 2>&1
                rc=$?
                set -e
                end=$(date +%s.%N)
                echo "$rc $before $(counters) $start $end" > "$cell.status"
            done
        done
    done
    tc qdisc del dev veth0 root 2> /dev/null || true
    echo "=== done ($(date +%T))"
    exit 0
fi

# ---- on the host -----------------------------------------------------------------------------
[ -x "$build/bench/rcmsg_bench" ] || {
    echo "loss_cost.sh: $build/bench/rcmsg_bench is missing (build first)" >&2
    exit 2
}
"$top/contrib/rxe-vm/rxe-run" --check || exit 77
out=$build/bench-results/loss-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
echo "results in $out"
cd "$build"
# ONE boot; its own limit: every run's, plus the boot
runs=$(($(echo "$losses" | wc -w) * $(echo "$timeouts" | wc -w) * 2))
set +e
env -u MAKEFLAGS "$top/contrib/rxe-vm/rxe-run" --rxe 2 --numa --mem 4G --rw "$top" \
    --timeout $((runs * (limit + 15) + 120)) -- sh "$top/bench/loss_cost.sh" --guest "$out" \
    --build "$build" --losses "$losses" --timeouts "$timeouts" --iters "$iters" \
    --iters-large "$iters_large" --iters-slow "$iters_slow" --limit "$limit" 2>&1 |
    tee "$out/guest.log"
set -e

# one cell: "n median mean max timeouts seq_naks retry_exceeded seconds status"
cell() {
    f=$out/cell.$1.$(echo "$2" | tr / r).$3
    [ -f "$f.status" ] || { echo "0 - - - - - - - not run"; return; }
    read -r rc t0 q0 x0 t1 q1 x1 start end < "$f.status"
    case $rc in
    0) st=ok ;;
    124 | 137) st="cut at ${limit} s" ;;
    *) st="failed ($rc): $(grep -v '^#' "$f" | grep -i -m1 -E 'error|retry|fail' | cut -c1-80)" ;;
    esac
    awk '$1 == "#" && $2 == "sample" {print $5}' "$f" | sort -g | awk -v st="$st" \
        -v t=$((t1 - t0)) -v q=$((q1 - q0)) -v x=$((x1 - x0)) -v s="$start" -v e="$end" '
        { v[NR] = $1; sum += $1 }
        END {
            n = NR
            if (n == 0) { printf "0 - - - %d %d %d %.0f %s\n", t, q, x, e - s, st; exit }
            med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
            printf "%d %.0f %.0f %.0f %d %d %d %.0f %s\n", n, med, sum / n, v[n], t, q, x, e - s, st
        }'
}
{
    echo "Command: \`sh bench/loss_cost.sh --losses \"$losses\" --timeouts \"$timeouts\"" \
        "--iters $iters --iters-large $iters_large --iters-slow $iters_slow --limit $limit\`"
    echo
    echo "Guest: $(head -1 "$out/guest.txt" | sed 's/^guest: //'); loss: netem on veth0" \
        "(the packets rxe0 sends: rank 0's data and acks); round trips of" \
        "\`rcmsg_bench latency --samples\` (us), after 1 untimed one"
    echo
    echo "| loss | RCMSG_IB_TIMEOUT | RCMSG_IB_RETRY_COUNT | size (B) | round trips | median (us) | mean (us) | max (us) |" \
        "median / no loss | mean / no loss | rxe retries | rxe seq. NAKs | retry-exceeded | run (s) | ended |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    for loss in $losses; do
        for e in $timeouts; do
            t=${e%/*} retry=$(default_retry)
            [ "$t" = "$e" ] || retry=${e#*/}
            for s in $sizes; do
                # shellcheck disable=SC2046
                set -- $(cell "$loss" "$e" "$s")
                n=$1 med=$2 mean=$3 max=$4 to=$5 naks=$6 rex=$7 secs=$8
                shift 8
                base=$(cell 0 "$e" "$s")
                rm=$(echo "$med $base" | awk '$1 ~ /^[0-9]/ && $3 > 0 {printf "%.1f", $1 / $3; next} {print "-"}')
                rmean=$(echo "$mean $base" | awk '$1 ~ /^[0-9]/ && $4 > 0 {printf "%.1f", $1 / $4; next} {print "-"}')
                echo "| $loss% | $t | $retry | $s | $n | $med | $mean | $max | $rm | $rmean | $to | $naks | $rex | $secs | $* |"
            done
        done
    done
} > "$out/summary.md"
cat "$out/summary.md"
