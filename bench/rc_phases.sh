#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 44: the instructions of an 8-byte ping-pong over rc (SEND, the default path: no eager
# RDMA) by phase, rcmsg's trees against each other and against Open MPI + UCX rc_verbs, in ONE
# boot of the Soft-RoCE guest. callgrind counts only inside bench_send and bench_recv
# (`rcmsg_bench latency --min 8 --max 8 --iters 1000 --warmup 100`, RCMSG_TRANSPORTS=rc,self,
# every other setting its default); the table gives rank 0's count per round trip (1,100 of
# them) of each phase, from the inclusive counts of the functions that make it:
#   - send: bench_send (rcmsg_send), split into the pml (rcmsg_send less the transport's send
#     op), btl_rc (the send op less the provider's post) and the provider's ibv_post_send (rxe's
#     post_send, its doorbell write(2) included);
#   - receive post: rcmsg_irecv;
#   - delivery: rc_up_recv per message (pml_on_recv: header, credits, matching, completion),
#     with the match (rcmsg_match_take_recv) and the completion (pml_recv_matched) apart;
#   - the repost of receive buffers (rc_repost) per message, and its calls per message;
#   - progress rounds per message (rcmsg_progress calls: how often the receiver polled before
#     the reply came, which depends on the guest's timing, not on the code) and the cost of a
#     round without a message (rcmsg_progress and pml_idle less the delivery, the reposts and
#     the send CQ's polls, over the rounds);
#   - the total of bench_send and bench_recv (dominated by the empty rounds).
# Run from the top of a built tree, with one or more rcmsg build trees (each built; the first
# is usually the one before a change):
#   sh bench/rc_phases.sh [--no-ucx] BUILD...
#   sh bench/rc_phases.sh --summary DIR   (the tables again, from a boot's outputs)
# Keeps the callgrind files in <first BUILD>/bench-results/rc-phases-<date>/.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
args="latency --min 8 --max 8 --iters 1000 --warmup 100 --stat median"
n=1100
cg() { # LABEL OUT: the valgrind command of one rank
    echo "valgrind -q --tool=callgrind --collect-atstart=no --toggle-collect=bench_send" \
        "--toggle-collect=bench_recv --callgrind-out-file=$2/cg.$1.%q{OMPI_COMM_WORLD_RANK}"
}
if [ "${1:-}" = --inner ]; then
    # inside the guest: OUT UCX(yes|no) BUILD...
    out=$2 ucx=$3
    shift 3
    mpirun="mpirun --allow-run-as-root --oversubscribe -np 2"
    i=0
    for b; do
        i=$((i + 1))
        echo "== rcmsg $i: $b ($(date +%T))"
        # shellcheck disable=SC2046,SC2086
        RCMSG_TRANSPORTS=rc,self LD_LIBRARY_PATH=$b/.libs $mpirun -x LD_LIBRARY_PATH \
            -x RCMSG_TRANSPORTS $(cg rcmsg$i "$out") "$b/bench/.libs/rcmsg_bench" $args \
            > "$out/log.rcmsg$i" 2>&1 || echo "rcmsg $i failed"
    done
    if [ "$ucx" = yes ]; then
        echo "== ucx ($(date +%T))"
        # shellcheck disable=SC2046,SC2086
        $mpirun -x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_IB_GID_INDEX=0 --mca pml ucx \
            --mca btl ^openib,uct sh "$top/bench/ucx_dev.sh" $(cg ucx "$out") \
            "$1/bench/rcmsg_bench_mpi" $args > "$out/log.ucx" 2>&1 || echo "ucx failed"
    fi
    exit 0
