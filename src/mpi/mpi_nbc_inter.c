/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Nonblocking collectives over an intercommunicator (mpi_inter.c describes its layout), as
 * schedules (mpi_sched.c) on the hidden duplicate of the union of the two groups
 * (mpi_coll_comm of the intercommunicator): local rank r is local_off + r there, remote rank
 * r is peer_off + r. The data moves as in the blocking ones (mpi_inter_coll.c); within a
 * group the binomial trees of mpi_nbc.c and mpi_nbc_red.c run over the local group.
 *
 *   Ibarrier   fan-in to local rank 0, the two rank 0s swap an empty message, fan-out
 *   Ibcast     root --> remote rank 0 --(binomial tree in its group)--> every remote rank
 *   Igather    every remote rank --> the root (MPI_ROOT); Iscatter: the reverse
 *   Iallgather, Ialltoall
 *              one round: a block to and from every remote rank
 *   Ireduce    the other group reduces at its rank 0 (binomial, rank order), which sends the
 *              result to the root
 *   Iallreduce each group reduces at its rank 0; the rank 0s swap their results; each
 *              broadcasts the other group's result in its group
 *   Ireduce_scatter_block
 *              as Iallreduce, then each rank 0 scatters the other group's result over its
 *              group, recvcount elements each
 * Roots are MPI_ROOT at the root, MPI_PROC_NULL at the other ranks of its group (nothing to
 * do, but the schedule is made all the same: every rank takes the collective's tag) and the
 * root's rank in the remote group at the ranks of the other group. MPI_IN_PLACE is refused:
 * MPI defines none over an intercommunicator. Iscan is not defined there (mpi_nbc_red.c).
 */
#include "mpi/mpi_engines.h"

#include <limits.h>

/* the ranks on the hidden communicator of local rank r and remote rank r */
static int loc(const mpi_comm_t *c, int r)
{
    return c->local_off + r;
}

static int rem(const mpi_comm_t *c, int r)
{
    return c->peer_off + r;
}

static int request_check(mpi_comm_t *c, const char *call, const MPI_Request *request)
{
    return request != NULL ? MPI_SUCCESS : mpi_err(c, call, MPI_ERR_ARG, "NULL request");
}

/* a new schedule once the arguments are checked (err: their check's result) */
static mpi_sched_t *sched_new(mpi_comm_t *c, const char *call, int *err_p)
{
    return *err_p == MPI_SUCCESS ? mpi_sched_new(c, call, err_p) : NULL;
}

/* ---- Ibarrier ---------------------------------------------------------------------------- */
int mpi_nbc_inter_barrier(mpi_comm_t *c, MPI_Request *request)
{
    static char none;
    mpi_tbuf_t e = {&none, 0, NULL};
    int err = request_check(c, "MPI_Ibarrier", request), n = c->size, r = c->rank;
    mpi_sched_t *s = sched_new(c, "MPI_Ibarrier", &err);

    if (s == NULL) {
        return err;
    }
    /* fan-in: the children of r in the binomial tree (r + 2^k below r's lowest set bit), then
     * the parent */
    for (int mask = 1; mask < n && !(r & mask); mask <<= 1) {
        if (r + mask < n) {
            mpi_sched_recv(s, e, loc(c, r + mask));
        }
    }
    mpi_sched_fence(s);
    if (r != 0) {
        mpi_sched_send(s, e, loc(c, r & (r - 1)));
    } else { /* every rank of this group has entered: tell the other group, hear from it */
        mpi_sched_send(s, e, rem(c, 0));
        mpi_sched_recv(s, e, rem(c, 0));
    }
    mpi_sched_fence(s);
    mpi_nbc_bcast_tree(s, c, e, 0);
    return mpi_nbc_start(s, c, "MPI_Ibarrier", request);
}

/* ---- Ibcast ------------------------------------------------------------------------------ */
int mpi_nbc_inter_bcast(mpi_comm_t *c, void *buf, int count, MPI_Datatype dt, int root,
                        MPI_Request *request)
{
    const char *call = "MPI_Ibcast";
    mpi_type_t *t = NULL;
    int err = request_check(c, call, request);
    mpi_sched_t *s;

    if (err == MPI_SUCCESS) {
        err = mpi_inter_check_root(c, call, root);
    }
    if (err == MPI_SUCCESS && root != MPI_PROC_NULL) {
        err = mpi_inter_check_buf(c, call, buf, count, dt, &t);
    }
    if ((s = sched_new(c, call, &err)) == NULL) {
        return err;
    }
    if (root == MPI_ROOT) {
        mpi_sched_send(s, (mpi_tbuf_t){buf, (size_t)count, t}, rem(c, 0));
    } else if (root != MPI_PROC_NULL) {
        if (c->rank == 0) {
            mpi_sched_recv(s, (mpi_tbuf_t){buf, (size_t)count, t}, rem(c, root));
            mpi_sched_fence(s);
        }
        mpi_nbc_bcast_tree(s, c, (mpi_tbuf_t){buf, (size_t)count, t}, 0);
    }
    return mpi_nbc_start(s, c, call, request);
}

/* ---- Igather, Iscatter ------------------------------------------------------------------- */
int mpi_nbc_inter_rooted(mpi_comm_t *c, const char *call, bool gather, const void *sendbuf,
                         int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Request *request)
{
    /* the root's n blocks and another rank's one, as gather sees them or scatter */
    void *rootbuf = gather ? recvbuf : (void *)sendbuf,
         *leafbuf = gather ? (void *)sendbuf : recvbuf;
    int rootcount = gather ? recvcount : sendcount, leafcount = gather ? sendcount : recvcount;
    MPI_Datatype rootdt = gather ? recvtype : sendtype, leafdt = gather ? sendtype : recvtype;
    mpi_type_t *t = NULL;
    int err = request_check(c, call, request);
    mpi_sched_t *s;

    if (err == MPI_SUCCESS) {
        err = mpi_inter_check_root(c, call, root);
    }
    if (err == MPI_SUCCESS && root == MPI_ROOT) {
        err = mpi_inter_check_buf(c, call, rootbuf, rootcount, rootdt, &t);
    } else if (err == MPI_SUCCESS && root != MPI_PROC_NULL) {
        err = mpi_inter_check_buf(c, call, leafbuf, leafcount, leafdt, &t);
    }
    if ((s = sched_new(c, call, &err)) == NULL) {
        return err;
    }
    for (int i = 0; root == MPI_ROOT && i < c->remote_size; i++) {
        if (gather) {
            mpi_sched_recv(s, mpi_nbc_block(rootbuf, i, rootcount, t), rem(c, i));
        } else {
            mpi_sched_send(s, mpi_nbc_block(rootbuf, i, rootcount, t), rem(c, i));
        }
    }
    if (root >= 0 && gather) {
        mpi_sched_send(s, (mpi_tbuf_t){leafbuf, (size_t)leafcount, t}, rem(c, root));
    } else if (root >= 0) {
        mpi_sched_recv(s, (mpi_tbuf_t){leafbuf, (size_t)leafcount, t}, rem(c, root));
    }
    return mpi_nbc_start(s, c, call, request);
}

/* ---- Iallgather, Ialltoall --------------------------------------------------------------- */
int mpi_nbc_inter_all(mpi_comm_t *c, const char *call, bool alltoall, const void *sendbuf,
                      int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Request *request)
{
    mpi_type_t *st = NULL, *rt = NULL;
    int err = request_check(c, call, request);
    mpi_sched_t *s;

    if (err == MPI_SUCCESS) {
        err = mpi_inter_check_buf(c, call, sendbuf, sendcount, sendtype, &st);
    }
    if (err == MPI_SUCCESS) {
        err = mpi_inter_check_buf(c, call, recvbuf, recvcount, recvtype, &rt);
    }
    if ((s = sched_new(c, call, &err)) == NULL) {
        return err;
    }
    for (int i = 0; i < c->remote_size; i++) {
        mpi_tbuf_t out = alltoall ? mpi_nbc_block(sendbuf, i, sendcount, st)
                                  : (mpi_tbuf_t){(void *)sendbuf, (size_t)sendcount, st};

        mpi_sched_recv(s, mpi_nbc_block(recvbuf, i, recvcount, rt), rem(c, i));
        mpi_sched_send(s, out, rem(c, i));
    }
    return mpi_nbc_start(s, c, call, request);
}

/* ---- Ireduce, Iallreduce, Ireduce_scatter_block ------------------------------------------ */
int mpi_nbc_inter_reduce(mpi_comm_t *c, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype dt, MPI_Op op, int root, MPI_Request *request)
{
    const char *call = "MPI_Ireduce";
    mpi_type_t *t = NULL;
    int err = request_check(c, call, request);
    mpi_sched_t *s;
    void *acc;

    if (err == MPI_SUCCESS) {
        err = mpi_inter_check_root(c, call, root);
    }
    if (err == MPI_SUCCESS && root != MPI_PROC_NULL) {
        err = mpi_op_check(c, call, op, dt);
    }
    if (err == MPI_SUCCESS && root != MPI_PROC_NULL) {
        err = mpi_inter_check_buf(c, call, root == MPI_ROOT ? recvbuf : sendbuf, count, dt, &t);
    }
    if ((s = sched_new(c, call, &err)) == NULL) {
        return err;
    }
    if (root == MPI_ROOT) {
        mpi_sched_recv(s, (mpi_tbuf_t){recvbuf, (size_t)count, t}, rem(c, 0));
    } else if (root != MPI_PROC_NULL) {
        acc = mpi_nbc_reduce_tree(s, c, sendbuf, (size_t)count, dt, op);
        if (acc != NULL) {
            mpi_sched_send(s, (mpi_tbuf_t){acc, (size_t)count, t}, rem(c, root));
        }
    }
    return mpi_nbc_start(s, c, call, request);
}

/* rank 0 of a group: block i of the other group's result (res) to local rank i, its own into
 * recvbuf */
static void scatter_blocks(mpi_sched_t *s, mpi_comm_t *c, void *res, void *recvbuf, int count,
                           mpi_type_t *t)
{
    for (int i = 1; i < c->size; i++) {
        mpi_sched_send(s, mpi_nbc_block(res, i, count, t), loc(c, i));
    }
    mpi_sched_copy(s, mpi_nbc_block(res, 0, count, t), (mpi_tbuf_t){recvbuf, (size_t)count, t});
}

/* Iallreduce (scatter false: count elements, everyone gets the other group's result) and
 * Ireduce_scatter_block (scatter true: count is recvcount; sendbuf has size * count elements,
 * the same total in both groups; local rank i gets block i of the other group's result) */
int mpi_nbc_inter_allreduce(mpi_comm_t *c, const char *call, bool scatter, const void *sendbuf,
                            void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                            MPI_Request *request)
{
    long long total = scatter ? (long long)count * c->size : count;
    mpi_type_t *t = NULL;
    int err = request_check(c, call, request);
    mpi_sched_t *s;
    void *acc, *res = recvbuf;

    if (err == MPI_SUCCESS && total > INT_MAX) {
        err = mpi_err(c, call, MPI_ERR_COUNT, "%d x %d elements are more than INT_MAX", count,
                      c->size);
    }
    if (err == MPI_SUCCESS) {
        err = mpi_op_check(c, call, op, dt);
    }
    if (err == MPI_SUCCESS) {
        err = mpi_inter_check_buf(c, call, sendbuf, (int)total, dt, &t);
    }
    if (err == MPI_SUCCESS) {
        err = mpi_inter_check_buf(c, call, recvbuf, count, dt, &t);
    }
    if ((s = sched_new(c, call, &err)) == NULL) {
        return err;
    }
    acc = mpi_nbc_reduce_tree(s, c, sendbuf, (size_t)total, dt, op);
    if (c->rank == 0 && scatter) {
        res = mpi_sched_tmp(s, (size_t)total, dt);
    }
    if (acc != NULL && res != NULL) { /* rank 0: swap the results with the other rank 0 */
        mpi_sched_send(s, (mpi_tbuf_t){acc, (size_t)total, t}, rem(c, 0));
        mpi_sched_recv(s, (mpi_tbuf_t){res, (size_t)total, t}, rem(c, 0));
        mpi_sched_fence(s);
        if (scatter) {
            scatter_blocks(s, c, res, recvbuf, count, t);
        }
    }
    if (!scatter) {
        mpi_nbc_bcast_tree(s, c, (mpi_tbuf_t){recvbuf, (size_t)count, t}, 0);
    } else if (c->rank != 0) {
        mpi_sched_recv(s, (mpi_tbuf_t){recvbuf, (size_t)count, t}, loc(c, 0));
    }
    return mpi_nbc_start(s, c, call, request);
}
