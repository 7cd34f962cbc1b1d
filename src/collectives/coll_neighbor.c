/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The neighborhood exchange (rcmsg_neighbor_alltoallv, rcmsg_ineighbor_alltoallv): each rank
 * names its own neighbors, the ranks it receives from (srcs) and those it sends to (dsts), and
 * every message of the call is posted at once, in one phase, on the engine of every
 * collective (coll_sched.h):
 *
 *     recv srcs[0] .. recv srcs[nsrc-1]   send dsts[0] .. send dsts[ndst-1]   (one phase)
 *
 * Receives are posted in list order, then sends in list order, all with the call's tag: the
 * k-th message a rank sends to r matches the k-th receive r posts from it (a rank listed
 * twice, a Cartesian dimension of 1 or 2 periodic ranks, stays in order). RCMSG_PROC_NULL is
 * no neighbor, and a message of 0 bytes is not sent (both ends know its count).
 */
#include "config.h"

#include "coll.h"

#include "base/log.h"
#include "base/mt.h"
#include "pml/pml.h"

#include <stdint.h>

static char nbr_empty[16]; /* a NULL buffer of no data */

rcmsg_status_t rcmsg_coll_neighbor_alltoallv(const rcmsg_coll_args_t *a)
{
    const rcmsg_coll_nbr_t *nb = a->nbr;
    rcmsg_coll_msg_t *m = rcmsg_coll_scratch_get(a, sizeof(*m) * (size_t)(nb->nsrc + nb->ndst + 1));
    int n = 0;

    if (m == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int j = 0; j < nb->nsrc; j++) {
        size_t len = a->rcounts[j] * a->esize;

        if (nb->srcs[j] != RCMSG_PROC_NULL && len > 0) {
            m[n++] = (rcmsg_coll_msg_t){.buf = (char *)a->rbuf + a->rdispls[j] * a->esize,
                                        .len = len,
                                        .peer = nb->srcs[j],
                                        .recv = true};
        }
    }
    for (int i = 0; i < nb->ndst; i++) {
        size_t len = a->scounts[i] * a->esize;

        if (nb->dsts[i] != RCMSG_PROC_NULL && len > 0) {
            m[n++] = (rcmsg_coll_msg_t){.buf = (char *)a->sbuf + a->sdispls[i] * a->esize,
                                        .len = len,
                                        .peer = nb->dsts[i],
                                        .recv = false};
        }
    }
    return n > 0 ? rcmsg_coll_post_all(a, n, m) : RCMSG_OK;
}

/* ---- the entry points ------------------------------------------------------------------------ */

static const char *nbr_name(bool nb)
{
    return nb ? "rcmsg_ineighbor_alltoallv" : "rcmsg_neighbor_alltoallv";
}

/* One side's list: n >= 0, the arrays present when n > 0, each rank one of comm's or
 * RCMSG_PROC_NULL, each count small enough (lim elements), the buffer present when it moves
 * data (NULL becomes an empty buffer) and not RCMSG_IN_PLACE. */
