/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Nonblocking collectives that only move data: Ibarrier, Ibcast, Igather, Iscatter,
 * Iallgather, Ialltoall, bindings over rcmsg_ibarrier, ..., rcmsg_ialltoall: each call checks
 * its arguments, packs a noncontiguous send buffer, and starts rcmsg's collective as a request
 * of mpi_coll_req.c's kind (a noncontiguous receive buffer is unpacked when it completes). The
 * reductions (Ireduce, Iallreduce, Ireduce_scatter_block, Iscan) are in mpi_nbc_red.c; over
 * an intercommunicator each entry point dispatches to mpi_inter_coll.c (rcmsg's too).
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>

/* ---- Ibarrier ---------------------------------------------------------------------------- */
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c;
    mpi_req_t *r;
    coll_buf_t *in, *out;

    MPI_CHECK_ACTIVE("MPI_Ibarrier");
    c = mpi_nbc_args("MPI_Ibarrier", comm, request, &err);
    if (c != NULL && c->inter) {
        return mpi_nbc_inter_barrier(c, request);
    }
    if (c == NULL || (r = mpi_coll_req_new(c, "MPI_Ibarrier", &in, &out, &err)) == NULL) {
        return err;
    }
    return mpi_coll_req_start(r, "MPI_Ibarrier", MPI_SUCCESS, rcmsg_ibarrier(c->rc, &r->rc),
                              request);
}

/* ---- Ibcast ------------------------------------------------------------------------------ */
static int bcast_check(mpi_comm_t *c, const char *call, void *buffer, int count,
                       MPI_Datatype datatype, int root, mpi_type_t **t_p)
{
    int err = mpi_nbc_check_buf(c, call, buffer, count, datatype, t_p, "the buffer");

    return err != MPI_SUCCESS ? err : mpi_nbc_check_root(c, call, root);
}

int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request)
{
    MPI_MT_GUARD();
    int err;
    mpi_comm_t *c;
    mpi_type_t *t;
    mpi_req_t *r;
    coll_buf_t *in, *v;
    rcmsg_status_t s;

    MPI_CHECK_ACTIVE("MPI_Ibcast");
    c = mpi_nbc_args("MPI_Ibcast", comm, request, &err);
    if (c == NULL) {
        return err;
    }
    if (c->inter) {
        return mpi_nbc_inter_bcast(c, "MPI_Ibcast", buffer, count, datatype, root, request);
    }
    if ((err = bcast_check(c, "MPI_Ibcast", buffer, count, datatype, root, &t)) != MPI_SUCCESS) {
        return err;
    }
    if ((r = mpi_coll_req_new(c, "MPI_Ibcast", &in, &v, &err)) == NULL) {
        return err;
    }
    err = c->rank == root ? coll_view_in(c, "MPI_Ibcast", v, buffer, (size_t)count, t)
                          : coll_view_out(c, "MPI_Ibcast", v, buffer, (size_t)count, t);
    if (err == MPI_SUCCESS && c->rank != root) {
        mpi_coll_req_unpack(r, buffer, (size_t)count, t);
    }
    s = err == MPI_SUCCESS ? rcmsg_ibcast(v->p, v->bytes, RCMSG_UINT8, root, c->rc, &r->rc)
                           : RCMSG_OK;
    return mpi_coll_req_start(r, "MPI_Ibcast", err, s, request);
}
MPI_LOCAL_ALIAS(Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                         MPI_Request *request));

int MPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.scount = count};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, "MPI_Ibcast_c", root, MPI_C_ONE, &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Ibcast(buffer, o.scount, datatype, root, comm, request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Ibcast_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                          MPI_Comm comm, MPI_Request *request));

/* ---- Igather, Iscatter ------------------------------------------------------------------- */

/* The root's side of Igather and Iscatter (checked): the buffer of n blocks (rbuf/rcount/rt
 * for gather) and its own block (sbuf/scount/st, or MPI_IN_PLACE). */
typedef struct {
    const void *sbuf;
    int scount;
    MPI_Datatype sdt;
    void *rbuf;
    int rcount;
    MPI_Datatype rdt;
    int root;
} rooted_args_t;

/* Checks the arguments of a rooted data collective (coll_check's); *st_p and *rt_p: the types
 * that matter on this rank (NULL for one that does not). gather: the n-block buffer is the
 * receive one. */
static int rooted_check(mpi_comm_t *c, const char *call, const rooted_args_t *a, bool gather,
                        mpi_type_t **st_p, mpi_type_t **rt_p)
{
    coll_args_t ca = {.shape = gather ? COLL_TO_ROOT : COLL_FROM_ROOT,
                      .root = a->root,
                      .send = {a->sbuf, a->scount, a->sdt},
                      .recv = {a->rbuf, a->rcount, a->rdt},
                      .blocks = true};
    int err = coll_check(c, call, &ca);

    *st_p = ca.st;
    *rt_p = ca.rt;
    return err;
}

