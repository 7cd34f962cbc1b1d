/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The blocking collectives' engine under the bindings of mpi_coll.c and mpi_coll_v.c:
 * contiguous views of typed buffers (packed when noncontiguous), point-to-point transfers on
 * the communicator's hidden duplicate (mpi_coll_comm, one tag per collective, mpi_coll_tag),
 * and the reductions rcmsg cannot do itself (user operations, MINLOC/MAXLOC, long double,
 * complex): a binomial tree in rank order.
 */
#include "mpi/mpi_engines.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

mpi_comm_t *coll_enter(MPI_Comm comm, const char *call, coll_args_t *a, int *tag_p, int *err_p)
{
    mpi_comm_t *c = mpi_comm_enter(comm, call, err_p);
    int tag;

    if (c == NULL) {
        return NULL;
    }
    /* the intercommunicator collectives (mpi_inter_coll.c) dispatched before this point */
    if (c->inter) {
        *err_p = mpi_err(c, call, MPI_ERR_COMM, "not supported over an intercommunicator");
        return NULL;
    }
    tag = mpi_coll_tag(c);
    if (tag_p != NULL) {
        *tag_p = tag;
    }
    if (a != NULL && (*err_p = coll_check(c, call, a)) != MPI_SUCCESS) {
        return NULL;
    }
    return c;
}

static int coll_view_alloc(mpi_comm_t *c, const char *call, coll_buf_t *v, void *buf, size_t count,
                           mpi_type_t *t)
{
    v->bytes = mpi_type_size(t) * count;
    v->tmp = NULL;
    if (mpi_type_is_contig(t)) {
        v->p = (char *)buf + mpi_type_true_lb(t);
        return MPI_SUCCESS;
    }
    v->tmp = malloc(v->bytes > 0 ? v->bytes : 1);
    if (v->tmp == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "no memory for %zu bytes of packed data", v->bytes);
    }
    v->p = v->tmp;
    return MPI_SUCCESS;
}

int coll_view_in(mpi_comm_t *c, const char *call, coll_buf_t *v, const void *buf, size_t count,
                 mpi_type_t *t)
{
    int err = coll_view_alloc(c, call, v, (void *)buf, count, t);

    if (err == MPI_SUCCESS && v->tmp != NULL) {
        mpi_type_pack(t, buf, count, v->tmp);
    }
    return err;
}

int coll_view_out(mpi_comm_t *c, const char *call, coll_buf_t *v, void *buf, size_t count,
                  mpi_type_t *t)
{
    return coll_view_alloc(c, call, v, buf, count, t);
}

void coll_view_done(coll_buf_t *v, void *buf, size_t count, mpi_type_t *t)
{
    if (v->tmp != NULL) {
        mpi_type_unpack(t, v->tmp, count, buf);
    }
}

void coll_view_free(coll_buf_t *v)
{
    free(v->tmp);
    v->tmp = NULL;
}

int coll_copy(const void *src, size_t count, mpi_type_t *t, void *dst, size_t dcount,
              mpi_type_t *dtt)
{
    size_t bytes = mpi_type_size(t) * count;
    char *tmp;

    if (bytes == 0 || (src == dst && t == dtt && count == dcount)) {
        return MPI_SUCCESS; /* the same elements (not two types of absolute addresses at MPI_BOTTOM)
                             */
    }
    if (mpi_type_is_contig(t) && mpi_type_is_contig(dtt)) {
        memcpy((char *)dst + mpi_type_true_lb(dtt), (const char *)src + mpi_type_true_lb(t), bytes);
        return MPI_SUCCESS;
    }
    tmp = malloc(bytes);
    if (tmp == NULL) {
        return MPI_ERR_NO_MEM;
    }
    mpi_type_pack(t, src, count, tmp);
    mpi_type_unpack(dtt, tmp, dcount, dst);
    free(tmp);
    return MPI_SUCCESS;
}

void *coll_typed_alloc(MPI_Datatype dt, mpi_type_t *t, size_t count, void **base_p)
{
    MPI_Aint tlb = mpi_type_true_lb(t), text = mpi_type_true_extent(t), ext = mpi_type_extent(t);
    MPI_Aint span = count > 0 ? (MPI_Aint)(count - 1) * ext : 0;
    MPI_Aint lo, hi;

    (void)dt;
    lo = tlb + (span < 0 ? span : 0);
    hi = tlb + text + (span > 0 ? span : 0);
    *base_p = malloc(hi > lo ? (size_t)(hi - lo) : 1);
    return *base_p == NULL ? NULL : (char *)*base_p - lo;
}

