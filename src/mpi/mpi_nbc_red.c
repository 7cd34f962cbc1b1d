/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Nonblocking reductions: Ireduce, Iallreduce, Ireduce_scatter_block, Iscan, bindings over
 * rcmsg_ireduce, rcmsg_iallreduce, rcmsg_ireduce_scatter_block and rcmsg_iscan with the
 * operation and datatype of mpi_op_rcmsg_any (a user operation, or one rcmsg lacks, through
 * rcmsg_op_create, in rank order when it does not commute); requests of mpi_coll_req.c's kind.
 * Over an intercommunicator: mpi_inter_coll.c (rcmsg's intercommunicator reductions); Iscan is
 * not defined there (MPI_ERR_COMM).
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>

/* the arguments of a reduction, checked */
typedef struct {
    const char *call;
    mpi_comm_t *c;
    MPI_Datatype dt;
    mpi_type_t *t;
    MPI_Op op;
    bool commute;
} red_t;

static int red_check(red_t *a, MPI_Comm comm, const void *sendbuf, void *recvbuf, int count,
                     bool recv_here, MPI_Request *request)
{
    int err;

    a->c = mpi_nbc_args(a->call, comm, request, &err);
    if (a->c == NULL) {
        return err;
    }
    if (recv_here && count > 0 &&
        (err = mpi_check_alias(a->c, a->call, sendbuf, recvbuf)) != MPI_SUCCESS) {
        return err;
    }
    err = mpi_nbc_check_buf(a->c, a->call, recvbuf, count, a->dt, &a->t, "recvbuf");
    if (err == MPI_SUCCESS) {
        err = mpi_op_check(a->c, a->call, a->op, a->dt);
    }
    a->commute = err == MPI_SUCCESS && mpi_op_commutative(a->op);
    return err;
}

/* An intracommunicator's reduction started by rcmsg (its arguments checked): Ireduce (root
 * >= 0), Iallreduce (root -1, scatter false), Ireduce_scatter_block (scatter: count elements
 * to each rank of size * count), Iscan (scan 1), Iexscan (scan 2: rank 0's recvbuf is not
 * written back, MPI leaves it undefined). in: the input (MPI_IN_PLACE: it is in recvbuf). */
static int red_start(const red_t *a, const void *in, void *recvbuf, int count, int root,
                     bool scatter, int scan, MPI_Request *request)
{
    mpi_comm_t *c = a->c;
    bool in_place = in == MPI_IN_PLACE, result = root < 0 || c->rank == root;
    size_t all = scatter ? (size_t)count * (size_t)c->size : (size_t)count, n;
    rcmsg_op_t rop;
    rcmsg_datatype_t rdt;
    coll_buf_t *vi, *vo;
    rcmsg_status_t s = RCMSG_OK;
    mpi_req_t *r;
    int err;

    if ((r = mpi_coll_req_new(c, a->call, &vi, &vo, &err)) == NULL) {
        return err;
    }
    mpi_coll_req_hold(r, a->op, a->t);
    err = mpi_op_rcmsg_any(a->op, a->dt, (size_t)count, &rop, &rdt, &n);
    if (err != MPI_SUCCESS) {
        err = mpi_err(c, a->call, err, "no rcmsg operation or datatype for the reduction");
    } else if (in_place) {
        err = coll_view_in(c, a->call, vo, recvbuf, all, a->t);
    } else {
        err = coll_view_in(c, a->call, vi, in, all, a->t);
        if (err == MPI_SUCCESS && result) {
            err = coll_view_out(c, a->call, vo, recvbuf, (size_t)count, a->t);
        }
    }
    if (err == MPI_SUCCESS && result && !(scan == 2 && c->rank == 0)) {
        mpi_coll_req_unpack(r, recvbuf, (size_t)count, a->t);
    }
    if (err == MPI_SUCCESS) {
        const void *sp = in_place ? RCMSG_IN_PLACE : vi->p;

        s = scan == 2  ? rcmsg_iexscan(sp, vo->p, n, rdt, rop, c->rc, &r->rc)
            : scan     ? rcmsg_iscan(sp, vo->p, n, rdt, rop, c->rc, &r->rc)
            : scatter  ? rcmsg_ireduce_scatter_block(sp, vo->p, n, rdt, rop, c->rc, &r->rc)
            : root < 0 ? rcmsg_iallreduce(sp, vo->p, n, rdt, rop, c->rc, &r->rc)
                       : rcmsg_ireduce(sp, vo->p, n, rdt, rop, root, c->rc, &r->rc);
    }
    return mpi_coll_req_start(r, a->call, err, s, request);
}

/* Ireduce's checks (a->c an intracommunicator) */
static int reduce_check(red_t *a, MPI_Comm comm, const void *sendbuf, void *recvbuf, int count,
                        int root, MPI_Request *request)
{
    int err = mpi_nbc_check_root(a->c, a->call, root);

    if (err != MPI_SUCCESS) {
        return err;
    }
    if (a->c->rank != root && sendbuf == MPI_IN_PLACE) {
        return mpi_err(a->c, a->call, MPI_ERR_BUFFER, "MPI_IN_PLACE is for the root only");
    }
    /* recvbuf matters at the root only: check the send side's type there instead */
    return red_check(a, comm, sendbuf, a->c->rank == root ? recvbuf : (void *)sendbuf, count,
                     a->c->rank == root, request);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    red_t a = {.call = "MPI_Ireduce", .dt = datatype, .op = op};
    int err;

    MPI_CHECK_ACTIVE(a.call);
    a.c = mpi_nbc_args(a.call, comm, request, &err);
    if (a.c != NULL && a.c->inter) {
        return mpi_nbc_inter_reduce(a.c, a.call, sendbuf, recvbuf, count, datatype, op, root,
                                    request);
    }
    if (a.c == NULL ||
        (err = reduce_check(&a, comm, sendbuf, recvbuf, count, root, request)) != MPI_SUCCESS) {
        return err;
    }
    return red_start(&a, sendbuf, recvbuf, count, root, false, 0, request);
}
MPI_LOCAL_ALIAS(Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, int root, MPI_Comm comm, MPI_Request *request));

