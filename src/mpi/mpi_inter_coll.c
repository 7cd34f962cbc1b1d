/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives over an intercommunicator, blocking and nonblocking: bindings over rcmsg's on
 * c->coll_rc, an rcmsg intercommunicator of the same two groups (mpi_comm.c makes it with
 * rcmsg_intercomm_create), whose algorithms are schedules of src/collectives (coll_inter.c).
 * Data travels as bytes (RCMSG_UINT8): the user's buffer itself when the type is contiguous,
 * else packed (coll_view_*, coll_vbuf_*); reductions take rcmsg's operation and datatype of
 * mpi_op_rcmsg_any. MPI_ROOT and MPI_PROC_NULL become RCMSG_ROOT and RCMSG_PROC_NULL; every
 * rank calls rcmsg's collective, also those that move nothing (each call takes a tag).
 * Allgather and alltoall whose blocks differ in size between the groups (MPI allows it) go
 * to rcmsg_allgatherv and rcmsg_alltoallv (both groups see the same difference, so both make
 * the same call). MPI_IN_PLACE is refused (MPI defines none over an intercommunicator).
 */
#include "mpi/mpi_engines.h"

#include <limits.h>
#include <stdlib.h>

static int rroot(int root)
{
    return root == MPI_ROOT ? RCMSG_ROOT : root == MPI_PROC_NULL ? RCMSG_PROC_NULL : root;
}

/* A call in the making: blocking (request NULL: its own views, the result unpacked at the
 * end) or nonblocking (the request's views, the result unpacked when it completes). */
typedef struct {
    mpi_comm_t *c;
    const char *call;
    MPI_Request *request;
    mpi_req_t *r;
    coll_buf_t own[2], *vi, *vo;
    void *ubuf; /* the result to unpack: ucount elements of ut at ubuf (MPI_BOTTOM: NULL) */
    size_t ucount;
    mpi_type_t *ut; /* NULL: no result here */
} icall_t;

