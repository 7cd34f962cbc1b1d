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

/* rcmsg's reduce or allreduce of packed basic elements */
static int reduce_rcmsg(mpi_comm_t *c, const char *call, const void *in, void *out, int count,
                        mpi_type_t *t, rcmsg_op_t rop, rcmsg_datatype_t rdt, int root)
{
    bool result = root < 0 || root == c->rank;
    size_t n = mpi_type_size(t) * (size_t)count / rcmsg_datatype_size(rdt);
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

/* The MPI layer's reduction: typed accumulators, packed messages on the hidden comm. */
typedef struct {
    MPI_Datatype dt;
    mpi_type_t *t;
    MPI_Op op;
    int count;
    size_t bytes;
    void *acc, *tmp;           /* typed */
    void *acc_base, *tmp_base; /* what to free */
    char *pk;                  /* packed */
} reduce_t;

static void reduce_free(reduce_t *r)
{
    free(r->acc_base);
    free(r->tmp_base);
    free(r->pk);
}

static int reduce_setup(mpi_comm_t *c, const char *call, reduce_t *r, const void *in)
{
    r->bytes = mpi_type_size(r->t) * (size_t)r->count;
    r->acc = coll_typed_alloc(r->dt, r->t, (size_t)r->count, &r->acc_base);
    r->tmp = coll_typed_alloc(r->dt, r->t, (size_t)r->count, &r->tmp_base);
    r->pk = malloc(r->bytes > 0 ? r->bytes : 1);
    if (r->acc == NULL || r->tmp == NULL || r->pk == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "no memory for a reduction of %zu bytes", r->bytes);
    }
    mpi_type_pack(r->t, in, (size_t)r->count, r->pk);
    mpi_type_unpack(r->t, r->pk, (size_t)r->count, r->acc);
    return MPI_SUCCESS;
}

/* Binomial tree to rank 0 in rank order: rank r holds the reduction of ranks [r, r + mask)
 * and folds in [r + mask, r + 2 mask) as acc op incoming, so non-commutative operations
 * combine as MPI requires (a0 op a1 op ... op an-1). At rank 0, acc ends as the result.
 *
 *   mask 1:  0<-1  2<-3  4<-5  6<-7
 *   mask 2:  0<-2        4<-6
 *   mask 4:  0<-4
 */
static int reduce_tree(mpi_comm_t *c, const char *call, int tag, reduce_t *r)
{
    rcmsg_comm_t rc;
    rcmsg_status_t s = RCMSG_OK;
    int err;

    rc = mpi_coll_comm(c, call, &err);
    if (rc == NULL) {
        return err;
    }
    for (int mask = 1; mask < c->size && s == RCMSG_OK; mask <<= 1) {
        if (c->rank & mask) {
            mpi_type_pack(r->t, r->acc, (size_t)r->count, r->pk);
            s = rcmsg_send(r->pk, r->bytes, c->rank - mask, tag, rc);
            break;
        }
        if (c->rank + mask < c->size) {
            void *swap;

            s = rcmsg_recv(r->pk, r->bytes, c->rank + mask, tag, rc, NULL);
            if (s != RCMSG_OK) {
                break;
            }
            mpi_type_unpack(r->t, r->pk, (size_t)r->count, r->tmp);
            err = mpi_op_apply(r->op, r->acc, r->tmp, r->count, r->dt);
            if (err != MPI_SUCCESS) {
                return mpi_err(c, call, err, "the reduction failed");
            }
            swap = r->acc, r->acc = r->tmp, r->tmp = swap;
        }
    }
    return s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(c, call, s);
}

static int reduce_layer(mpi_comm_t *c, const char *call, int tag, const void *in, void *out,
                        int count, MPI_Datatype dt, MPI_Op op, int root)
{
    reduce_t r = {.dt = dt, .t = mpi_type_get(dt), .op = op, .count = count};
    rcmsg_comm_t rc = NULL;
    rcmsg_status_t s = RCMSG_OK;
    int err = reduce_setup(c, call, &r, in != MPI_IN_PLACE ? in : out);

    if (err == MPI_SUCCESS) {
        err = reduce_tree(c, call, tag, &r);
    }
    if (err == MPI_SUCCESS && c->rank == 0) {
        mpi_type_pack(r.t, r.acc, (size_t)count, r.pk);
    }
    if (err == MPI_SUCCESS && root < 0) { /* everyone gets it */
        s = rcmsg_bcast(r.pk, r.bytes, RCMSG_UINT8, 0, c->rc);
    } else if (err == MPI_SUCCESS && root != 0 && (c->rank == 0 || c->rank == root)) {
        rc = mpi_coll_comm(c, call, &err);
        if (rc != NULL) {
            s = c->rank == 0 ? rcmsg_send(r.pk, r.bytes, root, tag, rc)
                             : rcmsg_recv(r.pk, r.bytes, 0, tag, rc, NULL);
        }
    }
    if (err == MPI_SUCCESS && s != RCMSG_OK) {
        err = mpi_err_rcmsg(c, call, s);
    }
    if (err == MPI_SUCCESS && (root < 0 || root == c->rank)) {
        mpi_type_unpack(r.t, r.pk, (size_t)count, out);
    }
    reduce_free(&r);
    return err;
}

int coll_reduce(mpi_comm_t *c, const char *call, int tag, const void *in, void *out, int count,
                MPI_Datatype dt, MPI_Op op, int root)
{
    mpi_type_t *t = mpi_type_get(dt);
    rcmsg_op_t rop;
    rcmsg_datatype_t rdt;

    if (count == 0 || mpi_type_size(t) == 0) {
        return MPI_SUCCESS;
    }
    if (mpi_op_rcmsg(op, dt, &rop, &rdt)) {
        return reduce_rcmsg(c, call, in, out, count, t, rop, rdt, root);
    }
    return reduce_layer(c, call, tag, in, out, count, dt, op, root);
}
