/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The neighborhood collectives' engine: the blocks a binding (mpi_neighbor.c) names, one per
 * neighbor of the topology, become one rcmsg buffer of bytes per side (coll_vbuf_*: the
 * user's memory when the types are contiguous, else packed) and travel by
 * rcmsg_neighbor_alltoallv, or rcmsg_ineighbor_alltoallv as a request of this file's kind
 * (which keeps the views and unpacks the result when it completes).
 *
 * Cartesian pairs: MPI (3.1 with the errata of 4.0) wants block 2d (to the source of
 * dimension d) to land in the receiver's block 2d + 1 (from its destination) and the
 * reverse, also when both are the same rank (a periodic dimension of 1 or 2 ranks). rcmsg
 * matches the k-th message to a rank with the k-th receive from it, so the sends of each
 * dimension go destination first: A's send to its +1 neighbor B then meets B's receive from
 * its -1 neighbor (posted first) whichever ranks they are.
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>

typedef struct {
    coll_vbuf_t vs, vr; /* what the collective reads and writes (they do not move) */
    coll_blk_t *rb;     /* the receive blocks, unpacked from vr at the end (types held) */
    int nsrc;
} nbr_req_t;

static void nbr_req_record(mpi_req_t *req, rcmsg_status_t s)
{
    nbr_req_t *q = req->priv;
    int err = MPI_SUCCESS;

    req->rc = RCMSG_REQUEST_NULL;
    if (s == RCMSG_OK) {
        coll_vbuf_done(&q->vr, q->rb, q->nsrc);
    } else {
        err = mpi_err_note(mpi_err_code(mpi_err_class_of(s), s),
                           "the neighborhood collective failed: %s (%s)", rcmsg_strerror(s),
                           rcmsg_status_name(s));
    }
    mpi_status_set(&req->done, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, err, false);
}

static bool nbr_req_test(mpi_req_t *req)
{
    int flag = 0;
    rcmsg_status_t s = rcmsg_test(&req->rc, &flag, NULL);

    if (flag) {
        nbr_req_record(req, s);
    }
    return flag != 0;
}

static void nbr_req_wait(mpi_req_t *req)
{
    nbr_req_record(req, rcmsg_wait(&req->rc, NULL));
}

static int nbr_req_cancel(mpi_req_t *req, const char *call)
{
    return call == NULL ? MPI_ERR_REQUEST
                        : mpi_err(req->comm, call, MPI_ERR_REQUEST,
                                  "a nonblocking collective cannot be cancelled (MPI: erroneous)");
}

static void nbr_req_free(mpi_req_t *req)
{
    nbr_req_t *q = req->priv;

    if (q == NULL) {
        return;
    }
    coll_vbuf_free(&q->vs);
    coll_vbuf_free(&q->vr);
    for (int i = 0; i < q->nsrc; i++) {
        if (q->rb[i].t != NULL) {
            mpi_type_release(q->rb[i].t);
        }
    }
    free(q->rb);
    free(q);
    req->priv = NULL;
}

static const mpi_req_ops_t nbr_req_ops = {
    .name = "nonblocking neighborhood collective",
    .collective = true,
    .test = nbr_req_test,
    .wait = nbr_req_wait,
    .cancel = nbr_req_cancel,
    .free = nbr_req_free,
};

/* swaps the blocks (and ranks) of each dimension's pair: the destination's block first */
static void nbr_cart_order(coll_blk_t *sb, int *dsts, int ndst)
{
    for (int i = 0; i + 1 < ndst; i += 2) {
        coll_blk_t b = sb[i];
        int r = dsts[i];

        sb[i] = sb[i + 1], dsts[i] = dsts[i + 1];
        sb[i + 1] = b, dsts[i + 1] = r;
    }
}

static int nbr_blocking(mpi_comm_t *c, const char *call, const nbr_lists_t *l)
{
    coll_vbuf_t vs = {0}, vr = {0};
    int err = coll_vbuf_in(c, call, &vs, l->sb, l->ndst);

    if (err == MPI_SUCCESS) {
        err = coll_vbuf_out(c, call, &vr, l->rb, l->nsrc, -1);
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(c, call,
                          rcmsg_neighbor_alltoallv(vs.base, l->ndst, l->dsts, vs.counts, vs.displs,
                                                   vr.base, l->nsrc, l->srcs, vr.counts, vr.displs,
                                                   RCMSG_UINT8, c->rc));
    }
    if (err == MPI_SUCCESS) {
        coll_vbuf_done(&vr, l->rb, l->nsrc);
    }
    coll_vbuf_free(&vs);
    coll_vbuf_free(&vr);
    return err;
}

static int nbr_start(mpi_comm_t *c, const char *call, const nbr_lists_t *l, MPI_Request *request)
{
    nbr_req_t *q = calloc(1, sizeof(*q));
    mpi_req_t *r = q != NULL ? mpi_req_new(c, &nbr_req_ops, &(int){0}) : NULL;
    rcmsg_status_t s = RCMSG_OK;
    int err;

    if (r == NULL || (q->rb = malloc(((size_t)l->nsrc + 1) * sizeof(coll_blk_t))) == NULL) {
        free(q);
        if (r != NULL) {
            r->priv = NULL;
            mpi_req_delete(r);
        }
        return mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory or of request handles");
    }
    r->priv = q;
    for (int i = 0; i < l->nsrc; i++) {
        q->rb[i] = l->rb[i];
        if (q->rb[i].t != NULL) {
            mpi_type_retain(q->rb[i].t);
        }
    }
    q->nsrc = l->nsrc;
    err = coll_vbuf_in(c, call, &q->vs, l->sb, l->ndst);
    if (err == MPI_SUCCESS) {
        err = coll_vbuf_out(c, call, &q->vr, l->rb, l->nsrc, -1);
    }
    if (err == MPI_SUCCESS) {
        s = rcmsg_ineighbor_alltoallv(q->vs.base, l->ndst, l->dsts, q->vs.counts, q->vs.displs,
                                      q->vr.base, l->nsrc, l->srcs, q->vr.counts, q->vr.displs,
                                      RCMSG_UINT8, c->rc, &r->rc);
    }
    return mpi_coll_req_start(r, call, err, s, request);
}

int mpi_nbr_run(mpi_comm_t *c, const char *call, nbr_lists_t *l, MPI_Request *request)
{
    if (l->cart) {
        nbr_cart_order(l->sb, l->dsts, l->ndst);
    }
    return request == NULL ? nbr_blocking(c, call, l) : nbr_start(c, call, l, request);
}