int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.scount = count};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, "MPI_Ireduce_c", root, MPI_C_ONE, &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Ireduce(sendbuf, recvbuf, o.scount, datatype, op, root, comm, request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Ireduce_c,
               (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, int root, MPI_Comm comm, MPI_Request *request));

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    red_t a = {.call = "MPI_Iallreduce", .dt = datatype, .op = op};
    int err;

    MPI_CHECK_ACTIVE(a.call);
    if ((a.c = mpi_inter_of(comm)) != NULL) {
        return mpi_nbc_inter_allreduce(a.c, a.call, false, sendbuf, recvbuf, count, datatype, op,
                                       request);
    }
    err = red_check(&a, comm, sendbuf, recvbuf, count, true, request);
    if (err != MPI_SUCCESS) {
        return err;
    }
    return red_start(&a, sendbuf, recvbuf, count, -1, false, 0, request);
}
MPI_LOCAL_ALIAS(Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Request *request));

int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.rcount = count};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Iallreduce_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Iallreduce(sendbuf, recvbuf, o.rcount, datatype, op, comm, request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Iallreduce_c,
               (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Request *request));

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    red_t a = {.call = "MPI_Ireduce_scatter_block", .dt = datatype, .op = op};
    int err;

    MPI_CHECK_ACTIVE(a.call);
    if ((a.c = mpi_inter_of(comm)) != NULL) {
        return mpi_nbc_inter_allreduce(a.c, a.call, true, sendbuf, recvbuf, recvcount, datatype, op,
                                       request);
    }
    err = red_check(&a, comm, sendbuf, recvbuf, recvcount, true, request);
    if (err != MPI_SUCCESS) {
        return err;
    }
    return red_start(&a, sendbuf, recvbuf, recvcount, -1, true, 0, request);
}
MPI_LOCAL_ALIAS(Ireduce_scatter_block,
                (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request));

int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Ireduce_scatter_block_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Ireduce_scatter_block(sendbuf, recvbuf, o.rcount, datatype, op, comm,
                                              request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Ireduce_scatter_block_c,
               (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Request *request));

