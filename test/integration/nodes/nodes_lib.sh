# SPDX-License-Identifier: BSD-3-Clause
# Shared by the two-node scripts (sourced after ../lib.sh). They run on node1 of
# contrib/rxe-vm/rxe-run --nodes 2 (test/rdma/two_nodes.sh boots it and runs the where=nodes
# lines of nodes/testlist there, with a two-node Slurm up: NODES_SLURM=up, SLURM_CONF).
# NODES_LAUNCHER=mpirun|srun picks the launcher of job (the testlist line's env=).
need_nodes() {
    [ "$(hostname)" = node1 ] || skip "not on node1 of rxe-run --nodes 2 (test/rdma/two_nodes.sh runs these)"
    [ "$(rxe-rsh node2 hostname 2> /dev/null)" = node2 ] || fail "rxe-rsh node2: node2 unreachable"
    need_rdma
}
launcher=${NODES_LAUNCHER:-mpirun}
# job SECONDS OUT [VAR=VALUE]... -- PROGRAM ARGS...: 4 ranks, 2 per node (ranks 0, 1 on node1,
# 2, 3 on node2) under $launcher, the VARs and those of $NODES_VARS (a testlist line's
# env=NODES_VARS=V=X) in every rank's environment (mpirun: -x, since node2's ranks get node2's
# environment otherwise); output in OUT; status in $st
job() {
    _secs=$1 _out=$2
    shift 2
    _x='' _vars=''
    for _v in ${NODES_VARS:-}; do
        _x="$_x -x $_v" _vars="$_vars $_v"
    done
    while [ "$1" != -- ]; do
        _x="$_x -x $1" _vars="$_vars $1"
        shift
    done
    shift
    case $launcher in
    mpirun)
        need_mpirun
        # shellcheck disable=SC2086
        run_timeout "$_secs" "$MPIRUN" --allow-run-as-root --host node1:2,node2:2 -np 4 \
            --map-by slot --mca orte_abort_on_non_zero_status 0 $_x "$@" > "$_out" 2>&1 ;;
    srun)
        [ "${NODES_SLURM:-}" = up ] || skip "no two-node Slurm here (slurmctld/slurmd not up)"
        # shellcheck disable=SC2086
        run_timeout "$_secs" env $_vars srun --mpi=pmix -N 2 -n 4 --distribution=block "$@" \
            > "$_out" 2>&1 ;;
    *) fail "NODES_LAUNCHER=$launcher: mpirun or srun" ;;
    esac
    st=$?
    [ $st -ne 124 ] || { tail -n 40 "$_out"; fail "$launcher: the job hung (killed after $_secs s)"; }
}

# pairs_check DIR WHAT [lazy|link]: the counters of DIR/stats.HOST.RANK.json (RCMSG_STATS_FILE
# with %h.%r) of the 4 ranks: two ranks per node; every same-node pair on sm with no QP and no
# rc counter (connects 0 but sm's attach, recoveries 0), every cross-node pair on rc, messages
# both ways on every pair. Default: every cross-node pair holds a QP (eager connect). lazy:
# every cross-node pair connected at least once (a QP or none at the end: recycled). link:
# a QP each, and the cross-node pairs recovered (recoveries > 0 in all), the same-node none.
pairs_check() {
    _dir=$1 _what=$2 _mode=${3:-eager}
    set -- "$_dir"/stats.*.json
    [ $# = 4 ] && [ -e "$1" ] || fail "$_what: $# stats files in $_dir, not 4"
    _bad=$(for _f; do
        _n=${_f##*/stats.}
        _n=${_n%.json}
        echo "host ${_n##*.} ${_n%.*}"
    done | cat - "$@" | awk -v mode="$_mode" '
        function num(k,  m) { return match($0, "\"" k "\":[0-9]+") ? substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3) + 0 : -1 }
        $1 == "host" { h[$2] = $3; per[$3]++; next }
        /"scope":"peer"/ {
            r = num("rank"); p = num("peer"); q = num("qpn")
            if (r == p) next
            match($0, /"transport":"[a-z]*"/); t = substr($0, RSTART + 13, RLENGTH - 14)
            s = num("msgs_sent_inline") + num("msgs_sent_eager") + num("msgs_sent_rndv")
            v = num("msgs_recv_eager") + num("msgs_recv_rndv")
            n++
            want = h[r] == h[p] ? "sm" : "rc"
            if (t != want) print "rank " r " (" h[r] ") peer " p " (" h[p] "): " t ", want " want
            else if (want == "sm" && (q != 0 || num("recoveries") != 0)) print "rank " r " peer " p ": sm peer with rc QP " q " or recoveries"
            else if (want == "rc" && mode != "lazy" && q <= 0) print "rank " r " peer " p ": rc without a QP"
            else if (want == "rc" && num("connects") < 1) print "rank " r " peer " p ": rc never connected"
            if (want == "rc") { rec += num("recoveries"); con += num("connects"); dis += num("disconnects") }
            if (s <= 0 || v <= 0) print "rank " r " peer " p ": sent " s ", received " v
        }
        END {
            for (x in per) if (per[x] != 2) print per[x] " ranks on " x ", not 2"
            if (n != 12) print n + 0 " peer lines, want 12"
            if (mode == "link" && rec <= 0) print "no recovery counted on the cross-node pairs"
            if (mode == "lazy" && dis <= 0) print "no rc disconnect counted (no churn)"
            printf "info: rc pairs: %d connects, %d disconnects, %d recoveries\n", con, dis, rec
        }')
    echo "$_bad" | grep '^info: '
    _bad=$(echo "$_bad" | grep -v '^info: ')
    [ -z "$_bad" ] || fail "$_what: counters: $_bad"
    echo "ok: $_what: 2 ranks per node; same-node pairs on sm without a QP, cross-node pairs on rc; every pair both ways"
}

# no_leftovers NAME: no process named NAME (a program's file name) is left on node1 or node2
# (5 s granted: a launcher's daemon exits shortly after the launcher)
no_leftovers() {
    _c=$(echo "$1" | cut -c1-15) # the kernel's comm
    for _i in 1 2 3 4 5 6 7 8 9 10; do
        _l1=$(pgrep -x "$_c")
        _l2=$(rxe-rsh node2 pgrep -x "$_c")
        [ -n "$_l1$_l2" ] || break
        sleep 0.5
    done
    [ -z "$_l1$_l2" ] || fail "processes left: $1 on node1: ${_l1:-none}, on node2: ${_l2:-none}"
    echo "ok: no $1 process left on node1 or node2"
}
