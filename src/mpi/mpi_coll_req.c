/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kind of request of a nonblocking collective that rcmsg runs (rcmsg_ibarrier, ...,
 * rcmsg_iscan): the rcmsg request, the packed copies it reads and writes (kept until it
 * completes) and, for a noncontiguous receive buffer, the unpack of the result when it
 * completes. rcmsg advances it in its own progress (any rcmsg call), so the kind has no
 * background work of its own.
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>

typedef struct {
    coll_buf_t in, out; /* the views the collective reads and writes */
    void *obuf;         /* the result: out unpacked into ocount elements of ot at obuf */
    size_t ocount;
    mpi_type_t *ot;        /* held until the end; NULL: nothing to unpack */
    struct mpi_op *op;     /* a reduction's user operation, held until the end (or NULL) */
    mpi_type_t *rt;        /* a reduction's type, held until the end (or NULL) */
    coll_vbuf_t vin, vout; /* a v-collective's byte views */
    coll_blk_t *blk;       /* vout unpacked into these blocks at the end (types held) */
    int nblk;
    void *keep;            /* freed at the end (counts rcmsg reads while it runs) */
    size_t rblock, sblock; /* mpi_coll_req_blocks: they differ, an error at the end */
} coll_req_t;

static void coll_req_record(mpi_req_t *req, rcmsg_status_t s)
{
    coll_req_t *cr = req->priv;
    int err = MPI_SUCCESS;

    req->rc = RCMSG_REQUEST_NULL;
    if (s == RCMSG_OK && cr->ot != NULL) {
        coll_view_done(&cr->out, cr->obuf, cr->ocount, cr->ot);
    }
    if (s == RCMSG_OK && cr->blk != NULL) {
        coll_vbuf_done(&cr->vout, cr->blk, cr->nblk);
    }
    if (s != RCMSG_OK) {
        err = mpi_err_note(mpi_err_code(mpi_err_class_of(s), s),
                           "the nonblocking collective failed: %s (%s)", rcmsg_strerror(s),
                           rcmsg_status_name(s));
    } else {
        err = coll_all_mismatch_note(cr->rblock, cr->sblock);
    }
    mpi_status_set(&req->done, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, err, false);
}

static bool coll_req_test(mpi_req_t *req)
{
    int flag = 0;
    rcmsg_status_t s = rcmsg_test(&req->rc, &flag, NULL);

    if (flag) {
        coll_req_record(req, s);
    }
    return flag != 0;
}

static void coll_req_wait(mpi_req_t *req)
{
    coll_req_record(req, rcmsg_wait(&req->rc, NULL));
}

static int coll_req_cancel(mpi_req_t *req, const char *call)
{
    return call == NULL ? MPI_ERR_REQUEST
                        : mpi_err(req->comm, call, MPI_ERR_REQUEST,
                                  "a nonblocking collective cannot be cancelled (MPI: erroneous)");
}

static void coll_req_free(mpi_req_t *req)
{
    coll_req_t *cr = req->priv;

    if (cr == NULL) {
        return;
    }
    coll_view_free(&cr->in);
    coll_view_free(&cr->out);
    if (cr->ot != NULL) {
        mpi_type_release(cr->ot);
    }
    mpi_op_drop(cr->op);
    mpi_type_release(cr->rt);
    coll_vbuf_free(&cr->vin);
    coll_vbuf_free(&cr->vout);
    for (int i = 0; i < cr->nblk; i++) {
        mpi_type_release(cr->blk[i].t);
    }
    free(cr->blk);
    free(cr->keep);
    free(cr);
    req->priv = NULL;
}

static const mpi_req_ops_t coll_req_ops = {
    .name = "nonblocking collective",
    .collective = true,
    .test = coll_req_test,
    .wait = coll_req_wait,
    .cancel = coll_req_cancel,
    .free = coll_req_free,
};

mpi_req_t *mpi_coll_req_new(mpi_comm_t *c, const char *call, coll_buf_t **in_p, coll_buf_t **out_p,
                            int *err_p)
{
    coll_req_t *cr = calloc(1, sizeof(*cr));
    mpi_req_t *r = cr != NULL ? mpi_req_new(c, &coll_req_ops, err_p) : NULL;

    if (r == NULL) {
        free(cr);
        *err_p = mpi_err(c, call, cr == NULL ? MPI_ERR_NO_MEM : *err_p, "out of requests");
        return NULL;
    }
    r->priv = cr;
    *in_p = &cr->in;
    *out_p = &cr->out;
    return r;
}

void mpi_coll_req_unpack(mpi_req_t *r, void *buf, size_t count, mpi_type_t *t)
{
    coll_req_t *cr = r->priv;

    if (cr->out.tmp == NULL || cr->ot != NULL) {
        return; /* zero copy: the result lands in place */
    }
    mpi_type_retain(t);
    cr->ot = t;
    cr->obuf = buf;
    cr->ocount = count;
}

void mpi_coll_req_vbufs(mpi_req_t *r, coll_vbuf_t **in_p, coll_vbuf_t **out_p)
{
    coll_req_t *cr = r->priv;

    *in_p = &cr->vin;
    *out_p = &cr->vout;
}

void mpi_coll_req_vunpack(mpi_req_t *r, coll_blk_t *blk, int n)
{
    coll_req_t *cr = r->priv;

    for (int i = 0; i < n; i++) {
        if (blk[i].t != NULL) {
            mpi_type_retain(blk[i].t);
        }
    }
    cr->blk = blk;
    cr->nblk = n;
}

void mpi_coll_req_blocks(mpi_req_t *r, size_t recv_block, size_t send_block)
{
    coll_req_t *cr = r->priv;

    cr->rblock = recv_block;
    cr->sblock = send_block;
}

void mpi_coll_req_keep(mpi_req_t *r, void *p)
{
    coll_req_t *cr = r->priv;

    free(cr->keep);
    cr->keep = p;
}

void mpi_coll_req_hold(mpi_req_t *r, MPI_Op op, mpi_type_t *t)
{
    coll_req_t *cr = r->priv;

    cr->op = mpi_op_hold(op);
    mpi_type_retain(t);
    cr->rt = t;
}

int mpi_coll_req_start(mpi_req_t *r, const char *call, int err, rcmsg_status_t s,
                       MPI_Request *request)
{
    if (err == MPI_SUCCESS && s != RCMSG_OK) {
        err = mpi_err_rcmsg(r->comm, call, s);
    }
    if (err != MPI_SUCCESS) {
        mpi_req_delete(r);
        return err;
    }
    *request = r->handle;
    return MPI_SUCCESS;
}