/* Iscan and Iexscan over an intercommunicator c (and their inits) */
static int scan_inter(mpi_comm_t *c, const char *call)
{
    return mpi_err(c, call, MPI_ERR_COMM, "not defined over an intercommunicator");
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    red_t a = {.call = "MPI_Iscan", .dt = datatype, .op = op};
    int err;

    MPI_CHECK_ACTIVE(a.call);
    if ((a.c = mpi_inter_of(comm)) != NULL) {
        return scan_inter(a.c, a.call);
    }
    err = red_check(&a, comm, sendbuf, recvbuf, count, true, request);
    if (err != MPI_SUCCESS) {
        return err;
    }
    return red_start(&a, sendbuf, recvbuf, count, -1, false, 1, request);
}
MPI_LOCAL_ALIAS(Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request));

int MPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.rcount = count};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Iscan_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Iscan(sendbuf, recvbuf, o.rcount, datatype, op, comm, request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Iscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request));

int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    red_t a = {.call = "MPI_Iexscan", .dt = datatype, .op = op};
    int err;

    MPI_CHECK_ACTIVE(a.call);
    if ((a.c = mpi_inter_of(comm)) != NULL) {
        return scan_inter(a.c, a.call);
    }
    err = red_check(&a, comm, sendbuf, recvbuf, count, true, request);
    if (err != MPI_SUCCESS) {
        return err;
    }
    return red_start(&a, sendbuf, recvbuf, count, -1, false, 2, request);
}
MPI_LOCAL_ALIAS(Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request *request));

int MPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.rcount = count};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Iexscan_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Iexscan(sendbuf, recvbuf, o.rcount, datatype, op, comm, request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Iexscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));

/* Ireduce_scatter: sum(recvcounts) elements reduced, recvcounts[i] of them to rank i; the
 * counts rcmsg reads (in its elements) are kept with the request. */
static int red_scatter_start(const red_t *a, const void *in, void *recvbuf, const int *counts,
                             MPI_Request *request)
{
    mpi_comm_t *c = a->c;
    size_t total = 0, k = 1, *rc = malloc((size_t)c->size * sizeof(size_t));
    size_t mine = (size_t)counts[c->rank];
    rcmsg_op_t rop;
    rcmsg_datatype_t rdt;
    coll_buf_t *vi, *vo;
    rcmsg_status_t s = RCMSG_OK;
    mpi_req_t *r;
    int err;

    if ((r = mpi_coll_req_new(c, a->call, &vi, &vo, &err)) == NULL) {
        free(rc);
        return err;
    }
    mpi_coll_req_hold(r, a->op, a->t);
    mpi_coll_req_keep(r, rc);
    err = rc == NULL ? mpi_err(c, a->call, MPI_ERR_NO_MEM, "out of memory")
                     : mpi_op_rcmsg_any(a->op, a->dt, 1, &rop, &rdt, &k);
    for (int i = 0; err == MPI_SUCCESS && i < c->size; i++) {
        rc[i] = (size_t)counts[i] * k;
        total += (size_t)counts[i];
    }
    if (err == MPI_SUCCESS && in == MPI_IN_PLACE) {
        err = coll_view_in(c, a->call, vo, recvbuf, total, a->t);
    } else if (err == MPI_SUCCESS) {
        err = coll_view_in(c, a->call, vi, in, total, a->t);
        if (err == MPI_SUCCESS) {
            err = coll_view_out(c, a->call, vo, recvbuf, mine, a->t);
        }
    }
    if (err == MPI_SUCCESS) {
        mpi_coll_req_unpack(r, recvbuf, mine, a->t);
        s = rcmsg_ireduce_scatter(in == MPI_IN_PLACE ? RCMSG_IN_PLACE : vi->p, vo->p, rc, rdt, rop,
                                  c->rc, &r->rc);
    }
    return mpi_coll_req_start(r, a->call, err, s, request);
}

/* Ireduce_scatter's checks (a->c an intracommunicator) */
static int reduce_scatter_check(red_t *a, MPI_Comm comm, const void *sendbuf, void *recvbuf,
                                const int *recvcounts, MPI_Request *request)
{
    int err = coll_check_counts(a->c, a->call, recvcounts, recvcounts, "receive");

    return err != MPI_SUCCESS
               ? err
               : red_check(a, comm, sendbuf, recvbuf, recvcounts[a->c->rank], true, request);
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    red_t a = {.call = "MPI_Ireduce_scatter", .dt = datatype, .op = op};
    int err;

    MPI_CHECK_ACTIVE(a.call);
    a.c = mpi_nbc_args(a.call, comm, request, &err);
    if (a.c == NULL) {
        return err;
    }
    if (a.c->inter) {
        return mpi_nbc_inter_reduce_scatter(a.c, a.call, sendbuf, recvbuf, recvcounts, datatype, op,
                                            request);
    }
    err = reduce_scatter_check(&a, comm, sendbuf, recvbuf, recvcounts, request);
    if (err != MPI_SUCCESS) {
        return err;
    }
    return red_scatter_start(&a, sendbuf, recvbuf, recvcounts, request);
}
MPI_LOCAL_ALIAS(Ireduce_scatter,
                (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request));

