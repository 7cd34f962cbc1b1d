#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What the thread model costs on the host over sm (docs/performance.md, "Threads and the progress
# thread"): for an OLD tree (before issue 41, SINGLE only) and a NEW one (SINGLE and MULTIPLE
# with one thread: BENCH_THREAD), (1) instructions per call of rcmsg_send, rcmsg_irecv and
# pml_on_recv in an 8 B ping-pong (callgrind, both ranks, 2100 calls each), (2) the 8 B latency
# (median) and message rate, alternating, REPS times (3). Each tree has a built build/ directory.
#   flock /tmp/bench.lock sh bench/threads_cost.sh OLD_TREE NEW_TREE
old=${1:?old tree}; new=${2:?new tree}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
run() { # run TREE THREAD ARGS...
    d=$1 th=$2; shift 2
    BENCH_THREAD=$th RCMSG_TRANSPORTS=self,sm mpirun --allow-run-as-root -np 2 --bind-to core \
        -x BENCH_THREAD -x RCMSG_TRANSPORTS "$@"
}
per_call() { # the callgrind files given: inclusive instructions per call of three functions
    python3 - "$@" <<'PY'
import collections, re, sys
want = ['rcmsg_send', 'rcmsg_irecv', 'pml_on_recv']
incl, calls = collections.Counter(), collections.Counter()
for f in sys.argv[1:]:
    names, cfn, lines = {}, None, open(f).read().split('\n')
    for i, l in enumerate(lines):
        m = re.match(r'c?fn=\((\d+)\)(?: (.*))?', l)
        if m:
            if m.group(2):
                names[m.group(1)] = m.group(2)
            if l.startswith('cfn='):
                cfn = names.get(m.group(1))
        if l.startswith('calls=') and cfn in want:
            calls[cfn] += int(l.split('=')[1].split()[0])
            incl[cfn] += int(lines[i + 1].split()[1])
print(' / '.join('%s %.1f' % (w, incl[w] / calls[w]) for w in want if calls[w]))
PY
}
for v in old:single new:single new:multiple; do
    t=${v%%:*} th=${v#*:} d=$old
    [ "$t" = new ] && d=$new
    rm -f "$tmp"/cg.*
    (cd "$d/build" && run "$d" "$th" ./libtool --mode=execute valgrind --tool=callgrind \
        --callgrind-out-file="$tmp/cg.%p" bench/rcmsg_bench latency --min 8 --max 8 --iters 2000 \
        --warmup 100 > /dev/null 2>&1)
    echo "instructions per call, $t $th: $(per_call "$tmp"/cg.*)"
done
for rep in $(seq 1 "${REPS:-3}"); do
    for v in old:single new:single new:multiple; do
        t=${v%%:*} th=${v#*:} d=$old
        [ "$t" = new ] && d=$new
        run "$d" "$th" "$d/build/bench/rcmsg_bench" latency --min 8 --max 8 --stat median \
            --iters 20000 2>/dev/null | awk -v v="$t $th" '/^[0-9]/ {print v, "latency_us", $2}'
        run "$d" "$th" "$d/build/bench/rcmsg_bench" rate --min 8 --max 8 2>/dev/null |
            awk -v v="$t $th" '/^[0-9]/ {print v, "msg_per_s", $2}'
    done
done
