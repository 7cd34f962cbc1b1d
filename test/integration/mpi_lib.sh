# SPDX-License-Identifier: BSD-3-Clause
# The MPI face's test scripts (sourced after lib.sh): a program of test/mpi runs as a singleton,
# under mpirun or under srun --mpi=pmix, over sm or (in the guest) over rc, and its output is
# checked one way: its status, every rank's summary "rank R of N: 0 failure(s)" and the number
# of phases rank 0 reported ("ok: "), as test/integration/mpi/mpi_test.h prints them.
mpi_dir=$(mktemp -d)
trap 'rm -rf "$mpi_dir"' EXIT
mpi_out="$mpi_dir/out"
# how mpi_run starts a program: singleton (no launcher, one rank), mpirun or srun (the caller
# has started contrib/slurm/slurm-local)
mpi_launcher=mpirun
mpi_timeout=120
# rc: every peer over rc (RCMSG_TRANSPORTS=rc,self), and mpi_check asserts that it was
mpi_over=sm
# VAR=VALUE... in every rank's environment
mpi_vars=''

# mpi_phases PROG NP: how many phases PROG reports with NP ranks
mpi_phases() {
    case $1 in
    mpi_env_test) echo 3 ;;
    mpi_p2p_test) echo 11 ;;
    mpi_cancel_test) echo 8 ;;
    mpi_coll_test) echo 5 ;;
    mpi_nbc_test) echo 9 ;;
    mpi_nbc_mixed) echo 3 ;;
    mpi_group_test) echo 6 ;;
    mpi_types_p2p) echo 6 ;;
    mpi_empty_test) echo 3 ;;
    mpi_bottom_test) if [ "$2" -ge 2 ]; then echo 3; else echo 2; fi ;;
    mpi_inter_test) if [ "$2" -ge 3 ]; then echo 2; else echo 1; fi ;;
    *) fail "mpi_lib.sh: no phase count for $1" ;;
    esac
}

# mpi_run NP PROG [ARG]...: test/integration/mpi/PROG with NP ranks under $mpi_launcher, bounded by
# $mpi_timeout s; its output in $mpi_out; returns its status
mpi_run() {
    _np=$1 _prog="$top_builddir/test/integration/mpi/$2"
    shift 2
    case $mpi_launcher in
    singleton) set -- "$_prog" "$@" ;;
    mpirun) set -- "$MPIRUN" --allow-run-as-root -np "$_np" --oversubscribe "$_prog" "$@" ;;
    srun) set -- srun --mpi=pmix -O -n "$_np" "$_prog" "$@" ;;
    *) fail "mpi_lib.sh: no launcher $mpi_launcher" ;;
    esac
    if [ "$mpi_over" = rc ]; then
        set -- RCMSG_TRANSPORTS=rc,self RCMSG_LOG_LEVEL=info "$@"
    fi
    set -- $mpi_vars "$@"
    run_timeout "$mpi_timeout" env "$@" > "$mpi_out" 2>&1
}

# mpi_fail WHAT: shows the output (less the cascade of rcmsg_* errors) and fails
mpi_fail() {
    grep -v ' error: rcmsg_' "$mpi_out" | head -150
    fail "$*"
}

# mpi_check NP PROG STATUS: STATUS is 0, each of the NP ranks printed a clean summary, rank 0
# reported every phase; over rc, every rank had every peer over rc
mpi_check() {
    _what="$2 with $1 rank(s) ($mpi_launcher over $mpi_over${mpi_vars:+, $mpi_vars})"
    [ "$3" -eq 0 ] || mpi_fail "$_what: status $3"
    [ "$(grep -c "^rank [0-9] of $1: 0 failure(s)\$" "$mpi_out")" -eq "$1" ] ||
        mpi_fail "$_what: not every rank passed"
    _n=$(mpi_phases "$2" "$1")
    [ "$(grep -c '^ok: ' "$mpi_out")" -eq "$_n" ] ||
        mpi_fail "$_what: $(grep -c '^ok: ' "$mpi_out") phase(s), not $_n"
    [ "$mpi_over" != rc ] ||
        [ "$(grep -c "transports: self for this rank, sm for 0 peer(s), rc for $(($1 - 1)) peer(s)" "$mpi_out")" -eq "$1" ] ||
        { grep transports "$mpi_out"; fail "$_what: not every peer over rc"; }
}

# mpi_test NP PROG [ARG]...: mpi_run and mpi_check, then says how long it took
mpi_test() {
    _t0=$(date +%s)
    mpi_run "$@"
    mpi_check "$1" "$2" $?
    echo "ok: $2${3:+ $3} with $1 rank(s) ($mpi_launcher over $mpi_over${mpi_vars:+, $mpi_vars}," \
        "$(grep -c '^ok: ' "$mpi_out") phase(s), $(($(date +%s) - _t0)) s)"
}

# mpi_host_runs PROG NP...: PROG as a singleton, then under mpirun with each NP ranks (over sm
# on the host)
mpi_host_runs() {
    _p=$1
    shift
    mpi_launcher=singleton mpi_timeout=60
    mpi_test 1 "$_p"
    need_mpirun
    mpi_launcher=mpirun mpi_timeout=120
    for _np; do
        mpi_test "$_np" "$_p"
    done
}