static int rooted(const char *call, const rooted_args_t *a, bool gather, MPI_Comm comm,
                  MPI_Request *request)
{
    int err;
    mpi_comm_t *c = mpi_nbc_args(call, comm, request, &err);
    mpi_type_t *st, *rt;
    mpi_req_t *r;
    coll_buf_t *vi, *vo;
    bool is_root, in_place;
    size_t block;
    rcmsg_status_t s = RCMSG_OK;

    if (c != NULL && c->inter) {
        return mpi_nbc_inter_rooted(c, call, gather, a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount,
                                    a->rdt, a->root, request);
    }
    if (c == NULL || (err = rooted_check(c, call, a, gather, &st, &rt)) != MPI_SUCCESS ||
        (r = mpi_coll_req_new(c, call, &vi, &vo, &err)) == NULL) {
        return err;
    }
    is_root = c->rank == a->root;
    in_place = is_root && (gather ? a->sbuf : a->rbuf) == MPI_IN_PLACE;
    if (gather) {
        block =
            is_root ? mpi_type_size(rt) * (size_t)a->rcount : mpi_type_size(st) * (size_t)a->scount;
        if (!in_place) {
            err = coll_view_in(c, call, vi, a->sbuf, (size_t)a->scount, st);
        }
        if (err == MPI_SUCCESS && is_root) {
            err = coll_gather_view(c, call, vo, a->rbuf, a->rcount, rt, in_place);
            mpi_coll_req_unpack(r, a->rbuf, (size_t)a->rcount * (size_t)c->size, rt);
        }
        if (err == MPI_SUCCESS) {
            s = rcmsg_igather(in_place ? RCMSG_IN_PLACE : vi->p, vo->p, block, RCMSG_UINT8, a->root,
                              c->rc, &r->rc);
        }
        return mpi_coll_req_start(r, call, err, s, request);
    }
    block = is_root ? mpi_type_size(st) * (size_t)a->scount : mpi_type_size(rt) * (size_t)a->rcount;
    if (is_root) {
        err = coll_view_in(c, call, vi, a->sbuf, (size_t)a->scount * (size_t)c->size, st);
    }
    if (err == MPI_SUCCESS && !in_place) {
        err = coll_view_out(c, call, vo, a->rbuf, (size_t)a->rcount, rt);
        mpi_coll_req_unpack(r, a->rbuf, (size_t)a->rcount, rt);
    }
    if (err == MPI_SUCCESS) {
        s = rcmsg_iscatter(vi->p, in_place ? RCMSG_IN_PLACE : vo->p, block, RCMSG_UINT8, a->root,
                           c->rc, &r->rc);
    }
    return mpi_coll_req_start(r, call, err, s, request);
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    rooted_args_t a = {sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root};

    MPI_CHECK_ACTIVE("MPI_Igather");
    return rooted("MPI_Igather", &a, true, comm, request);
}
MPI_LOCAL_ALIAS(Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                          MPI_Request *request));

int MPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.sbuf = sendbuf, .scount = sendcount, .rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, "MPI_Igather_c", root, MPI_C_GATHER, &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Igather(sendbuf, o.scount, sendtype, recvbuf, o.rcount, recvtype, root,
                                comm, request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Igather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm, MPI_Request *request));

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    MPI_MT_GUARD();
    rooted_args_t a = {sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root};

    MPI_CHECK_ACTIVE("MPI_Iscatter");
    return rooted("MPI_Iscatter", &a, false, comm, request);
}
MPI_LOCAL_ALIAS(Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                           MPI_Request *request));

int MPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.scount = sendcount, .rbuf = recvbuf, .rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, "MPI_Iscatter_c", root, MPI_C_SCATTER, &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Iscatter(sendbuf, o.scount, sendtype, recvbuf, o.rcount, recvtype, root,
                                 comm, request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Iscatter_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request *request));

/* ---- Iallgather, Ialltoall --------------------------------------------------------------- */

/* Checks sendbuf (may be MPI_IN_PLACE) and recvbuf of an all-to-all pattern (coll_check's) */
static int all_check(mpi_comm_t *c, const char *call, bool alltoall, const void *sendbuf,
                     int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, mpi_type_t **st_p, mpi_type_t **rt_p)
{
    coll_args_t ca = {.shape = COLL_ALL,
                      .send = {sendbuf, sendcount, sendtype},
                      .recv = {recvbuf, recvcount, recvtype},
                      .blocks = !alltoall};
    int err = coll_check(c, call, &ca);

    *st_p = ca.st;
    *rt_p = ca.rt;
    return err;
}