int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.rcounts = recvcounts, .local = true};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Ireduce_scatter_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Ireduce_scatter(sendbuf, recvbuf, o.r.counts, datatype, op, comm, request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Ireduce_scatter_c,
               (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));

/* ---- the persistent forms (MPI-4.0): each start runs the nonblocking one above ------------- */
/* the init's checks: the nonblocking forms' (red_check, reduce_check, reduce_scatter_check;
 * over an intercommunicator, the intercommunicator forms' through MPI_NBC_CHECK_ONLY) */
static int check_reduce(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    red_t r = {.call = call, .c = c, .dt = a->rdt, .op = a->op};
    MPI_Request unused;

    if (c->inter) {
        return mpi_nbc_inter_reduce(c, call, a->sbuf, a->rbuf, a->rcount, a->rdt, a->op, a->root,
                                    MPI_NBC_CHECK_ONLY);
    }
    return reduce_check(&r, a->comm, a->sbuf, a->rbuf, a->rcount, a->root, &unused);
}

/* Allreduce_init (scatter false) and Reduce_scatter_block_init */
static int check_red(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a, bool scatter)
{
    red_t r = {.call = call, .c = c, .dt = a->rdt, .op = a->op};
    MPI_Request unused;

    if (c->inter) {
        return mpi_nbc_inter_allreduce(c, call, scatter, a->sbuf, a->rbuf, a->rcount, a->rdt, a->op,
                                       MPI_NBC_CHECK_ONLY);
    }
    return red_check(&r, a->comm, a->sbuf, a->rbuf, a->rcount, true, &unused);
}

static int check_allreduce(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    return check_red(c, call, a, false);
}

static int check_reduce_scatter_block(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    return check_red(c, call, a, true);
}

static int check_scan(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    return c->inter ? scan_inter(c, call) : check_red(c, call, a, false);
}

static int check_reduce_scatter(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    red_t r = {.call = call, .c = c, .dt = a->rdt, .op = a->op};
    MPI_Request unused;

    if (c->inter) {
        return mpi_nbc_inter_reduce_scatter(c, call, a->sbuf, a->rbuf, a->rcounts, a->rdt, a->op,
                                            MPI_NBC_CHECK_ONLY);
    }
    return reduce_scatter_check(&r, a->comm, a->sbuf, a->rbuf, a->rcounts, &unused);
}

static int start_reduce(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Ireduce(a->sbuf, a->rbuf, a->rcount, a->rdt, a->op, a->root, a->comm, request);
}

static int start_allreduce(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Iallreduce(a->sbuf, a->rbuf, a->rcount, a->rdt, a->op, a->comm, request);
}

static int start_reduce_scatter_block(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Ireduce_scatter_block(a->sbuf, a->rbuf, a->rcount, a->rdt, a->op, a->comm, request);
}

static int start_reduce_scatter(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Ireduce_scatter(a->sbuf, a->rbuf, a->rcounts, a->rdt, a->op, a->comm, request);
}

static int start_scan(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Iscan(a->sbuf, a->rbuf, a->rcount, a->rdt, a->op, a->comm, request);
}

static int start_exscan(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Iexscan(a->sbuf, a->rbuf, a->rcount, a->rdt, a->op, a->comm, request);
}

/* the inits of the reductions (root: a Reduce's; the others store -1 and never read it;
 * counts: Reduce_scatter's recvcounts) */
static int init_red(const char *call, mpi_pcoll_start_fn *start, mpi_pcoll_check_fn *check,
                    const void *sendbuf, void *recvbuf, int count, const int *counts,
                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request)
{
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .rbuf = recvbuf,
                          .rcount = count,
                          .rcounts = counts,
                          .rdt = datatype,
                          .op = op,
                          .root = root};

    return mpi_pcoll_new(call, info, &a, start, check, request);
}

