# SPDX-License-Identifier: BSD-3-Clause
# mpi_cancel_test's checks (sourced after mpi_lib.sh; issue 38, items 7 and 8), run by
# mpi_cancel_host.sh (mpirun, sm), mpi_cancel_srun.sh (srun --mpi=pmix, sm) and mpi_cancel_rc.sh
# (mpirun in the guest, rc). 4 eager credits: sends beyond them wait at the sender when cancelled.
mpi_vars='RCMSG_EAGER_CREDITS=4'

# cancel_freed: 2 ranks each free two receives nothing matches (one on the world, one
# ANY_SOURCE/ANY_TAG on a named duplicate), one that a message matches and a received send;
# MPI_Finalize cancels the two unmatched ones with exactly one warning per rank naming them,
# and takes seconds (it used to spin for RCMSG_LAUNCHER_TIMEOUT, 300 s)
cancel_freed() {
    mpi_timeout=60
    mpi_run 2 mpi_cancel_test freed
    _st=$?
    [ $_st -ne 124 ] || mpi_fail "freed receives: the job hung at MPI_Finalize"
    [ $_st -eq 0 ] || mpi_fail "freed receives: status $_st"
    for _r in 0 1; do
        _w="rcmsg-mpi: rank $_r: warning: MPI_Finalize cancelled 2 receive(s) freed by MPI_Request_free that no message matched"
        one_line "$mpi_out" "$_w" || mpi_fail "rank $_r: not exactly one warning"
        grep "$_w" "$mpi_out" | grep -q "source MPI_ANY_SOURCE tag MPI_ANY_TAG on cancel_dup; source $((1 - _r)) tag 90 on MPI_COMM_WORLD" ||
            mpi_fail "rank $_r: the warning does not name both receives"
        _t=$(sed -n "s/^rank $_r: MPI_Finalize took \([0-9]*\)\.[0-9] s\$/\1/p" "$mpi_out")
        [ -n "$_t" ] && [ "$_t" -le 10 ] || mpi_fail "rank $_r: MPI_Finalize took ${_t:-?} s"
        grep -q "^rank $_r of 2: 0 failure(s)\$" "$mpi_out" || mpi_fail "rank $_r failed"
    done
    echo "ok: freed unmatched receives cancelled at MPI_Finalize, one warning per rank ($mpi_launcher over $mpi_over)"
    grep 'MPI_Finalize took' "$mpi_out"
}

