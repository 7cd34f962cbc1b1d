#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Summarizes a results directory of bench/connect_modes.sh (markdown on stdout).
#   connect_summary.sh DIR NPS MODES LIMIT
set -eu
dir=$1 nps=$2 modes=$3 limit=$4
cd "$dir"

# median of the numbers on stdin ("-" when none)
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# how a run ended, from its status file ("RC ROUNDS") and its stderr
ended() {
    [ -f "$1.status" ] || { echo "not run"; return; }
    read -r rc _ < "$1.status"
    case $rc in
    0) echo ok ;;
    124 | 137) echo "cut at $limit s" ;;
    *) echo "failed ($rc): $(grep -i -m1 -E 'error|fail|abort' "$1.err" 2> /dev/null | cut -c1-100)" ;;
    esac
}

echo "### RCMSG_CONNECT over rc, every rank in one guest (rcmsg_wireup_bench; median / max)"
echo
echo "Init columns: median / max over the ranks. QPs: this process's RC QPs in RTS / in INIT" \
    "(\`rdma res show qp\`). Round trips (8 B): the first to a new peer and the median of the" \
    "next ones, median / max over every timed pair and round."
echo
echo "| ranks | mode | rounds | rcmsg_init ms | connect ms | verbs KiB after init | QPs after init | first round trip us | next round trips us | verbs KiB after the rounds | QPs after the rounds | ended |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for np in $nps; do
    for m in $modes; do
        f=wireup.$m.$np
        k=-
        [ -f "$f.status" ] && read -r _ k < "$f.status"
        line=$(awk '!/^#/ && NF >= 29 && $1 ~ /^[0-9]+$/' "$f" 2> /dev/null | head -1)
        if [ -z "$line" ]; then
            echo "| $np | $m | $k | - | - | - | - | - | - | - | - | $(ended "$f") |"
            continue
        fi
        echo "$line" | awk -v m="$m" -v k="$k" -v e="$(ended "$f")" \
            '{printf "| %s | %s | %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s |\n",
              $1, m, k, $2, $3, $10, $11, $14, $15, $16, $18, $26, $27, $28, $29, $20, $21, $22, $24, e}'
    done
done
echo
echo "Phases (median / max over the ranks, ms):"
echo
echo "| ranks | mode | PMIx init | transport open | address exchange | connect | RSS added KiB |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for np in $nps; do
    for m in $modes; do
        awk -v m="$m" '!/^#/ && NF >= 29 && $1 ~ /^[0-9]+$/ {printf "| %s | %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s |\n", $1, m, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13}' \
            "wireup.$m.$np" 2> /dev/null | head -1
    done
done
if ls latency.* > /dev/null 2>&1; then
    echo
    echo "### 8-byte ping-pong, 2 ranks on rxe0/rxe1 (rcmsg_bench latency --stat median, us; alternating runs)"
    echo
    echo "| mode | runs | median of the runs |"
    echo "|---|---|---:|"
    for m in $modes; do
        vals=$(for f in latency."$m".*; do awk '!/^#/ && $1 == 8 {print $2}' "$f"; done | tr '\n' ' ')
        echo "| $m | $vals | $(echo "$vals" | tr ' ' '\n' | grep . | median) |"
    done
fi
if ls debug.* > /dev/null 2>&1; then
    echo
    echo "### Connection events at RCMSG_LOG_LEVEL=debug (whole job)"
    echo
    echo "| mode | address fetches | bytes per address | connected (active / passive) | disconnected | pool refills | CM retries |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    for m in $modes; do
        f=debug.$m
        [ -f "$f" ] || continue
        n() { grep -c "$1" "$f" || true; }
        bytes=$(sed -n 's/.*debug: address of peer [0-9]*: \([0-9]*\) bytes.*/\1/p' "$f" | sort -u | tr '\n' ' ')
        echo "| $m | $(n 'debug: address of peer') | ${bytes:--} | $(n 'rc: connected to peer.*(active;') / $(n 'rc: connected to peer.*(passive;') | $(n 'rc: disconnected from peer') | $(n 'rc: qp pool refilled') | $(n 'CM: retry') |"
    done
fi
