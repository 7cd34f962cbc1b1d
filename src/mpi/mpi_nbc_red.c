/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Nonblocking reductions as schedules: Ireduce, Iallreduce, Ireduce_scatter_block, Iscan.
 * Partial results live in temporary buffers laid out as the datatype says (mpi_sched_tmp), as
 * the operation (mpi_op_apply, a user function included) expects them; they travel packed
 * when the type is noncontiguous.
 *
 * Reduce: a binomial tree. Rank v holds the result of ranks [v, v + mask) and combines it
 * with [v + mask, v + 2 mask) received from v + mask as mine op theirs, so a
 * non-commutative operation combines in rank order; such a tree is rooted at rank 0 and the
 * result goes on to the root in one more message. A commutative one uses ranks relative to
 * the root (no extra hop).
 *
 *     mask 1:  0 <- 1   2 <- 3   4 <- 5   6
 *     mask 2:  0 <----- 2        4 <----- 6
 *     mask 4:  0 <-------------- 4
 *
 * Allreduce: reduce to 0, then the binomial broadcast. Reduce_scatter_block: reduce of the n
 * blocks to 0, which sends block i to rank i. Scan: recursive doubling (MPICH's), with the
 * order of the operands kept for a non-commutative operation. Over an intercommunicator
 * (mpi_nbc_inter.c) the tree runs in each group (mpi_nbc_reduce_tree); Iscan is not defined
 * there (MPI_ERR_COMM).
 */
#include "mpi/mpi_engines.h"

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
    if (sendbuf != MPI_IN_PLACE && sendbuf == recvbuf && recv_here && count > 0) {
        return mpi_err(a->c, a->call, MPI_ERR_BUFFER,
                       "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)");
    }
    err = mpi_nbc_check_buf(a->c, a->call, recvbuf, count, a->dt, &a->t, "recvbuf");
    if (err == MPI_SUCCESS) {
        err = mpi_op_check(a->c, a->call, a->op, a->dt);
    }
    a->commute = err == MPI_SUCCESS && mpi_op_commutative(a->op);
    return err;
}

static mpi_tbuf_t tb(const void *buf, size_t count, const red_t *a)
{
    return (mpi_tbuf_t){(void *)buf, count, a->t};
}

