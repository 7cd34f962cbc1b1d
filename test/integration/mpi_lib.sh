# SPDX-License-Identifier: BSD-3-Clause
# The MPI face's test scripts (sourced after lib.sh): a program of test/mpi runs as a singleton,
# under mpirun or under srun --mpi=pmix, over sm or (in the guest) over rc, and its output is
# checked one way: its status and no FAIL line (each program checks its data and the phases it
# ran itself: test/integration/mpi/mpi_test.h). Plain runs of a program are testlist lines
# (test/integration/mpi/testlist); these are for the scripts that need more.
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

# mpi_check NP PROG STATUS: STATUS is 0 and no rank printed a FAIL line (the program checks its
# data and its phases itself: test/integration/mpi/mpi_test.h); over rc, no rank's transports
# line names a peer over anything but rc
mpi_check() {
    _what="$2 with $1 rank(s) ($mpi_launcher over $mpi_over${mpi_vars:+, $mpi_vars})"
    [ "$3" -eq 0 ] || mpi_fail "$_what: status $3"
    ! grep -q '^FAIL' "$mpi_out" || mpi_fail "$_what: a check failed"
    [ "$mpi_over" != rc ] || [ "$1" -eq 1 ] || {
        grep -q 'transports: self for this rank, sm for 0 peer(s), rc for' "$mpi_out" &&
            ! grep 'transports: ' "$mpi_out" |
            grep -qv "transports: self for this rank, sm for 0 peer(s), rc for $(($1 - 1)) peer(s)"
    } || { grep transports "$mpi_out"; fail "$_what: not every peer over rc"; }
}

# mpi_test NP PROG [ARG]...: mpi_run and mpi_check, then says how long it took
mpi_test() {
    _t0=$(date +%s)
    mpi_run "$@"
    mpi_check "$1" "$2" $?
    echo "ok: $2${3:+ $3} with $1 rank(s) ($mpi_launcher over $mpi_over${mpi_vars:+, $mpi_vars}," \
        "$(($(date +%s) - _t0)) s)"
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
