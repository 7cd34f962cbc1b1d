/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Nonblocking collectives that only move data: Ibarrier, Ibcast, Igather, Iscatter,
 * Iallgather, Ialltoall. Each call checks its arguments, builds a schedule (mpi_sched.c) and
 * starts it; the request completes when the schedule has run. Sends and receives are typed
 * (a noncontiguous buffer is packed when its send starts, unpacked when its receive ends), so
 * the send and receive types may differ as long as their signatures match.
 *
 * Algorithms (n ranks, r this rank; none needs a power of two):
 *   Ibarrier   dissemination: round k sends to r + 2^k and receives from r - 2^k
 *   Ibcast     binomial tree from the root
 *   Igather    linear: the root receives every block at once; Iscatter the reverse
 *   Iallgather ring: n - 1 rounds, each passing the block received last to the right
 *   Ialltoall  one round: every block sent and received at once
 * The reductions (Ireduce, Iallreduce, Ireduce_scatter_block, Iscan) are in mpi_nbc_red.c;
 * over an intercommunicator each entry point dispatches to mpi_nbc_inter.c.
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>

/* ---- Ibarrier ---------------------------------------------------------------------------- */
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    static char none;
    int err;
    mpi_comm_t *c;
    mpi_sched_t *s;

    MPI_CHECK_ACTIVE("MPI_Ibarrier");
    c = mpi_nbc_args("MPI_Ibarrier", comm, request, &err);
    if (c != NULL && c->inter) {
        return mpi_nbc_inter_barrier(c, request);
    }
    if (c == NULL || (s = mpi_sched_new(c, "MPI_Ibarrier", &err)) == NULL) {
        return err;
    }
    for (int k = 1; k < c->size; k <<= 1) {
        mpi_sched_recv(s, (mpi_tbuf_t){&none, 0, NULL}, (c->rank - k + c->size) % c->size);
        mpi_sched_send(s, (mpi_tbuf_t){&none, 0, NULL}, (c->rank + k) % c->size);
        mpi_sched_fence(s);
    }
    return mpi_nbc_start(s, c, "MPI_Ibarrier", request);
}

/* ---- Ibcast ------------------------------------------------------------------------------ */
int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request)
{
    int err;
    mpi_comm_t *c;
    mpi_type_t *t;
    mpi_sched_t *s;

    MPI_CHECK_ACTIVE("MPI_Ibcast");
    c = mpi_nbc_args("MPI_Ibcast", comm, request, &err);
    if (c == NULL) {
        return err;
    }
    if (c->inter) {
        return mpi_nbc_inter_bcast(c, buffer, count, datatype, root, request);
    }
    if ((err = mpi_nbc_check_buf(c, "MPI_Ibcast", buffer, count, datatype, &t, "the buffer")) !=
            MPI_SUCCESS ||
        (err = mpi_nbc_check_root(c, "MPI_Ibcast", root)) != MPI_SUCCESS) {
        return err;
    }
    if ((s = mpi_sched_new(c, "MPI_Ibcast", &err)) == NULL) {
        return err;
    }
    mpi_nbc_bcast_tree(s, c, (mpi_tbuf_t){buffer, (size_t)count, t}, root);
    return mpi_nbc_start(s, c, "MPI_Ibcast", request);
}

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

/* Checks the arguments of a rooted data collective; *st_p and *rt_p: the types that matter on
 * this rank (NULL for one that does not). gather: the n-block buffer is the receive one. */