/* reduce to root, the result into recvbuf there */
static void reduce_to(mpi_sched_t *s, const red_t *a, const void *in, void *recvbuf, size_t count,
                      int root)
{
    void *acc = mpi_nbc_reduce_tree_at(s, a->c, in, count, a->dt, a->op, a->commute, root);
    int r = a->c->rank;

    if (acc != NULL && r == root) {
        mpi_sched_copy(s, tb(acc, count, a), tb(recvbuf, count, a));
    } else if (acc != NULL) { /* rank 0 of a non-commutative tree: on to the root */
        mpi_sched_send(s, tb(acc, count, a), root);
    } else if (r == root) { /* the root of a non-commutative reduction, not rank 0 */
        mpi_sched_recv(s, tb(recvbuf, count, a), 0);
    }
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request)
{
    red_t a = {.call = "MPI_Ireduce", .dt = datatype, .op = op};
    mpi_sched_t *s;
    int err;

    MPI_CHECK_ACTIVE(a.call);
    a.c = mpi_nbc_args(a.call, comm, request, &err);
    if (a.c != NULL && a.c->inter) {
        return mpi_nbc_inter_reduce(a.c, sendbuf, recvbuf, count, datatype, op, root, request);
    }
    if (a.c == NULL || (err = mpi_nbc_check_root(a.c, a.call, root)) != MPI_SUCCESS) {
        return err;
    }
    if (a.c->rank != root && sendbuf == MPI_IN_PLACE) {
        return mpi_err(a.c, a.call, MPI_ERR_BUFFER, "MPI_IN_PLACE is for the root only");
    }
    /* recvbuf matters at the root only: check the send side's type there instead */
    err = red_check(&a, comm, sendbuf, a.c->rank == root ? recvbuf : (void *)sendbuf, count,
                    a.c->rank == root, request);
    if (err != MPI_SUCCESS || (s = mpi_sched_new(a.c, a.call, &err)) == NULL) {
        return err;
    }
    reduce_to(s, &a, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, (size_t)count, root);
    return mpi_nbc_start(s, a.c, a.call, request);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
    red_t a = {.call = "MPI_Iallreduce", .dt = datatype, .op = op};
    mpi_sched_t *s;
    int err;

    MPI_CHECK_ACTIVE(a.call);
    if ((a.c = mpi_inter_of(comm)) != NULL) {
        return mpi_nbc_inter_allreduce(a.c, a.call, false, sendbuf, recvbuf, count, datatype, op,
                                       request);
    }
    err = red_check(&a, comm, sendbuf, recvbuf, count, true, request);
    if (err != MPI_SUCCESS || (s = mpi_sched_new(a.c, a.call, &err)) == NULL) {
        return err;
    }
    a.commute = false; /* the tree at rank 0 whatever the op: the broadcast starts there */
    reduce_to(s, &a, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, (size_t)count, 0);
    mpi_sched_fence(s);
    mpi_nbc_bcast_tree(s, a.c, tb(recvbuf, (size_t)count, &a), 0);
    return mpi_nbc_start(s, a.c, a.call, request);
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    red_t a = {.call = "MPI_Ireduce_scatter_block", .dt = datatype, .op = op};
    mpi_sched_t *s;
    void *all;
    size_t total;
    int err, n;

    MPI_CHECK_ACTIVE(a.call);
    if ((a.c = mpi_inter_of(comm)) != NULL) {
        return mpi_nbc_inter_allreduce(a.c, a.call, true, sendbuf, recvbuf, recvcount, datatype, op,
                                       request);
    }
    err = red_check(&a, comm, sendbuf, recvbuf, recvcount, true, request);
    if (err != MPI_SUCCESS || (s = mpi_sched_new(a.c, a.call, &err)) == NULL) {
        return err;
    }
    n = a.c->size;
    total = (size_t)recvcount * (size_t)n;
    a.commute = false; /* rooted at rank 0, which scatters */
    all = mpi_nbc_reduce_tree_at(s, a.c, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, total, a.dt,
                                 a.op, a.commute, 0);
    if (a.c->rank == 0) {
        for (int i = 1; all != NULL && i < n; i++) {
            mpi_sched_send(s, mpi_nbc_block(all, i, recvcount, a.t), i);
        }
        if (all != NULL) {
            mpi_sched_copy(s, tb(all, (size_t)recvcount, &a), tb(recvbuf, (size_t)recvcount, &a));
        }
    } else {
        mpi_sched_recv(s, tb(recvbuf, (size_t)recvcount, &a), 0);
    }
    return mpi_nbc_start(s, a.c, a.call, request);
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request)
{
    red_t a = {.call = "MPI_Iscan", .dt = datatype, .op = op};
    mpi_sched_t *s;
    void *partial, *tmp;
    size_t cnt = (size_t)count;
    int err, r;

    MPI_CHECK_ACTIVE(a.call);
    if ((a.c = mpi_inter_of(comm)) != NULL) {
        return mpi_err(a.c, a.call, MPI_ERR_COMM, "not defined over an intercommunicator");
    }
    err = red_check(&a, comm, sendbuf, recvbuf, count, true, request);
    if (err != MPI_SUCCESS || (s = mpi_sched_new(a.c, a.call, &err)) == NULL) {
        return err;
    }
    r = a.c->rank;
    partial = mpi_sched_tmp(s, cnt, datatype); /* the ranks of this rank's block so far */
    tmp = mpi_sched_tmp(s, cnt, datatype);
    if (sendbuf != MPI_IN_PLACE) {
        mpi_sched_copy(s, tb(sendbuf, cnt, &a), tb(recvbuf, cnt, &a));
    }
    mpi_sched_copy(s, tb(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, cnt, &a),
                   tb(partial, cnt, &a));
    for (int mask = 1; mask < a.c->size; mask <<= 1) {
        int peer = r ^ mask;

        if (peer >= a.c->size) {
            continue;
        }
        mpi_sched_fence(s);
        mpi_sched_recv(s, tb(tmp, cnt, &a), peer);
        mpi_sched_send(s, tb(partial, cnt, &a), peer);
        mpi_sched_fence(s);
        if (peer < r) { /* theirs come first */
            mpi_sched_reduce(s, op, tmp, recvbuf, cnt, datatype);
            mpi_sched_reduce(s, op, tmp, partial, cnt, datatype);
        } else if (a.commute) {
            mpi_sched_reduce(s, op, tmp, partial, cnt, datatype);
        } else { /* partial op tmp, into tmp: then they swap */
            void *t = partial;

            mpi_sched_reduce(s, op, partial, tmp, cnt, datatype);
            partial = tmp;
            tmp = t;
        }
    }
    return mpi_nbc_start(s, a.c, a.call, request);
}