/* Iallgather (alltoall false) and Ialltoall */
static int all_call(const char *call, bool alltoall, const void *sendbuf, int sendcount,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    int err;
    mpi_comm_t *c = mpi_nbc_args(call, comm, request, &err);
    mpi_type_t *st, *rt;
    mpi_req_t *r;
    coll_buf_t *vi, *vo;
    bool in_place = sendbuf == MPI_IN_PLACE;
    size_t block, all;
    rcmsg_status_t s = RCMSG_OK;

    if (c != NULL && c->inter) {
        return mpi_nbc_inter_all(c, call, alltoall, sendbuf, sendcount, sendtype, recvbuf,
                                 recvcount, recvtype, request);
    }
    if (c == NULL ||
        (err = all_check(c, call, alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         recvtype, &st, &rt)) != MPI_SUCCESS ||
        (r = mpi_coll_req_new(c, call, &vi, &vo, &err)) == NULL) {
        return err;
    }
    block = mpi_type_size(rt) * (size_t)recvcount;
    all = (size_t)recvcount * (size_t)c->size;
    if (!in_place) {
        err = coll_view_in(c, call, vi, sendbuf, (size_t)sendcount * (alltoall ? c->size : 1), st);
        if (err == MPI_SUCCESS) { /* a block of another size: an error at the end */
            mpi_coll_req_blocks(r, block, vi->bytes / (alltoall ? c->size : 1));
            err = coll_all_pad(c, call, vi, alltoall ? c->size : 1, block);
        }
    }
    if (err == MPI_SUCCESS) {
        err = alltoall && in_place ? coll_view_in(c, call, vo, recvbuf, all, rt)
              : alltoall           ? coll_view_out(c, call, vo, recvbuf, all, rt)
                         : coll_gather_view(c, call, vo, recvbuf, recvcount, rt, in_place);
        mpi_coll_req_unpack(r, recvbuf, all, rt);
    }
    if (err == MPI_SUCCESS) {
        const void *sp = in_place ? RCMSG_IN_PLACE : vi->p;

        s = alltoall ? rcmsg_ialltoall(sp, vo->p, block, RCMSG_UINT8, c->rc, &r->rc)
                     : rcmsg_iallgather(sp, vo->p, block, RCMSG_UINT8, c->rc, &r->rc);
    }
    return mpi_coll_req_start(r, call, err, s, request);
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Iallgather");
    return all_call("MPI_Iallgather", false, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, request);
}
MPI_LOCAL_ALIAS(Iallgather,
                (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));

int MPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.sbuf = sendbuf, .scount = sendcount, .rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Iallgather_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Iallgather(sendbuf, o.scount, sendtype, recvbuf, o.rcount, recvtype, comm,
                                   request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Iallgather_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    MPI_CHECK_ACTIVE("MPI_Ialltoall");
    return all_call("MPI_Ialltoall", true, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, request);
}
MPI_LOCAL_ALIAS(Ialltoall,
                (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));

int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.sbuf = sendbuf, .scount = sendcount, .rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Ialltoall_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Ialltoall(sendbuf, o.scount, sendtype, recvbuf, o.rcount, recvtype, comm,
                                  request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Ialltoall_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));

/* ---- the persistent forms (MPI-4.0): each start runs the nonblocking one above ------------- */
static int start_barrier(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Ibarrier(a->comm, request);
}

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_pcoll_args_t a = {.comm = comm};

    return mpi_pcoll_new("MPI_Barrier_init", info, &a, start_barrier, NULL, request);
}
MPI_PMPI_ALIAS(Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request *request));

/* the init's checks: the nonblocking form's (over an intercommunicator, its own checks
 * through MPI_NBC_CHECK_ONLY) */
static int check_bcast(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    mpi_type_t *t;

    if (c->inter) {
        return mpi_nbc_inter_bcast(c, call, a->rbuf, a->rcount, a->rdt, a->root,
                                   MPI_NBC_CHECK_ONLY);
    }
    return bcast_check(c, call, a->rbuf, a->rcount, a->rdt, a->root, &t);
}

static int start_bcast(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Ibcast(a->rbuf, a->rcount, a->rdt, a->root, a->comm, request);
}

int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_pcoll_args_t a = {
        .comm = comm, .rbuf = buffer, .rcount = count, .rdt = datatype, .root = root};

    return mpi_pcoll_new("MPI_Bcast_init", info, &a, start_bcast, check_bcast, request);
}
MPI_PMPI_ALIAS(Bcast_init, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                            MPI_Info info, MPI_Request *request));

static int start_gather(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Igather(a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt, a->root, a->comm,
                       request);
}

static int start_scatter(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Iscatter(a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt, a->root, a->comm,
                        request);
}

/* the init's checks: rooted_check's (gather or scatter), all_check's; over an
 * intercommunicator, the intercommunicator forms' */