static int rooted_check(mpi_comm_t *c, const char *call, const rooted_args_t *a, bool gather,
                        mpi_type_t **st_p, mpi_type_t **rt_p)
{
    bool at_root = c->rank == a->root;
    int err = mpi_nbc_check_root(c, call, a->root);

    *st_p = *rt_p = NULL;
    if (err != MPI_SUCCESS) {
        return err;
    }
    if (gather) { /* sbuf: everybody's, MPI_IN_PLACE at the root; rbuf: the root's */
        if (!(at_root && a->sbuf == MPI_IN_PLACE)) {
            err = mpi_nbc_check_buf(c, call, a->sbuf, a->scount, a->sdt, st_p, "sendbuf");
        }
        if (err == MPI_SUCCESS && at_root) {
            err = mpi_nbc_check_buf(c, call, a->rbuf, a->rcount, a->rdt, rt_p, "recvbuf");
        }
        return err;
    }
    if (at_root) { /* scatter: sbuf the root's; rbuf everybody's, MPI_IN_PLACE at the root */
        err = mpi_nbc_check_buf(c, call, a->sbuf, a->scount, a->sdt, st_p, "sendbuf");
    }
    if (err == MPI_SUCCESS && !(at_root && a->rbuf == MPI_IN_PLACE)) {
        err = mpi_nbc_check_buf(c, call, a->rbuf, a->rcount, a->rdt, rt_p, "recvbuf");
    }
    return err;
}

static int rooted(const char *call, const rooted_args_t *a, bool gather, MPI_Comm comm,
                  MPI_Request *request)
{
    int err;
    mpi_comm_t *c = mpi_nbc_args(call, comm, request, &err);
    mpi_type_t *st, *rt;
    mpi_sched_t *s;

    if (c != NULL && c->inter) {
        return mpi_nbc_inter_rooted(c, call, gather, a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount,
                                    a->rdt, a->root, request);
    }
    if (c == NULL || (err = rooted_check(c, call, a, gather, &st, &rt)) != MPI_SUCCESS ||
        (s = mpi_sched_new(c, call, &err)) == NULL) {
        return err;
    }
    if (c->rank != a->root) {
        if (gather) {
            mpi_sched_send(s, (mpi_tbuf_t){(void *)a->sbuf, (size_t)a->scount, st}, a->root);
        } else {
            mpi_sched_recv(s, (mpi_tbuf_t){a->rbuf, (size_t)a->rcount, rt}, a->root);
        }
        return mpi_nbc_start(s, c, call, request);
    }
    for (int i = 0; i < c->size; i++) {
        if (i == a->root) {
            continue;
        }
        if (gather) {
            mpi_sched_recv(s, mpi_nbc_block(a->rbuf, i, a->rcount, rt), i);
        } else {
            mpi_sched_send(s, mpi_nbc_block(a->sbuf, i, a->scount, st), i);
        }
    }
    /* the root's own block */
    if (gather && a->sbuf != MPI_IN_PLACE) {
        mpi_sched_copy(s, (mpi_tbuf_t){(void *)a->sbuf, (size_t)a->scount, st},
                       mpi_nbc_block(a->rbuf, a->root, a->rcount, rt));
    } else if (!gather && a->rbuf != MPI_IN_PLACE) {
        mpi_sched_copy(s, mpi_nbc_block(a->sbuf, a->root, a->scount, st),
                       (mpi_tbuf_t){a->rbuf, (size_t)a->rcount, rt});
    }
    return mpi_nbc_start(s, c, call, request);
}

int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    rooted_args_t a = {sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root};

    MPI_CHECK_ACTIVE("MPI_Igather");
    return rooted("MPI_Igather", &a, true, comm, request);
}

int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    rooted_args_t a = {sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root};

    MPI_CHECK_ACTIVE("MPI_Iscatter");
    return rooted("MPI_Iscatter", &a, false, comm, request);
}

/* ---- Iallgather, Ialltoall --------------------------------------------------------------- */

/* Checks sendbuf (may be MPI_IN_PLACE) and recvbuf of an all-to-all pattern. */
static int all_check(mpi_comm_t *c, const char *call, const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     mpi_type_t **st_p, mpi_type_t **rt_p)
{
    int err = MPI_SUCCESS;

    *st_p = NULL;
    if (sendbuf != MPI_IN_PLACE) {
        err = mpi_check_buf(c, call, sendbuf, sendcount, sendtype, st_p);
    }
    if (err == MPI_SUCCESS) {
        err = mpi_nbc_check_buf(c, call, recvbuf, recvcount, recvtype, rt_p, "recvbuf");
    }
    return err;
}

