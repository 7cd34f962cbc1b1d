/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blocking collectives on intracommunicators. Contiguous data of a type and operation rcmsg
 * knows goes to rcmsg's own collectives (zero copy, its algorithms); noncontiguous data is
 * packed first. What rcmsg cannot do (user operations, MINLOC/MAXLOC, long double, complex,
 * the v/w variants, scans) runs here over point-to-point on the communicator's hidden
 * duplicate (mpi_coll_comm), one tag per collective (mpi_coll_tag).
 */
#include "mpi/mpi_coll.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- the hidden communicator ---------------------------------------------------------------- */
rcmsg_comm_t mpi_coll_comm(mpi_comm_t *c, const char *call, int *err_p)
{
    rcmsg_status_t s;

    *err_p = MPI_SUCCESS;
    if (c->coll == NULL) {
        s = rcmsg_comm_dup(c->rc, &c->coll);
        if (s != RCMSG_OK) {
            c->coll = NULL;
            *err_p = mpi_err_rcmsg(c, call, s);
            return NULL;
        }
    }
    return c->coll;
}

int mpi_coll_tag(mpi_comm_t *c)
{
    int tag = c->coll_seq;

    c->coll_seq = c->coll_seq == INT_MAX ? 0 : c->coll_seq + 1;
    return tag;
}

/* ---- shared helpers (mpi_coll.h) ------------------------------------------------------------ */
static int coll_check_root(mpi_comm_t *c, const char *call, int root)
{
    if (root >= 0 && root < c->size) {
        return MPI_SUCCESS;
    }
    return mpi_err(c, call, MPI_ERR_ROOT, "invalid root %d (communicator of %d rank(s))", root,
                   c->size);
}

int coll_check_counts(mpi_comm_t *c, const char *call, const int *counts, const int *displs,
                      const char *what)
{
    int n = mpi_comm_peers(c);

    if (counts == NULL || displs == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL %s counts or displacements", what);
    }
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0) {
            return mpi_err(c, call, MPI_ERR_COUNT, "negative %s count %d for %srank %d", what,
                           counts[i], c->inter ? "remote " : "", i);
        }
    }
    return MPI_SUCCESS;
}

