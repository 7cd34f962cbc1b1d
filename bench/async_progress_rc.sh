#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# RCMSG_ASYNC_PROGRESS=no against control over rc, inside the Soft-RoCE guest (issue 41: the
# progress thread must not cost the application's calls): 8 B ping-pong latency (median of
# per-iteration times) and 8 B message rate, the two settings alternating, REPS rounds (5);
# then rank 0's instructions per message in rc's send op (rc_send_g, callgrind inclusive, 550
# round trips: exact, one send each) and in rcmsg_recv (inclusive: its polls while the peer
# answers are counted too, so it varies with timing). Lines: "no|control lat|rate SIZE VALUE",
# "no|control send_instr|recv_instr 8 VALUE".
#   cd build && flock /tmp/rxe.lock ../contrib/rxe-vm/rxe-run --rxe 2 --numa --mem 4G \
#       --rw "$PWD/.." --timeout 1500 -- sh ../bench/async_progress_rc.sh
bench=${BENCH:-bench/rcmsg_bench}
run() {
    RCMSG_TRANSPORTS=rc,self timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 "$@"
}
for rep in $(seq 1 "${REPS:-5}"); do
    for v in no control; do
        RCMSG_ASYNC_PROGRESS=$v run "$bench" latency --min 8 --max 8 --iters 3000 --stat median \
            2> /dev/null | awk -v v=$v '/^[0-9]/ {print v, "lat", $1, $2}'
        RCMSG_ASYNC_PROGRESS=$v run "$bench" rate --min 8 --max 8 2> /dev/null |
            awk -v v=$v '/^[0-9]/ {print v, "rate", $1, $2}'
    done
done
if command -v valgrind > /dev/null; then
    for v in no control; do
        d=$(mktemp -d)
        RCMSG_ASYNC_PROGRESS=$v run valgrind --tool=callgrind --callgrind-out-file="$d/cg.%q{OMPI_COMM_WORLD_RANK}" \
            "$bench" latency --min 8 --max 8 --iters 500 --warmup 50 > /dev/null 2>&1
        for f in "$d"/cg.0; do
            callgrind_annotate --inclusive=yes "$f" 2> /dev/null |
                awk -v v=$v '/:rc_send_g / {gsub(",", "", $1); s = $1}
                    /:rcmsg_recv / {gsub(",", "", $1); r = $1}
                    END {printf "%s send_instr 8 %.1f\n%s recv_instr 8 %.1f\n", v, s / 550, v, r / 550}'
        done
        rm -rf "$d"
    done
fi