int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    int err, n, r;
    mpi_comm_t *c;
    mpi_type_t *st, *rt;
    mpi_sched_t *s;

    MPI_CHECK_ACTIVE("MPI_Iallgather");
    c = mpi_nbc_args("MPI_Iallgather", comm, request, &err);
    if (c != NULL && c->inter) {
        return mpi_nbc_inter_all(c, "MPI_Iallgather", false, sendbuf, sendcount, sendtype, recvbuf,
                                 recvcount, recvtype, request);
    }
    if (c == NULL ||
        (err = all_check(c, "MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         recvtype, &st, &rt)) != MPI_SUCCESS ||
        (s = mpi_sched_new(c, "MPI_Iallgather", &err)) == NULL) {
        return err;
    }
    n = c->size;
    r = c->rank;
    if (sendbuf != MPI_IN_PLACE) {
        mpi_sched_copy(s, (mpi_tbuf_t){(void *)sendbuf, (size_t)sendcount, st},
                       mpi_nbc_block(recvbuf, r, recvcount, rt));
        mpi_sched_fence(s);
    }
    /* round k: pass block r - k to the right, take block r - k - 1 from the left */
    for (int k = 0; k < n - 1; k++) {
        mpi_sched_recv(s, mpi_nbc_block(recvbuf, (r - k - 1 + 2 * n) % n, recvcount, rt),
                       (r - 1 + n) % n);
        mpi_sched_send(s, mpi_nbc_block(recvbuf, (r - k + n) % n, recvcount, rt), (r + 1) % n);
        mpi_sched_fence(s);
    }
    return mpi_nbc_start(s, c, "MPI_Iallgather", request);
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    int err, n, r;
    mpi_comm_t *c;
    mpi_type_t *st, *rt;
    mpi_sched_t *s;

    MPI_CHECK_ACTIVE("MPI_Ialltoall");
    c = mpi_nbc_args("MPI_Ialltoall", comm, request, &err);
    if (c != NULL && c->inter) {
        return mpi_nbc_inter_all(c, "MPI_Ialltoall", true, sendbuf, sendcount, sendtype, recvbuf,
                                 recvcount, recvtype, request);
    }
    if (c == NULL ||
        (err = all_check(c, "MPI_Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         recvtype, &st, &rt)) != MPI_SUCCESS ||
        (s = mpi_sched_new(c, "MPI_Ialltoall", &err)) == NULL) {
        return err;
    }
    n = c->size;
    r = c->rank;
    if (sendbuf == MPI_IN_PLACE) {
        /* what goes out is copied (packed) first: the receives overwrite recvbuf */
        size_t blk = mpi_type_size(rt) * (size_t)recvcount;
        char *packed = mpi_sched_alloc(s, blk * (size_t)n);

        mpi_sched_copy(s, (mpi_tbuf_t){recvbuf, (size_t)recvcount * (size_t)n, rt},
                       (mpi_tbuf_t){packed, blk * (size_t)n, NULL});
        for (int i = 0; i < n; i++) {
            if (i != r) {
                mpi_sched_recv(s, mpi_nbc_block(recvbuf, i, recvcount, rt), i);
                mpi_sched_send(s, (mpi_tbuf_t){packed + blk * (size_t)i, blk, NULL}, i);
            }
        }
        return mpi_nbc_start(s, c, "MPI_Ialltoall", request);
    }
    for (int i = 0; i < n; i++) {
        if (i != r) {
            mpi_sched_recv(s, mpi_nbc_block(recvbuf, i, recvcount, rt), i);
            mpi_sched_send(s, mpi_nbc_block(sendbuf, i, sendcount, st), i);
        }
    }
    mpi_sched_copy(s, mpi_nbc_block(sendbuf, r, sendcount, st),
                   mpi_nbc_block(recvbuf, r, recvcount, rt));
    return mpi_nbc_start(s, c, "MPI_Ialltoall", request);
}