/* the rcmsg call: blocking, or nonblocking into the request */
#define ICALL(x, fn, ...)                                                                          \
    ((x)->r != NULL ? rcmsg_i##fn(__VA_ARGS__, &(x)->r->rc) : rcmsg_##fn(__VA_ARGS__))

static int ic_begin(icall_t *x, mpi_comm_t *c, const char *call, MPI_Request *request)
{
    int err = MPI_SUCCESS;

    *x = (icall_t){.c = c, .call = call, .request = request};
    if (request == NULL) {
        x->vi = &x->own[0];
        x->vo = &x->own[1];
        return MPI_SUCCESS;
    }
    x->r = mpi_coll_req_new(c, call, &x->vi, &x->vo, &err);
    return err;
}

/* the receive view's data goes to count elements of t at buf once the call is over */
static void ic_result(icall_t *x, void *buf, size_t count, mpi_type_t *t)
{
    x->ubuf = buf;
    x->ucount = count;
    x->ut = t;
    if (x->r != NULL) {
        mpi_coll_req_unpack(x->r, buf, count, t);
    }
}

/* The end: err, an error of the preparation (raised), else s, the rcmsg call's. */
static int ic_end(icall_t *x, int err, rcmsg_status_t s)
{
    if (x->r != NULL) {
        return mpi_coll_req_start(x->r, x->call, err, s, x->request);
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(x->c, x->call, s);
    }
    if (err == MPI_SUCCESS && x->ut != NULL) {
        coll_view_done(x->vo, x->ubuf, x->ucount, x->ut);
    }
    coll_view_free(x->vi);
    coll_view_free(x->vo);
    return err;
}

/* ---- barrier, bcast, gather, scatter ----------------------------------------------------------
 */
static int inter_barrier(mpi_comm_t *c, const char *call, MPI_Request *request)
{
    icall_t x;
    int err = ic_begin(&x, c, call, request);

    return err != MPI_SUCCESS ? err : ic_end(&x, MPI_SUCCESS, ICALL(&x, barrier, c->coll_rc));
}

int mpi_inter_barrier(mpi_comm_t *c)
{
    return inter_barrier(c, "MPI_Barrier", NULL);
}

int mpi_nbc_inter_barrier(mpi_comm_t *c, MPI_Request *request)
{
    return inter_barrier(c, "MPI_Ibarrier", request);
}

static int inter_bcast(mpi_comm_t *c, const char *call, void *buf, int count, MPI_Datatype dt,
                       int root, MPI_Request *request)
{
    mpi_type_t *t = NULL;
    coll_buf_t *v;
    icall_t x;
    int err = mpi_inter_check_root(c, call, root);

    if (err == MPI_SUCCESS && root == MPI_PROC_NULL && request == NULL) { /* no part in it */
        return coll_status(c, call, rcmsg_bcast(NULL, 0, RCMSG_UINT8, RCMSG_PROC_NULL, c->coll_rc));
    }
    if (err == MPI_SUCCESS && root != MPI_PROC_NULL) {
        err = mpi_inter_check_buf(c, call, buf, count, dt, &t);
    }
    if (err == MPI_SUCCESS && request == NULL && mpi_type_is_contig(t)) { /* the buffer itself */
        return coll_status(c, call,
                           rcmsg_bcast((char *)buf + mpi_type_true_lb(t),
                                       mpi_type_size(t) * (size_t)count, RCMSG_UINT8, rroot(root),
                                       c->coll_rc));
    }
    if (err != MPI_SUCCESS || request == MPI_NBC_CHECK_ONLY ||
        (err = ic_begin(&x, c, call, request)) != MPI_SUCCESS) {
        return err;
    }
    v = root == MPI_ROOT ? x.vi : x.vo; /* (MPI_PROC_NULL: an empty one) */
    if (root == MPI_ROOT) {
        err = coll_view_in(c, call, v, buf, (size_t)count, t);
    } else if (root != MPI_PROC_NULL) {
        err = coll_view_out(c, call, v, buf, (size_t)count, t);
        ic_result(&x, buf, (size_t)count, t);
    }
    return ic_end(&x, err,
                  err == MPI_SUCCESS
                      ? ICALL(&x, bcast, v->p, v->bytes, RCMSG_UINT8, rroot(root), c->coll_rc)
                      : RCMSG_OK);
}

int mpi_inter_bcast(mpi_comm_t *c, void *buf, int count, MPI_Datatype dt, int root)
{
    return inter_bcast(c, "MPI_Bcast", buf, count, dt, root, NULL);
}

int mpi_nbc_inter_bcast(mpi_comm_t *c, const char *call, void *buf, int count, MPI_Datatype dt,
                        int root, MPI_Request *request)
{
    return inter_bcast(c, call, buf, count, dt, root, request);
}

/* gather (the root receives remote_size blocks) or scatter (it sends them) */
static int inter_rooted(mpi_comm_t *c, const char *call, bool gather, const void *sendbuf,
                        int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Request *request)
{
    unsigned sides = mpi_coll_sides_of(c, root);
    bool is_root = sides & COLL_SIDE_ROOT, leaf = sides & COLL_SIDE_LEAF;
    mpi_type_t *st = NULL, *rt = NULL;
    size_t block = 0, n = (size_t)c->remote_size;
    icall_t x;
    int err = mpi_inter_check_root(c, call, root);

    if (err == MPI_SUCCESS && (gather ? leaf : is_root)) {
        err = mpi_inter_check_buf(c, call, sendbuf, sendcount, sendtype, &st);
    }
    if (err == MPI_SUCCESS && (gather ? is_root : leaf)) {
        err = mpi_inter_check_buf(c, call, recvbuf, recvcount, recvtype, &rt);
    }
    if (err != MPI_SUCCESS || request == MPI_NBC_CHECK_ONLY ||
        (err = ic_begin(&x, c, call, request)) != MPI_SUCCESS) {
        return err;
    }
    if (st != NULL) { /* the data to send: n blocks at a scatter's root */
        block = mpi_type_size(st) * (size_t)sendcount;
        err = coll_view_in(c, call, x.vi, sendbuf, (size_t)sendcount * (gather ? 1 : n), st);
    }
    if (err == MPI_SUCCESS && rt != NULL) {
        size_t cnt = (size_t)recvcount * (gather ? n : 1);

        block = mpi_type_size(rt) * (size_t)recvcount;
        err = coll_view_out(c, call, x.vo, recvbuf, cnt, rt);
        ic_result(&x, recvbuf, cnt, rt);
    }
    if (err != MPI_SUCCESS) {
        return ic_end(&x, err, RCMSG_OK);
    }
    return ic_end(
        &x, MPI_SUCCESS,
        gather ? ICALL(&x, gather, x.vi->p, x.vo->p, block, RCMSG_UINT8, rroot(root), c->coll_rc)
               : ICALL(&x, scatter, x.vi->p, x.vo->p, block, RCMSG_UINT8, rroot(root), c->coll_rc));
}

int mpi_inter_gather(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root)
{
    return inter_rooted(c, "MPI_Gather", true, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, root, NULL);
}

int mpi_inter_scatter(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root)
{
    return inter_rooted(c, "MPI_Scatter", false, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, root, NULL);
}

int mpi_nbc_inter_rooted(mpi_comm_t *c, const char *call, bool gather, const void *sendbuf,
                         int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Request *request)
{
    return inter_rooted(c, call, gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                        root, request);
}

/* ---- allgather, alltoall ------------------------------------------------------------------------
 */

/* the same block bytes to or from each remote rank (the v-variant's arrays, in bytes) */
static size_t *same_counts(size_t n, size_t block, bool displs)
{
    size_t *v = malloc(sizeof(*v) * (n > 0 ? n : 1));

    for (size_t i = 0; v != NULL && i < n; i++) {
        v[i] = displs ? i * block : block;
    }
    return v;
}

/* sblock, rblock: the bytes of a block sent and received; they differ: the v-variant */
static rcmsg_status_t all_rcmsg(icall_t *x, bool alltoall, size_t sblock, size_t rblock)
{
    size_t n = (size_t)x->c->remote_size;
    size_t *sc, *sd, *rc, *rd;
    rcmsg_status_t s = RCMSG_ERR_NO_MEMORY;

    if (sblock == rblock) {
        return alltoall
                   ? ICALL(x, alltoall, x->vi->p, x->vo->p, sblock, RCMSG_UINT8, x->c->coll_rc)
                   : ICALL(x, allgather, x->vi->p, x->vo->p, sblock, RCMSG_UINT8, x->c->coll_rc);
    }
    sc = same_counts(n, sblock, false);
    sd = same_counts(n, sblock, true);
    rc = same_counts(n, rblock, false);
    rd = same_counts(n, rblock, true);
    if (sc != NULL && sd != NULL && rc != NULL && rd != NULL) { /* (the calls copy them) */
        s = alltoall ? ICALL(x, alltoallv, x->vi->p, sc, sd, x->vo->p, rc, rd, RCMSG_UINT8,
                             x->c->coll_rc)
                     : ICALL(x, allgatherv, x->vi->p, sblock, x->vo->p, rc, rd, RCMSG_UINT8,
                             x->c->coll_rc);
    }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    return s;
}

static int inter_all(mpi_comm_t *c, const char *call, bool alltoall, const void *sendbuf,
                     int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, MPI_Request *request)
{
    size_t n = (size_t)c->remote_size;
    mpi_type_t *st = NULL, *rt = NULL;
    icall_t x;
    int err = mpi_inter_check_buf(c, call, sendbuf, sendcount, sendtype, &st);

    if (err == MPI_SUCCESS) {
        err = mpi_inter_check_buf(c, call, recvbuf, recvcount, recvtype, &rt);
    }
    if (err != MPI_SUCCESS || request == MPI_NBC_CHECK_ONLY ||
        (err = ic_begin(&x, c, call, request)) != MPI_SUCCESS) {
        return err;
    }
    err = coll_view_in(c, call, x.vi, sendbuf, (size_t)sendcount * (alltoall ? n : 1), st);
    if (err == MPI_SUCCESS) {
        err = coll_view_out(c, call, x.vo, recvbuf, (size_t)recvcount * n, rt);
        ic_result(&x, recvbuf, (size_t)recvcount * n, rt);
    }
    return ic_end(&x, err,
                  err == MPI_SUCCESS
                      ? all_rcmsg(&x, alltoall, mpi_type_size(st) * (size_t)sendcount,
                                  mpi_type_size(rt) * (size_t)recvcount)
                      : RCMSG_OK);
}

int mpi_inter_allgather(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype)
{
    return inter_all(c, "MPI_Allgather", false, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, NULL);
}

int mpi_inter_alltoall(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype)
{
    return inter_all(c, "MPI_Alltoall", true, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, NULL);
}

int mpi_nbc_inter_all(mpi_comm_t *c, const char *call, bool alltoall, const void *sendbuf,
                      int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Request *request)
{
    return inter_all(c, call, alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                     request);
}

/* ---- reductions ------------------------------------------------------------------------------ */

/* reduce (root given), allreduce (root -1 and rcounts NULL) and reduce_scatter(_block)
 * (rcounts: this group's counts, in elements of dt; count: the total) */
static int inter_reduction(mpi_comm_t *c, const char *call, const void *sendbuf, void *recvbuf,
                           int count, MPI_Datatype dt, MPI_Op op, int root, const int *rcounts,
                           int block, MPI_Request *request)
{
    bool reduce = root != -1, result = reduce ? root == MPI_ROOT : true;
    bool input = reduce ? root >= 0 : true, scatter = rcounts != NULL || block >= 0;
    size_t mine = scatter ? (size_t)(rcounts != NULL ? rcounts[c->rank] : block) : (size_t)count;
    mpi_type_t *t = NULL;
    rcmsg_op_t rop;
    rcmsg_datatype_t rdt;
    size_t k = 0, *rc = NULL;
    icall_t x;
    rcmsg_status_t s = RCMSG_OK;
    int err = reduce ? mpi_inter_check_root(c, call, root) : MPI_SUCCESS;

    if (err == MPI_SUCCESS && (input || result)) {
        err = mpi_op_check(c, call, op, dt);
    }
    if (err == MPI_SUCCESS && input) {
        err = mpi_inter_check_buf(c, call, sendbuf, count, dt, &t);
    }
    if (err == MPI_SUCCESS && result) {
        err = mpi_inter_check_buf(c, call, recvbuf, (int)mine, dt, &t);
    }
    if (err == MPI_SUCCESS && t != NULL) { /* k rcmsg elements per element of dt */
        err = mpi_op_rcmsg_any(op, dt, 1, &rop, &rdt, &k);
        err = err == MPI_SUCCESS ? MPI_SUCCESS
                                 : mpi_err(c, call, err, "no rcmsg operation or datatype for it");
    }
    if (err != MPI_SUCCESS || request == MPI_NBC_CHECK_ONLY ||
        (err = ic_begin(&x, c, call, request)) != MPI_SUCCESS) {
        return err;
    }
    if (t == NULL) { /* MPI_PROC_NULL: no data, but the call (its tag) all the same */
        rop = RCMSG_SUM;
        rdt = RCMSG_UINT8;
    } else if (x.r != NULL) {
        mpi_coll_req_hold(x.r, op, t);
    }
    if (input) {
        err = coll_view_in(c, call, x.vi, sendbuf, (size_t)count, t);
    }
    if (err == MPI_SUCCESS && result) {
        err = coll_view_out(c, call, x.vo, recvbuf, mine, t);
        ic_result(&x, recvbuf, mine, t);
    }
    if (err == MPI_SUCCESS && rcounts != NULL &&
        (rc = same_counts((size_t)c->size, 0, false)) == NULL) {
        err = mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; rc != NULL && i < c->size; i++) {
        rc[i] = (size_t)rcounts[i] * k;
    }
    if (err == MPI_SUCCESS) {
        s = reduce ? ICALL(&x, reduce, x.vi->p, x.vo->p, (size_t)count * k, rdt, rop, rroot(root),
                           c->coll_rc)
            : rc != NULL ? ICALL(&x, reduce_scatter, x.vi->p, x.vo->p, rc, rdt, rop, c->coll_rc)
            : scatter
                ? ICALL(&x, reduce_scatter_block, x.vi->p, x.vo->p, (size_t)block * k, rdt, rop,
                        c->coll_rc)
                : ICALL(&x, allreduce, x.vi->p, x.vo->p, (size_t)count * k, rdt, rop, c->coll_rc);
    }
    if (x.r != NULL && rc != NULL) { /* rcmsg reads the counts while it runs */
        mpi_coll_req_keep(x.r, rc);
        rc = NULL;
    }
    free(rc);
    return ic_end(&x, err, s);
}

int mpi_inter_reduce(mpi_comm_t *c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                     MPI_Op op, int root)
{
    return inter_reduction(c, "MPI_Reduce", sendbuf, recvbuf, count, dt, op, root, NULL, -1, NULL);
}

int mpi_inter_allreduce(mpi_comm_t *c, const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype dt, MPI_Op op)
{
    return inter_reduction(c, "MPI_Allreduce", sendbuf, recvbuf, count, dt, op, -1, NULL, -1, NULL);
}

int mpi_nbc_inter_reduce(mpi_comm_t *c, const char *call, const void *sendbuf, void *recvbuf,
                         int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Request *request)
{
    return inter_reduction(c, call, sendbuf, recvbuf, count, dt, op, root, NULL, -1, request);
}

/* the total of recvcount per rank of this group, refused past INT_MAX */
static int block_total(mpi_comm_t *c, const char *call, int recvcount, int *total_p)
{
    long long total = (long long)recvcount * c->size;

    if (recvcount < 0 || total > INT_MAX) {
        return mpi_err(c, call, MPI_ERR_COUNT, "recvcount %d for %d ranks", recvcount, c->size);
    }
    *total_p = (int)total;
    return MPI_SUCCESS;
}

int mpi_nbc_inter_allreduce(mpi_comm_t *c, const char *call, bool scatter, const void *sendbuf,
                            void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                            MPI_Request *request)
{
    int total = count, err = scatter ? block_total(c, call, count, &total) : MPI_SUCCESS;

    if (err != MPI_SUCCESS) {
        return err;
    }
    return inter_reduction(c, call, sendbuf, recvbuf, total, dt, op, -1, NULL, scatter ? count : -1,
                           request);
}

int mpi_inter_reduce_scatter_block(mpi_comm_t *c, const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype dt, MPI_Op op)
{
    return mpi_nbc_inter_allreduce(c, "MPI_Reduce_scatter_block", true, sendbuf, recvbuf, recvcount,
                                   dt, op, NULL);
}

static int inter_reduce_scatter(mpi_comm_t *c, const char *call, const void *sendbuf, void *recvbuf,
                                const int *recvcounts, MPI_Datatype dt, MPI_Op op,
                                MPI_Request *request)
{
    long long total = 0;

    if (recvcounts == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL recvcounts");
    }
    for (int i = 0; i < c->size; i++) {
        if (recvcounts[i] < 0) {
            return mpi_err(c, call, MPI_ERR_COUNT, "negative count %d for rank %d", recvcounts[i],
                           i);
        }
        total += recvcounts[i];
    }
    if (total > INT_MAX) {
        return mpi_err(c, call, MPI_ERR_COUNT, "recvcounts sum to more than INT_MAX");
    }
    return inter_reduction(c, call, sendbuf, recvbuf, (int)total, dt, op, -1, recvcounts, -1,
                           request);
}

int mpi_inter_reduce_scatter(mpi_comm_t *c, const void *sendbuf, void *recvbuf,
                             const int *recvcounts, MPI_Datatype dt, MPI_Op op)
{
    return inter_reduce_scatter(c, "MPI_Reduce_scatter", sendbuf, recvbuf, recvcounts, dt, op,
                                NULL);
}

int mpi_nbc_inter_reduce_scatter(mpi_comm_t *c, const char *call, const void *sendbuf,
                                 void *recvbuf, const int *recvcounts, MPI_Datatype dt, MPI_Op op,
                                 MPI_Request *request)
{
    return inter_reduce_scatter(c, call, sendbuf, recvbuf, recvcounts, dt, op, request);
}

/* ---- the v and w variants (blocking, and nonblocking at the end) -------------------------------
 */

static const void *at(const void *buf, MPI_Aint displ, mpi_type_t *t, bool bytes)
{
    return (const char *)buf + (bytes || t == NULL ? displ : displ * mpi_type_extent(t));
}

/* blocks i of a side: counts[i] elements of types[w ? i : 0] at displs[i] (bytes when w),
 * checked; n of them into b */
static int blocks(mpi_comm_t *c, const char *call, coll_blk_t *b, int n, const void *buf,
                  const int *counts, const int *displs, const MPI_Datatype *types, bool w)
{
    int err = MPI_SUCCESS;

    for (int i = 0; i < n && err == MPI_SUCCESS; i++) {
        mpi_type_t *t = NULL;

        err = mpi_inter_check_buf(c, call, buf, counts[i], types[w ? i : 0], &t);
        b[i] = (coll_blk_t){at(buf, displs[i], t, w), (size_t)counts[i], t};
    }
    return err;
}

/* The v and w calls in one: the send side (snb blocks: remote_size, or 1 for a rank's own
 * block, or 0) and the receive side (rnb), as rcmsg's v-variant fn (gatherv, scatterv,
 * allgatherv, alltoallv) takes them. root: the rooted calls' (else -1). */
typedef enum { V_GATHER, V_SCATTER, V_ALLGATHER, V_ALLTOALL } vcall_t;

typedef struct {
    const void *buf;
    const int *counts, *displs;
    const MPI_Datatype *types;
    int n; /* blocks on this rank's side */
} vside_t;

/* rcmsg's v call of kind on the byte views (request NULL: blocking, else the nonblocking
 * form on request's rcmsg request) */
static rcmsg_status_t inter_v_rcmsg(mpi_comm_t *c, vcall_t kind, const coll_vbuf_t *vs,
                                    const coll_vbuf_t *vr, int snb, int rnb, int root,
                                    rcmsg_request_t *rq)
{
    const char *sp = vs->base + (snb == 1 ? vs->displs[0] : 0);
    char *rp = vr->base + (rnb == 1 ? vr->displs[0] : 0);
    size_t sn = snb == 1 ? vs->counts[0] : 0, rn = rnb == 1 ? vr->counts[0] : 0;
    rcmsg_comm_t k = c->coll_rc;

    if (rq == NULL) {
        return kind == V_GATHER    ? rcmsg_gatherv(sp, sn, vr->base, vr->counts, vr->displs,
                                                   RCMSG_UINT8, rroot(root), k)
               : kind == V_SCATTER ? rcmsg_scatterv(vs->base, vs->counts, vs->displs, rp, rn,
                                                    RCMSG_UINT8, rroot(root), k)
               : kind == V_ALLGATHER
                   ? rcmsg_allgatherv(sp, sn, vr->base, vr->counts, vr->displs, RCMSG_UINT8, k)
                   : rcmsg_alltoallv(vs->base, vs->counts, vs->displs, vr->base, vr->counts,
                                     vr->displs, RCMSG_UINT8, k);
    }
    return kind == V_GATHER ? rcmsg_igatherv(sp, sn, vr->base, vr->counts, vr->displs, RCMSG_UINT8,
                                             rroot(root), k, rq)
           : kind == V_SCATTER ? rcmsg_iscatterv(vs->base, vs->counts, vs->displs, rp, rn,
                                                 RCMSG_UINT8, rroot(root), k, rq)
           : kind == V_ALLGATHER
               ? rcmsg_iallgatherv(sp, sn, vr->base, vr->counts, vr->displs, RCMSG_UINT8, k, rq)
               : rcmsg_ialltoallv(vs->base, vs->counts, vs->displs, vr->base, vr->counts,
                                  vr->displs, RCMSG_UINT8, k, rq);
}

/* request NULL: blocking; else a request of mpi_coll_req.c's kind keeps the views and unpacks
 * the receive blocks when it completes */
static int inter_v(mpi_comm_t *c, const char *call, vcall_t kind, const vside_t *sd,
                   const vside_t *rv, bool w, int root, MPI_Request *request)
{
    coll_blk_t *sb = calloc((size_t)(sd->n + 1), sizeof(*sb));
    coll_blk_t *rb = calloc((size_t)(rv->n + 1), sizeof(*rb));
    coll_vbuf_t lvs = {0}, lvr = {0}, *vs = &lvs, *vr = &lvr;
    coll_buf_t *u1, *u2;
    mpi_req_t *r = NULL;
    int err =
        sb == NULL || rb == NULL ? mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory") : MPI_SUCCESS;
    rcmsg_status_t s = RCMSG_OK;

    if (err == MPI_SUCCESS && request != NULL && request != MPI_NBC_CHECK_ONLY &&
        (r = mpi_coll_req_new(c, call, &u1, &u2, &err)) != NULL) {
        mpi_coll_req_vbufs(r, &vs, &vr);
    }
    if (err == MPI_SUCCESS) {
        err = blocks(c, call, sb, sd->n, sd->buf, sd->counts, sd->displs, sd->types, w);
    }
    if (err == MPI_SUCCESS) {
        err = blocks(c, call, rb, rv->n, rv->buf, rv->counts, rv->displs, rv->types, w);
    }
    if (request == MPI_NBC_CHECK_ONLY) { /* the blocks checked: nothing more */
        free(sb);
        free(rb);
        return err;
    }
    if (err == MPI_SUCCESS) {
        err = coll_vbuf_in(c, call, vs, sb, sd->n);
    }
    if (err == MPI_SUCCESS) {
        err = coll_vbuf_out(c, call, vr, rb, rv->n, -1);
    }
    free(sb);
    if (r != NULL) { /* the request unpacks (and frees) the receive blocks */
        mpi_coll_req_vunpack(r, rb, err == MPI_SUCCESS ? rv->n : 0);
        if (err == MPI_SUCCESS) {
            s = inter_v_rcmsg(c, kind, vs, vr, sd->n, rv->n, root, &r->rc);
        }
        return mpi_coll_req_start(r, call, err, s, request);
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(c, call, inter_v_rcmsg(c, kind, vs, vr, sd->n, rv->n, root, NULL));
    }
    if (err == MPI_SUCCESS) {
        coll_vbuf_done(vr, rb, rv->n);
    }
    coll_vbuf_free(vs);
    coll_vbuf_free(vr);
    free(rb);
    return err;
}

/* the one block of a rank's side */
static const int zero = 0;

static int inter_v_rooted(mpi_comm_t *c, const char *call, bool gather, const void *rootbuf,
                          const int *counts, const int *displs, MPI_Datatype rootdt,
                          const void *buf, int count, MPI_Datatype dt, int root,
                          MPI_Request *request)
{
    int err = mpi_inter_check_root(c, call, root);
    vside_t many = {rootbuf, counts, displs, &rootdt, c->remote_size};
    vside_t one = {buf, &count, &zero, &dt, 1}, none = {NULL, NULL, NULL, NULL, 0};

    if (err == MPI_SUCCESS && root == MPI_ROOT) {
        err = coll_check_counts(c, call, counts, displs, gather ? "receive" : "send");
    }
    if (err != MPI_SUCCESS) {
        return err;
    }
    if (root == MPI_ROOT) {
        return inter_v(c, call, gather ? V_GATHER : V_SCATTER, gather ? &none : &many,
                       gather ? &many : &none, false, root, request);
    }
    if (root >= 0) {
        return inter_v(c, call, gather ? V_GATHER : V_SCATTER, gather ? &one : &none,
                       gather ? &none : &one, false, root, request);
    }
    return inter_v(c, call, gather ? V_GATHER : V_SCATTER, &none, &none, false, root, request);
}

int mpi_inter_gatherv(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int *recvcounts, const int *displs,
                      MPI_Datatype recvtype, int root)
{
    return inter_v_rooted(c, "MPI_Gatherv", true, recvbuf, recvcounts, displs, recvtype, sendbuf,
                          sendcount, sendtype, root, NULL);
}

int mpi_inter_scatterv(mpi_comm_t *c, const void *sendbuf, const int *sendcounts, const int *displs,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root)
{
    return inter_v_rooted(c, "MPI_Scatterv", false, sendbuf, sendcounts, displs, sendtype, recvbuf,
                          recvcount, recvtype, root, NULL);
}

static int inter_allgatherv(mpi_comm_t *c, const char *call, const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                            const int *displs, MPI_Datatype recvtype, MPI_Request *request)
{
    vside_t one = {sendbuf, &sendcount, &zero, &sendtype, 1};
    vside_t many = {recvbuf, recvcounts, displs, &recvtype, c->remote_size};
    int err = coll_check_counts(c, call, recvcounts, displs, "receive");

    return err != MPI_SUCCESS ? err
                              : inter_v(c, call, V_ALLGATHER, &one, &many, false, -1, request);
}

int mpi_inter_allgatherv(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const int *recvcounts, const int *displs,
                         MPI_Datatype recvtype)
{
    return inter_allgatherv(c, "MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                            displs, recvtype, NULL);
}

static int inter_alltoall_vw(mpi_comm_t *c, const char *call, const void *sendbuf, const int *sc,
                             const int *sd, const MPI_Datatype *st, void *recvbuf, const int *rc,
                             const int *rd, const MPI_Datatype *rt, bool w, MPI_Request *request)
{
    vside_t s = {sendbuf, sc, sd, st, c->remote_size}, r = {recvbuf, rc, rd, rt, c->remote_size};
    int err = coll_check_counts(c, call, sc, sd, "send");

    if (err == MPI_SUCCESS) {
        err = coll_check_counts(c, call, rc, rd, "receive");
    }
    if (err == MPI_SUCCESS && (st == NULL || rt == NULL)) {
        err = mpi_err(c, call, MPI_ERR_ARG, "NULL datatypes");
    }
    return err != MPI_SUCCESS ? err : inter_v(c, call, V_ALLTOALL, &s, &r, w, -1, request);
}

int mpi_inter_alltoallv(mpi_comm_t *c, const void *sendbuf, const int *sc, const int *sd,
                        MPI_Datatype st, void *recvbuf, const int *rc, const int *rd,
                        MPI_Datatype rt)
{
    return inter_alltoall_vw(c, "MPI_Alltoallv", sendbuf, sc, sd, &st, recvbuf, rc, rd, &rt, false,
                             NULL);
}

int mpi_inter_alltoallw(mpi_comm_t *c, const void *sendbuf, const int *sc, const int *sd,
                        const MPI_Datatype *st, void *recvbuf, const int *rc, const int *rd,
                        const MPI_Datatype *rt)
{
    return inter_alltoall_vw(c, "MPI_Alltoallw", sendbuf, sc, sd, st, recvbuf, rc, rd, rt, true,
                             NULL);
}

/* ---- the nonblocking v and w variants: the same, on a request of mpi_coll_req.c's kind ---- */
int mpi_nbc_inter_gatherv(mpi_comm_t *c, const char *call, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                          const int *displs, MPI_Datatype recvtype, int root, MPI_Request *request)
{
    return inter_v_rooted(c, call, true, recvbuf, recvcounts, displs, recvtype, sendbuf, sendcount,
                          sendtype, root, request);
}

int mpi_nbc_inter_scatterv(mpi_comm_t *c, const char *call, const void *sendbuf,
                           const int *sendcounts, const int *displs, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Request *request)
{
    return inter_v_rooted(c, call, false, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                          recvtype, root, request);
}

int mpi_nbc_inter_allgatherv(mpi_comm_t *c, const char *call, const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                             const int *displs, MPI_Datatype recvtype, MPI_Request *request)
{
    return inter_allgatherv(c, call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                            recvtype, request);
}

int mpi_nbc_inter_alltoallvw(mpi_comm_t *c, const char *call, const void *sendbuf, const int *sc,
                             const int *sd, const MPI_Datatype *st, void *recvbuf, const int *rc,
                             const int *rd, const MPI_Datatype *rt, bool w, MPI_Request *request)
{
    return inter_alltoall_vw(c, call, sendbuf, sc, sd, st, recvbuf, rc, rd, rt, w, request);
}