/* buf may be MPI_IN_PLACE only when in_place_ok (then nothing else is checked) */
static int coll_check_side(mpi_comm_t *c, const char *call, const coll_side_t *s, const char *what,
                           bool in_place_ok, mpi_type_t **t_p)
{
    int err;

    if (s->v && (err = coll_check_counts(c, call, s->counts, s->displs, what)) != MPI_SUCCESS) {
        return err;
    }
    if (s->buf == MPI_IN_PLACE) {
        *t_p = NULL;
        return in_place_ok ? MPI_SUCCESS
                           : mpi_err(c, call, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed here");
    }
    return mpi_check_buf(c, call, s->buf, s->v ? 0 : s->count, s->dt, t_p);
}

/* where a shape uses a buffer, or lets it be MPI_IN_PLACE: nowhere, at the root, everywhere */
enum { COLL_AT_NONE, COLL_AT_ROOT, COLL_AT_ALL };
static const struct {
    unsigned char send, send_in_place, recv, recv_in_place;
} coll_shapes[] = {
    [COLL_ALL] = {COLL_AT_ALL, COLL_AT_ALL, COLL_AT_ALL, COLL_AT_NONE},
    [COLL_TO_ROOT] = {COLL_AT_ALL, COLL_AT_ROOT, COLL_AT_ROOT, COLL_AT_NONE},
    [COLL_FROM_ROOT] = {COLL_AT_ROOT, COLL_AT_NONE, COLL_AT_ALL, COLL_AT_ROOT},
    [COLL_BCAST] = {COLL_AT_NONE, COLL_AT_NONE, COLL_AT_ALL, COLL_AT_NONE},
};

static bool coll_at(int at, bool is_root)
{
    return at == COLL_AT_ALL || (at == COLL_AT_ROOT && is_root);
}

int coll_check(mpi_comm_t *c, const char *call, coll_args_t *a)
{
    bool rooted = a->shape != COLL_ALL, is_root = rooted && c->rank == a->root;
    int send = coll_shapes[a->shape].send, send_ip = coll_shapes[a->shape].send_in_place;
    int recv = coll_shapes[a->shape].recv, recv_ip = coll_shapes[a->shape].recv_in_place;
    int err = MPI_SUCCESS;

    a->st = a->rt = NULL;
    if ((rooted && (err = coll_check_root(c, call, a->root)) != MPI_SUCCESS) ||
        (a->reduce && (err = mpi_op_check(c, call, a->op, a->recv.dt)) != MPI_SUCCESS)) {
        return err;
    }
    if (coll_at(send, is_root) &&
        (err = coll_check_side(c, call, &a->send, "send", coll_at(send_ip, is_root), &a->st)) !=
            MPI_SUCCESS) {
        return err;
    }
    if (coll_at(recv, is_root)) {
        err = coll_check_side(c, call, &a->recv, "receive", coll_at(recv_ip, is_root), &a->rt);
    }
    return err;
}

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
    MPI_Aint tlb = 0, text = 0, ext = mpi_type_extent(t);
    MPI_Aint span = count > 0 ? (MPI_Aint)(count - 1) * ext : 0;
    MPI_Aint lo, hi;

    MPI_Type_get_true_extent(dt, &tlb, &text);
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

/* ---- the MPI calls: data that only moves ------------------------------------------------------
 */
static int coll_status(mpi_comm_t *c, const char *call, rcmsg_status_t s)
{
    return s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(c, call, s);
}

int MPI_Barrier(MPI_Comm comm)
{
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err;

    if (ic != NULL) {
        return mpi_inter_barrier(ic);
    }
    if ((c = coll_enter(comm, "MPI_Barrier", NULL, NULL, &err)) == NULL) {
        return err;
    }
    return coll_status(c, "MPI_Barrier", rcmsg_barrier(c->rc));
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Bcast";
    coll_args_t a = {.shape = COLL_BCAST, .root = root, .recv = {buffer, count, datatype}};
    coll_buf_t v;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err;

    if (ic != NULL) {
        return mpi_inter_bcast(ic, buffer, count, datatype, root);
    }
    if ((c = coll_enter(comm, call, &a, NULL, &err)) == NULL) {
        return err;
    }
    if (mpi_type_size(a.rt) * (size_t)count == 0) {
        return MPI_SUCCESS;
    }
    err = c->rank == root ? coll_view_in(c, call, &v, buffer, (size_t)count, a.rt)
                          : coll_view_out(c, call, &v, buffer, (size_t)count, a.rt);
    if (err != MPI_SUCCESS) {
        return err;
    }
    err = coll_status(c, call, rcmsg_bcast(v.p, v.bytes, RCMSG_UINT8, root, c->rc));
    if (err == MPI_SUCCESS && c->rank != root) {
        coll_view_done(&v, buffer, (size_t)count, a.rt);
    }
    coll_view_free(&v);
    return err;
}

/* The receive side of a gather or allgather into size blocks of rcount elements of rt; in
 * place, this rank's block is already there (packed into the view when it is a copy). */
static int gather_view(mpi_comm_t *c, const char *call, coll_buf_t *v, void *rbuf, int rcount,
                       mpi_type_t *rt, bool in_place)
{
    size_t block = mpi_type_size(rt) * (size_t)rcount;
    int err = coll_view_out(c, call, v, rbuf, (size_t)rcount * (size_t)c->size, rt);

    if (err == MPI_SUCCESS && in_place && v->tmp != NULL) {
        mpi_type_pack(rt, (char *)rbuf + (MPI_Aint)c->rank * rcount * mpi_type_extent(rt),
                      (size_t)rcount, v->tmp + (size_t)c->rank * block);
    }
    return err;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Gather";
    coll_args_t a = {.shape = COLL_TO_ROOT,
                     .root = root,
                     .send = {sendbuf, sendcount, sendtype},
                     .recv = {recvbuf, recvcount, recvtype}};
    coll_buf_t vi = {0}, vo = {0};
    bool is_root, in_place;
    size_t block;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err = MPI_SUCCESS;

    if (ic != NULL) {
        return mpi_inter_gather(ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                root);
    }
    if ((c = coll_enter(comm, call, &a, NULL, &err)) == NULL) {
        return err;
    }
    is_root = c->rank == root;
    in_place = is_root && sendbuf == MPI_IN_PLACE;
    block =
        is_root ? mpi_type_size(a.rt) * (size_t)recvcount : mpi_type_size(a.st) * (size_t)sendcount;
    if (block == 0) {
        return MPI_SUCCESS;
    }
    if (!in_place) {
        err = coll_view_in(c, call, &vi, sendbuf, (size_t)sendcount, a.st);
    }
    if (err == MPI_SUCCESS && is_root) {
        err = gather_view(c, call, &vo, recvbuf, recvcount, a.rt, in_place);
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(
            c, call,
            rcmsg_gather(in_place ? RCMSG_IN_PLACE : vi.p, vo.p, block, RCMSG_UINT8, root, c->rc));
    }
    if (err == MPI_SUCCESS && is_root) {
        coll_view_done(&vo, recvbuf, (size_t)recvcount * (size_t)c->size, a.rt);
    }
    coll_view_free(&vi);
    coll_view_free(&vo);
    return err;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Scatter";
    coll_args_t a = {.shape = COLL_FROM_ROOT,
                     .root = root,
                     .send = {sendbuf, sendcount, sendtype},
                     .recv = {recvbuf, recvcount, recvtype}};
    coll_buf_t vi = {0}, vo = {0};
    bool is_root, in_place;
    size_t block;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err = MPI_SUCCESS;

    if (ic != NULL) {
        return mpi_inter_scatter(ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 root);
    }
    if ((c = coll_enter(comm, call, &a, NULL, &err)) == NULL) {
        return err;
    }
    is_root = c->rank == root;
    in_place = is_root && recvbuf == MPI_IN_PLACE;
    block =
        is_root ? mpi_type_size(a.st) * (size_t)sendcount : mpi_type_size(a.rt) * (size_t)recvcount;
    if (block == 0) {
        return MPI_SUCCESS;
    }
    if (is_root) {
        err = coll_view_in(c, call, &vi, sendbuf, (size_t)sendcount * (size_t)c->size, a.st);
    }
    if (err == MPI_SUCCESS && !in_place) {
        err = coll_view_out(c, call, &vo, recvbuf, (size_t)recvcount, a.rt);
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(
            c, call,
            rcmsg_scatter(vi.p, in_place ? RCMSG_IN_PLACE : vo.p, block, RCMSG_UINT8, root, c->rc));
    }
    if (err == MPI_SUCCESS && !in_place) {
        coll_view_done(&vo, recvbuf, (size_t)recvcount, a.rt);
    }
    coll_view_free(&vi);
    coll_view_free(&vo);
    return err;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char call[] = "MPI_Allgather";
    coll_args_t a = {.shape = COLL_ALL,
                     .send = {sendbuf, sendcount, sendtype},
                     .recv = {recvbuf, recvcount, recvtype}};
    coll_buf_t vi = {0}, vo = {0};
    bool in_place = sendbuf == MPI_IN_PLACE;
    size_t block;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err = MPI_SUCCESS;

    if (ic != NULL) {
        return mpi_inter_allgather(ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }
    if ((c = coll_enter(comm, call, &a, NULL, &err)) == NULL) {
        return err;
    }
    block = mpi_type_size(a.rt) * (size_t)recvcount;
    if (block == 0) {
        return MPI_SUCCESS;
    }
    if (!in_place) {
        err = coll_view_in(c, call, &vi, sendbuf, (size_t)sendcount, a.st);
    }
    if (err == MPI_SUCCESS) {
        err = gather_view(c, call, &vo, recvbuf, recvcount, a.rt, in_place);
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(
            c, call,
            rcmsg_allgather(in_place ? RCMSG_IN_PLACE : vi.p, vo.p, block, RCMSG_UINT8, c->rc));
    }
    if (err == MPI_SUCCESS) {
        coll_view_done(&vo, recvbuf, (size_t)recvcount * (size_t)c->size, a.rt);
    }
    coll_view_free(&vi);
    coll_view_free(&vo);
    return err;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char call[] = "MPI_Alltoall";
    coll_args_t a = {.shape = COLL_ALL,
                     .send = {sendbuf, sendcount, sendtype},
                     .recv = {recvbuf, recvcount, recvtype}};
    coll_buf_t vi = {0}, vo = {0};
    bool in_place = sendbuf == MPI_IN_PLACE;
    size_t block, n;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err;

    if (ic != NULL) {
        return mpi_inter_alltoall(ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }
    if ((c = coll_enter(comm, call, &a, NULL, &err)) == NULL) {
        return err;
    }
    block = mpi_type_size(a.rt) * (size_t)recvcount;
    n = (size_t)recvcount * (size_t)c->size;
    if (block == 0) {
        return MPI_SUCCESS;
    }
    if (in_place) {
        err = coll_view_in(c, call, &vo, recvbuf, n, a.rt); /* the blocks to send are there */
    } else {
        err = coll_view_in(c, call, &vi, sendbuf, (size_t)sendcount * (size_t)c->size, a.st);
        if (err == MPI_SUCCESS) {
            err = coll_view_out(c, call, &vo, recvbuf, n, a.rt);
        }
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(
            c, call,
            rcmsg_alltoall(in_place ? RCMSG_IN_PLACE : vi.p, vo.p, block, RCMSG_UINT8, c->rc));
    }
    if (err == MPI_SUCCESS) {
        coll_view_done(&vo, recvbuf, n, a.rt);
    }
    coll_view_free(&vi);
    coll_view_free(&vo);
    return err;
}

/* ---- the MPI calls: reductions ------------------------------------------------------------- */

/* Reduce (to root) and Allreduce (all) on an intracommunicator */
static int reduce_call(const char *call, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, int root, bool all, MPI_Comm comm)
{
    coll_args_t a = {.shape = all ? COLL_ALL : COLL_TO_ROOT,
                     .root = root,
                     .reduce = true,
                     .op = op,
                     .send = {sendbuf, count, datatype},
                     .recv = {recvbuf, count, datatype}};
    int err, tag;
    mpi_comm_t *c = coll_enter(comm, call, &a, &tag, &err);

    if (c == NULL) {
        return err;
    }
    return coll_reduce(c, call, tag, sendbuf, recvbuf, count, datatype, op, all ? -1 : root);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    mpi_comm_t *ic = mpi_inter_of(comm);

    if (ic != NULL) {
        return mpi_inter_reduce(ic, sendbuf, recvbuf, count, datatype, op, root);
    }
    return reduce_call("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, false, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    mpi_comm_t *ic = mpi_inter_of(comm);

    if (ic != NULL) {
        return mpi_inter_allreduce(ic, sendbuf, recvbuf, count, datatype, op);
    }
    return reduce_call("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, -1, true, comm);
}