fi
ucx=yes out=
case ${1:-} in
--no-ucx) ucx=no; shift ;;
--summary) out=$(cd "$2" && pwd) ;;
esac
if [ -z "$out" ]; then
    [ $# -gt 0 ] || { echo "usage: rc_phases.sh [--no-ucx] BUILD... | --summary DIR" >&2; exit 2; }
    "$top/contrib/rxe-vm/rxe-run" --check || exit 77
    builds=
    for b; do builds="$builds $(cd "$b" && pwd)"; done
    # shellcheck disable=SC2086
    set -- $builds # (paths without blanks)
    out=$1/bench-results/rc-phases-$(date +%Y%m%d-%H%M%S)
    mkdir -p "$out"
    printf '%s\n' "$@" > "$out/builds"
    # shellcheck disable=SC2086
    env -u MAKEFLAGS "$top/contrib/rxe-vm/rxe-run" --rxe 2 --numa --mem 4G --rw "$top" \
        --rw "$1" --timeout "${RXE_GUEST_TIMEOUT:-1800}" -- sh "$top/bench/rc_phases.sh" \
        --inner "$out" $ucx "$@" > "$out/guest.log" 2>&1 || { tail -20 "$out/guest.log"; exit 1; }
fi
# phases FILE: "name value" lines, rank 0's instructions per round trip of each phase
phases() {
    callgrind_annotate --inclusive=yes --tree=calling --threshold=100 "$1" 2> /dev/null | awk -v n=$n '
        function key(s) {
            sub(/ \[.*\]$/, "", s); sub(/ \([0-9,]+x\)$/, "", s); gsub(/^ +| +$/, "", s)
            if (s ~ /\.h:/) return ""  # inlined from a header: inside its function already
            sub(/^.*:/, "", s); return s
        }
        # the inclusive count of a function is the sum of its calls (the listing names some
        # functions twice, under two spellings of their file, each with part of the count)
        /^ *[0-9,]+ \([ 0-9.]+%\) +> / { c = $1; gsub(",", "", c); s = $0; m = s
                sub(/^.*\(/, "", m); sub(/x\).*$/, "", m); gsub(",", "", m)
                sub(/^.* >  */, "", s); k = key(s); if (k != "") { I[k] += c; C[k] += m } }
        function per(k) { return C[k] > 0 ? I[k] / C[k] : 0 }
        END {
            ps = "0x0000000000003cc0"  # the provider post_send (librxe-rdmav34.so)
            if ("rcmsg_send" in I) {
                printf "send|%.1f\n", I["bench_send"] / n
                printf "  pml|%.1f\n", (I["rcmsg_send"] - I["rc_send_g"]) / n
                printf "  btl_rc|%.1f\n", (I["rc_send_g"] - I[ps]) / n
                printf "  provider ibv_post_send|%.1f\n", I[ps] / n
                printf "receive post (rcmsg_irecv)|%.1f\n", I["rcmsg_irecv"] / n
                printf "delivery (rc_up_recv)|%.1f\n", per("rc_up_recv")
                printf "  match|%.1f\n", per("rcmsg_match_take_recv")
                printf "  completion|%.1f\n", per("pml_recv_matched")
                printf "repost, per message|%.1f\n", I["rc_repost"] / n
                printf "  reposts per message|%.2f\n", C["rc_repost"] / n
                printf "progress rounds per message|%.1f\n", C["rcmsg_progress"] / n
                d = I["rc_up_recv"] + I["rc_repost"] + I["rc_send_poll"]
                printf "  a round without a message|%.1f\n", (I["rcmsg_progress"] + I["pml_idle"] - d) / C["rcmsg_progress"]
            } else {
                printf "send|%.1f\n", I["bench_send"] / n
                printf "  uct_rc_verbs_ep_am_short less the provider|%.1f\n", (I["uct_rc_verbs_ep_am_short"] - I[ps]) / n
                printf "  provider ibv_post_send|%.1f\n", I[ps] / n
                printf "receive post (ucp_tag_recv_nbx)|%.1f\n", I["ucp_tag_recv_nbx"] / n
                printf "delivery (ucp_eager_only_handler)|%.1f\n", per("ucp_eager_only_handler")
                printf "repost (uct_rc_verbs_iface_post_recv_always), per message|%.1f\n", I["uct_rc_verbs_iface_post_recv_always"] / n
                printf "progress rounds per message (ucp_worker_progress)|%.1f\n", C["ucp_worker_progress"] / n
            }
            printf "total (bench_send + bench_recv)|%.1f\n", (I["bench_send"] + I["bench_recv"]) / n
        }'
}
echo "results in $out (rank 0, instructions per 8-byte round trip; $n counted)"
for f in "$out"/cg.*.0; do
    [ -s "$f" ] || continue
    echo "== ${f##*/cg.} $(sed -n 's/^8  *//p' "${f%/*}/log.$(basename "${f%.0}" | sed 's/^cg\.//')" | tr -d ' ') us under callgrind"
    phases "$f" | awk -F'|' '{ printf "%-60s %9s\n", $1, $2 }'
done