# cancel_freed_sends NP: each of NP ranks (1: a singleton) frees a rendezvous send to itself and
# one to the next rank, and makes a buffered one of each, none ever received; MPI_Finalize
# cancels them with one warning per rank naming them (a send to the next rank may instead be
# refused by that rank's finalize, if it got there first): at once when every send is to itself
# (a singleton), else after its bounded wait for the receivers (10 s). It used to wait for
# ever (the singleton spinning at 100% CPU).
cancel_freed_sends() {
    mpi_timeout=60
    if [ "$1" -eq 1 ]; then
        _l=$mpi_launcher mpi_launcher=singleton
    fi
    mpi_run "$1" mpi_cancel_test freed_sends
    _st=$?
    [ "$1" -ne 1 ] || mpi_launcher=$_l
    [ $_st -ne 124 ] || mpi_fail "freed sends: the job hung at MPI_Finalize"
    [ $_st -eq 0 ] || mpi_fail "freed sends: status $_st"
    for _r in $(seq 0 $(($1 - 1))); do
        _n=$((($_r + 1) % $1))
        _w="rcmsg-mpi: rank $_r: warning: MPI_Finalize cancelled [24] freed or buffered send(s) that no receiver took"
        one_line "$mpi_out" "$_w" || mpi_fail "rank $_r: not exactly one warning"
        for _s in "freed send to rank $_r, tag 94" "buffered send to rank $_r, tag 97"; do
            grep "$_w" "$mpi_out" | grep -q "a $_s on MPI_COMM_WORLD" ||
                mpi_fail "rank $_r: the warning does not name a $_s"
        done
        # a send to the next rank is cancelled, or refused by that rank's finalize when it got
        # there first (its sender's log says so)
        for _s in "freed send to rank $_n, tag 95" "buffered send to rank $_n, tag 96"; do
            _tag=${_s##* }
            grep "$_w" "$mpi_out" | grep -q "a $_s on MPI_COMM_WORLD" ||
                grep -q "^\[rcmsg [^:]*:$_r [0-9]*\] warn: rendezvous send of [0-9]* bytes (tag $_tag) to rank $_n was discarded there unreceived" "$mpi_out" ||
                mpi_fail "rank $_r: a $_s was neither cancelled nor refused"
        done
        _t=$(sed -n "s/^rank $_r: MPI_Finalize took \([0-9]*\)\.[0-9] s\$/\1/p" "$mpi_out")
        if [ "$1" -eq 1 ]; then
            [ -n "$_t" ] && [ "$_t" -le 2 ] || mpi_fail "rank $_r: MPI_Finalize took ${_t:-?} s"
        else
            [ -n "$_t" ] && [ "$_t" -ge 9 ] && [ "$_t" -le 25 ] ||
                mpi_fail "rank $_r: MPI_Finalize took ${_t:-?} s, not the bounded wait (10 s)"
        fi
        grep -q "^rank $_r of $1: 0 failure(s)\$" "$mpi_out" || mpi_fail "rank $_r failed"
    done
    echo "ok: freed and buffered sends never received cancelled at MPI_Finalize with $1 rank(s) ($(grep 'MPI_Finalize took' "$mpi_out" | head -1))"
}

# cancel_fini: rank 0 cancels sends (eager and rendezvous) that rank 1, in MPI_Finalize, never
# received: cancelled within seconds (rank 1 used to stop answering at finalize: both waited
# for RCMSG_LAUNCHER_TIMEOUT, then the job aborted); then rank 0 leaves a rendezvous send
# pending at its MPI_Finalize while rank 1 computes: rank 1's MPI_Finalize refuses it, and
# rank 0's ends within seconds, status 0 (it waited 10 s, cancelled, waited 10 s and aborted)
cancel_fini() {
    mpi_timeout=60
    mpi_run 2 mpi_cancel_test fini
    _st=$?
    [ $_st -ne 124 ] || mpi_fail "cancels of sends to a rank in MPI_Finalize: the job hung"
    [ $_st -eq 0 ] || mpi_fail "cancels of sends to a rank in MPI_Finalize: status $_st"
    for _r in 0 1; do
        grep -q "^rank $_r of 2: 0 failure(s)\$" "$mpi_out" || mpi_fail "rank $_r failed"
    done
    grep '^rank 0: the cancels were answered' "$mpi_out"
    mpi_run 2 mpi_cancel_test pending
    _st=$?
    [ $_st -ne 124 ] || mpi_fail "a send pending at MPI_Finalize: the job hung"
    [ $_st -eq 0 ] || mpi_fail "a send pending at MPI_Finalize: status $_st"
    grep -q "rank 0: warning: MPI_Finalize with 1 request(s) not completed" "$mpi_out" ||
        mpi_fail "no warning naming the pending send"
    for _r in 0 1; do
        grep -q "^rank $_r of 2: 0 failure(s)\$" "$mpi_out" || mpi_fail "rank $_r failed"
        _t=$(sed -n "s/^rank $_r: MPI_Finalize took \([0-9]*\)\.[0-9] s\$/\1/p" "$mpi_out")
        [ -n "$_t" ] && [ "$_t" -le 5 ] || mpi_fail "rank $_r: MPI_Finalize took ${_t:-?} s"
    done
    echo "ok: sends to a rank in MPI_Finalize cancelled, one pending at MPI_Finalize refused ($mpi_launcher over $mpi_over)"
    grep 'MPI_Finalize took' "$mpi_out"
}