int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_red("MPI_Reduce_init", start_reduce, check_reduce, sendbuf, recvbuf, count, NULL,
                    datatype, op, root, comm, info, request);
}
MPI_PMPI_ALIAS(Reduce_init,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_red("MPI_Allreduce_init", start_allreduce, check_allreduce, sendbuf, recvbuf, count,
                    NULL, datatype, op, -1, comm, info, request);
}
MPI_PMPI_ALIAS(Allreduce_init,
               (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_red("MPI_Reduce_scatter_block_init", start_reduce_scatter_block,
                    check_reduce_scatter_block, sendbuf, recvbuf, recvcount, NULL, datatype, op, -1,
                    comm, info, request);
}
MPI_PMPI_ALIAS(Reduce_scatter_block_init,
               (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_red("MPI_Reduce_scatter_init", start_reduce_scatter, check_reduce_scatter, sendbuf,
                    recvbuf, 0, recvcounts, datatype, op, -1, comm, info, request);
}
MPI_PMPI_ALIAS(Reduce_scatter_init,
               (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_red("MPI_Scan_init", start_scan, check_scan, sendbuf, recvbuf, count, NULL,
                    datatype, op, -1, comm, info, request);
}
MPI_PMPI_ALIAS(Scan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_red("MPI_Exscan_init", start_exscan, check_scan, sendbuf, recvbuf, count, NULL,
                    datatype, op, -1, comm, info, request);
}
MPI_PMPI_ALIAS(Exscan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));

/* ---- their large-count forms: the counts converted at the init (mpi_c_rooted, mpi_c_all) ---- */

/* the reductions' (rooted: a Reduce's, at root; else root is -1 and not read; counts:
 * Reduce_scatter's recvcounts, one per rank) */
static int init_red_c(const char *call, mpi_pcoll_start_fn *start, mpi_pcoll_check_fn *check,
                      const void *sendbuf, void *recvbuf, MPI_Count count, const MPI_Count *counts,
                      MPI_Datatype datatype, MPI_Op op, bool rooted, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    mpi_c_in_t in = {.scount = count, .rcount = count, .rcounts = counts, .local = true};
    mpi_c_out_t o;
    int err = !rooted ? mpi_c_all(comm, call, &in, &o)
                      : mpi_c_rooted(comm, call, root, MPI_C_ONE, &in, &o);
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .rbuf = recvbuf,
                          .rcount = !rooted ? o.rcount : o.scount,
                          .rdt = datatype,
                          .op = op,
                          .root = root};

    return mpi_pcoll_c_new(call, info, &a, &o, err, start, check, request);
}

int MPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_red_c("MPI_Reduce_init_c", start_reduce, check_reduce, sendbuf, recvbuf, count,
                      NULL, datatype, op, true, root, comm, info, request);
}
MPI_PMPI_ALIAS(Reduce_init_c,
               (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_red_c("MPI_Allreduce_init_c", start_allreduce, check_allreduce, sendbuf, recvbuf,
                      count, NULL, datatype, op, false, -1, comm, info, request);
}
MPI_PMPI_ALIAS(Allreduce_init_c,
               (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_red_c("MPI_Reduce_scatter_block_init_c", start_reduce_scatter_block,
                      check_reduce_scatter_block, sendbuf, recvbuf, recvcount, NULL, datatype, op,
                      false, -1, comm, info, request);
}
MPI_PMPI_ALIAS(Reduce_scatter_block_init_c,
               (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_red_c("MPI_Reduce_scatter_init_c", start_reduce_scatter, check_reduce_scatter,
                      sendbuf, recvbuf, 0, recvcounts, datatype, op, false, -1, comm, info,
                      request);
}
MPI_PMPI_ALIAS(Reduce_scatter_init_c,
               (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                MPI_Request *request));

int MPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_red_c("MPI_Scan_init_c", start_scan, check_scan, sendbuf, recvbuf, count, NULL,
                      datatype, op, false, -1, comm, info, request);
}
MPI_PMPI_ALIAS(Scan_init_c,
               (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_red_c("MPI_Exscan_init_c", start_exscan, check_scan, sendbuf, recvbuf, count, NULL,
                      datatype, op, false, -1, comm, info, request);
}
MPI_PMPI_ALIAS(Exscan_init_c,
               (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