int coll_xfer_post(mpi_comm_t *c, const char *call, coll_xfer_t *x, bool recv, const void *buf,
                   size_t count, mpi_type_t *t, int peer, int tag)
{
    coll_buf_t v;
    rcmsg_comm_t rc;
    rcmsg_status_t s;
    int err;

    *x = (coll_xfer_t){
        .req = RCMSG_REQUEST_NULL, .buf = (void *)buf, .count = count, .t = t, .recv = recv};
    rc = mpi_coll_comm(c, call, &err);
    if (rc == NULL) {
        return err;
    }
    err = recv ? coll_view_out(c, call, &v, (void *)buf, count, t)
               : coll_view_in(c, call, &v, buf, count, t);
    if (err != MPI_SUCCESS) {
        return err;
    }
    x->tmp = v.tmp;
    s = recv ? rcmsg_irecv(v.p, v.bytes, peer, tag, rc, &x->req)
             : rcmsg_isend(v.p, v.bytes, peer, tag, rc, &x->req);
    return s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(c, call, s);
}

int coll_xfer_wait(mpi_comm_t *c, const char *call, coll_xfer_t *x, int n)
{
    int err = MPI_SUCCESS;

    for (int i = 0; i < n; i++) {
        rcmsg_status_t s = rcmsg_wait(&x[i].req, NULL);

        if (s != RCMSG_OK && err == MPI_SUCCESS) {
            err = mpi_err_rcmsg(c, call, s);
        }
        if (s == RCMSG_OK && x[i].recv && x[i].tmp != NULL) {
            mpi_type_unpack(x[i].t, x[i].tmp, x[i].count, x[i].buf);
        }
        free(x[i].tmp);
        x[i].tmp = NULL;
    }
    return err;
}

/* ---- reductions ------------------------------------------------------------------------------ */

/* rcmsg's reduce (root >= 0) or allreduce of count elements of t, packed when t is not
 * contiguous: n elements of rdt reduced by rop (mpi_op_rcmsg_any) */
static int reduce_rcmsg(mpi_comm_t *c, const char *call, const void *in, void *out, int count,
                        mpi_type_t *t, rcmsg_op_t rop, rcmsg_datatype_t rdt, size_t n, int root)
{
    bool result = root < 0 || root == c->rank;
    coll_buf_t vi = {0}, vo = {0};
    rcmsg_status_t s;
    int err;

    if (in == MPI_IN_PLACE) { /* the input is in out */
        err = coll_view_in(c, call, &vo, out, (size_t)count, t);
    } else {
        err = coll_view_in(c, call, &vi, in, (size_t)count, t);
        if (err == MPI_SUCCESS && result) {
            err = coll_view_out(c, call, &vo, out, (size_t)count, t);
        }
    }
    if (err == MPI_SUCCESS) {
        const void *sp = in == MPI_IN_PLACE ? RCMSG_IN_PLACE : vi.p;

        s = root < 0 ? rcmsg_allreduce(sp, vo.p, n, rdt, rop, c->rc)
                     : rcmsg_reduce(sp, vo.p, n, rdt, rop, root, c->rc);
        err = s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(c, call, s);
    }
    if (err == MPI_SUCCESS && result) {
        coll_view_done(&vo, out, (size_t)count, t);
    }
    coll_view_free(&vi);
    coll_view_free(&vo);
    return err;
}

int coll_reduce(mpi_comm_t *c, const char *call, int tag, const void *in, void *out, int count,
                MPI_Datatype dt, MPI_Op op, int root)
{
    mpi_type_t *t = mpi_type_get(dt);
    rcmsg_op_t rop;
    rcmsg_datatype_t rdt;
    size_t n;
    int err;

    (void)tag;
    if (count == 0 || mpi_type_size(t) == 0) {
        return MPI_SUCCESS;
    }
    err = mpi_op_rcmsg_any(op, dt, (size_t)count, &rop, &rdt, &n);
    if (err != MPI_SUCCESS) {
        return mpi_err(c, call, err, "no rcmsg operation or datatype for the reduction");
    }
    return reduce_rcmsg(c, call, in, out, count, t, rop, rdt, n, root);
}