static rcmsg_status_t nbr_check_side(bool nb, const char *what, int n, const int *ranks,
                                     const size_t *counts, const size_t *displs, const void **buf,
                                     int size, size_t lim)
{
    size_t total = 0;

    if (n < 0 || (n > 0 && (ranks == NULL || counts == NULL || displs == NULL))) {
        rcmsg_error("%s: %s: %d neighbors%s", nbr_name(nb), what, n,
                    n < 0 ? "" : " and a NULL list, counts or displacements");
        return RCMSG_ERR_INVALID_PARAM;
    }
    for (int i = 0; i < n; i++) {
        if (ranks[i] != RCMSG_PROC_NULL && (ranks[i] < 0 || ranks[i] >= size)) {
            rcmsg_error("%s: %s neighbor %d is rank %d, not a rank of this %d-rank communicator "
                        "(nor RCMSG_PROC_NULL)",
                        nbr_name(nb), what, i, ranks[i], size);
            return RCMSG_ERR_INVALID_PARAM;
        }
        if (counts[i] > lim || displs[i] > lim) {
            rcmsg_error("%s: %s count or displacement %d (%zu, %zu) is too large", nbr_name(nb),
                        what, i, counts[i], displs[i]);
            return RCMSG_ERR_INVALID_PARAM;
        }
        total += ranks[i] != RCMSG_PROC_NULL ? counts[i] : 0;
    }
    if (*buf == RCMSG_IN_PLACE || (*buf == NULL && total > 0)) {
        rcmsg_error("%s: the %s buffer is %s", nbr_name(nb), what,
                    *buf == NULL ? "NULL" : "RCMSG_IN_PLACE (not allowed here)");
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (*buf == NULL) {
        *buf = nbr_empty;
    }
    return RCMSG_OK;
}

/* The communicator (a live intracommunicator) and the datatype (*req_p cleared first); fills
 * a but the lists. */
static rcmsg_status_t nbr_prep(bool nb, rcmsg_comm_t comm, rcmsg_datatype_t dtype,
                               rcmsg_request_t *req_p, rcmsg_coll_args_t *a)
{
    int size = rcmsg_comm_size(comm);

    if (nb) {
        *req_p = RCMSG_REQUEST_NULL;
    }
    if (size < 1) {
        rcmsg_error("%s: %p is not a live communicator%s", nbr_name(nb), (void *)comm,
                    rcmsg_comm_world() == RCMSG_COMM_NULL ? " (rcmsg is not initialized)" : "");
        return rcmsg_comm_world() == RCMSG_COMM_NULL ? RCMSG_ERR_NOT_INITIALIZED
                                                     : RCMSG_ERR_INVALID_PARAM;
    }
    if (comm->inter != NULL) {
        rcmsg_error("%s: not over an intercommunicator", nbr_name(nb));
        return RCMSG_ERR_INVALID_PARAM;
    }
    *a = (rcmsg_coll_args_t){.comm = comm,
                             .rank = comm->rank,
                             .size = size,
                             .esize = rcmsg_coll_type_size(dtype),
                             .dtype = dtype,
                             .op = RCMSG_OP_NULL,
                             .coll = (rcmsg_coll_t)RCMSG_COLL_NEIGHBOR_ALLTOALLV};
    if (a->esize == 0) {
        rcmsg_error("%s: unknown datatype %d", nbr_name(nb), (int)dtype);
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_OK;
}

static rcmsg_status_t nbr_call(const void *sendbuf, int ndst, const int dsts[],
                               const size_t sendcounts[], const size_t sdispls[], void *recvbuf,
                               int nsrc, const int srcs[], const size_t recvcounts[],
                               const size_t rdispls[], rcmsg_datatype_t dtype, rcmsg_comm_t comm,
                               rcmsg_request_t *req_p)
{
    bool nb = req_p != NULL;
    rcmsg_coll_args_t a;
    rcmsg_coll_nbr_t lists = {.nsrc = nsrc, .ndst = ndst, .srcs = srcs, .dsts = dsts};
    const void *rb = recvbuf;
    size_t lim;
    rcmsg_status_t s = nbr_prep(nb, comm, dtype, req_p, &a);

    if (s != RCMSG_OK) {
        return s;
    }
    lim = SIZE_MAX / a.esize / 4;
    lim = lim > rcmsg_pml_max_len() / a.esize ? rcmsg_pml_max_len() / a.esize : lim;
    s = nbr_check_side(nb, "send", ndst, dsts, sendcounts, sdispls, &sendbuf, a.size, lim);
    if (s == RCMSG_OK) {
        s = nbr_check_side(nb, "receive", nsrc, srcs, recvcounts, rdispls, &rb, a.size, lim);
    }
    if (!nb && rcmsg_coll_check_enabled()) { /* every rank calls it, its own refusal included */
        rcmsg_coll_check_t mine = {.call = RCMSG_COLL_NEIGHBOR_ALLTOALLV, .bad = s != RCMSG_OK};
        rcmsg_status_t c = rcmsg_coll_check(comm, &mine);

        s = s == RCMSG_OK ? c : s;
    }
    if (s != RCMSG_OK) {
        return s;
    }
    a.sbuf = sendbuf;
    a.rbuf = (void *)rb;
    a.scounts = sendcounts;
    a.sdispls = sdispls;
    a.rcounts = recvcounts;
    a.rdispls = rdispls;
    a.nbr = &lists;
    return rcmsg_coll_run_with(&a, rcmsg_coll_neighbor_alltoallv, req_p);
}

rcmsg_status_t rcmsg_neighbor_alltoallv(const void *sendbuf, int ndst, const int dsts[],
                                        const size_t sendcounts[], const size_t sdispls[],
                                        void *recvbuf, int nsrc, const int srcs[],
                                        const size_t recvcounts[], const size_t rdispls[],
                                        rcmsg_datatype_t dtype, rcmsg_comm_t comm)
{
    RCMSG_MT_GUARD();
    return nbr_call(sendbuf, ndst, dsts, sendcounts, sdispls, recvbuf, nsrc, srcs, recvcounts,
                    rdispls, dtype, comm, NULL);
}

rcmsg_status_t rcmsg_ineighbor_alltoallv(const void *sendbuf, int ndst, const int dsts[],
                                         const size_t sendcounts[], const size_t sdispls[],
                                         void *recvbuf, int nsrc, const int srcs[],
                                         const size_t recvcounts[], const size_t rdispls[],
                                         rcmsg_datatype_t dtype, rcmsg_comm_t comm,
                                         rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    if (req_p == NULL) {
        rcmsg_error("rcmsg_ineighbor_alltoallv: req_p is NULL");
        return RCMSG_ERR_INVALID_PARAM;
    }
    return nbr_call(sendbuf, ndst, dsts, sendcounts, sdispls, recvbuf, nsrc, srcs, recvcounts,
                    rdispls, dtype, comm, req_p);
}