static int check_rooted(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a, bool gather)
{
    rooted_args_t r = {a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt, a->root};
    mpi_type_t *st, *rt;

    if (c->inter) {
        return mpi_nbc_inter_rooted(c, call, gather, a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount,
                                    a->rdt, a->root, MPI_NBC_CHECK_ONLY);
    }
    return rooted_check(c, call, &r, gather, &st, &rt);
}

static int check_gather(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    return check_rooted(c, call, a, true);
}

static int check_scatter(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    return check_rooted(c, call, a, false);
}

static int check_all(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a, bool alltoall)
{
    mpi_type_t *st, *rt;

    if (c->inter) {
        return mpi_nbc_inter_all(c, call, alltoall, a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount,
                                 a->rdt, MPI_NBC_CHECK_ONLY);
    }
    return all_check(c, call, alltoall, a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt, &st,
                     &rt);
}

static int check_allgather(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    return check_all(c, call, a, false);
}

static int check_alltoall(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    return check_all(c, call, a, true);
}

static int start_allgather(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Iallgather(a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt, a->comm, request);
}

static int start_alltoall(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Ialltoall(a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt, a->comm, request);
}

/* the inits of the four with a send and a receive buffer (root: a rooted one's; the others
 * store -1 and never read it) */
static int init_data(const char *call, mpi_pcoll_start_fn *start, mpi_pcoll_check_fn *check,
                     const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype,
                          .root = root};

    return mpi_pcoll_new(call, info, &a, start, check, request);
}

int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_data("MPI_Gather_init", start_gather, check_gather, sendbuf, sendcount, sendtype,
                     recvbuf, recvcount, recvtype, root, comm, info, request);
}
MPI_PMPI_ALIAS(Gather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_data("MPI_Scatter_init", start_scatter, check_scatter, sendbuf, sendcount, sendtype,
                     recvbuf, recvcount, recvtype, root, comm, info, request);
}
MPI_PMPI_ALIAS(Scatter_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                              MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_data("MPI_Allgather_init", start_allgather, check_allgather, sendbuf, sendcount,
                     sendtype, recvbuf, recvcount, recvtype, -1, comm, info, request);
}
MPI_PMPI_ALIAS(Allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request));

int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_data("MPI_Alltoall_init", start_alltoall, check_alltoall, sendbuf, sendcount,
                     sendtype, recvbuf, recvcount, recvtype, -1, comm, info, request);
}
MPI_PMPI_ALIAS(Alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request));

/* ---- their large-count forms: the counts converted at the init (mpi_c_rooted, mpi_c_all) ---- */

int MPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Bcast_init_c";
    mpi_c_in_t in = {.scount = count};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, call, root, MPI_C_ONE, &in, &o);
    mpi_pcoll_args_t a = {
        .comm = comm, .rbuf = buffer, .rcount = o.scount, .rdt = datatype, .root = root};

    return mpi_pcoll_c_new(call, info, &a, &o, err, start_bcast, check_bcast, request);
}
MPI_PMPI_ALIAS(Bcast_init_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                              MPI_Comm comm, MPI_Info info, MPI_Request *request));

/* the four with a send and a receive buffer (kind: a rooted one's, or MPI_C_UNROOTED: root
 * not read) */
static int init_data_c(const char *call, mpi_pcoll_start_fn *start, mpi_pcoll_check_fn *check,
                       mpi_c_rooted_t kind, const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    mpi_c_in_t in = {.sbuf = sendbuf, .scount = sendcount, .rbuf = recvbuf, .rcount = recvcount};
    mpi_c_out_t o;
    int err = kind == MPI_C_UNROOTED ? mpi_c_all(comm, call, &in, &o)
                                     : mpi_c_rooted(comm, call, root, kind, &in, &o);
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .scount = o.scount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = o.rcount,
                          .rdt = recvtype,
                          .root = root};

    return mpi_pcoll_c_new(call, info, &a, &o, err, start, check, request);
}

int MPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_data_c("MPI_Gather_init_c", start_gather, check_gather, MPI_C_GATHER, sendbuf,
                       sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                       request);
}
MPI_PMPI_ALIAS(Gather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_data_c("MPI_Scatter_init_c", start_scatter, check_scatter, MPI_C_SCATTER, sendbuf,
                       sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                       request);
}
MPI_PMPI_ALIAS(Scatter_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_data_c("MPI_Allgather_init_c", start_allgather, check_allgather, MPI_C_UNROOTED,
                       sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, -1, comm, info,
                       request);
}
MPI_PMPI_ALIAS(Allgather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_data_c("MPI_Alltoall_init_c", start_alltoall, check_alltoall, MPI_C_UNROOTED,
                       sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, -1, comm, info,
                       request);
}
MPI_PMPI_ALIAS(Alltoall_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request));
