/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blocking collectives over an intercommunicator (see mpi_inter.c for its layout). Data
 * travels packed: across the groups as p2p on coll_rc (remote rank r is r + peer_off there),
 * within a group with rcmsg's byte collectives on local_rc. Root arguments: MPI_ROOT at the
 * root, MPI_PROC_NULL at the other ranks of its group, the root's rank in the remote group at
 * the ranks of the other group.
 *
 *   bcast:     root --> remote rank 0 --(bcast in its group)--> every remote rank
 *   gather:    every remote rank --> root;  scatter: the reverse
 *   allgather: each group gathers at its rank 0; the rank 0s swap; each broadcasts the other's
 *   barrier:   barrier in each group; the rank 0s swap an empty message; barrier in each group
 *   allreduce: each group reduces at its rank 0 (rcmsg_reduce on local_rc, rank order kept for
 *              non-commutative ops); the rank 0s swap; each broadcasts the other's result
 *   reduce:    the other group reduces at its rank 0 (as allreduce), which sends to the root
 *   reduce_scatter(_block): as allreduce, then each rank 0 scatters the other group's result
 *              over its own group by its recvcounts
 *   alltoall(v/w), gatherv, scatterv, allgatherv: one message per pair of ranks that has data
 *              to move (all receives posted, then all sends, then one waitall)
 * MPI_IN_PLACE is not allowed over an intercommunicator (MPI says so). Reductions take the
 * operation and datatype of mpi_op_rcmsg_any, so any datatype the operation takes works.
 */
#include "mpi/mpi_engines.h"

#include <limits.h>
#include <stdlib.h>

enum {
    TAG_BARRIER = 1,
    TAG_BCAST,
    TAG_GATHER,
    TAG_SCATTER,
    TAG_ALLGATHER,
    TAG_ALLREDUCE,
    TAG_REDUCE,
    TAG_XFER,
    TAG_RSCATTER
};

/* A buffer of packed data: the user's own when the type is contiguous, else a temporary. */
typedef struct {
    char *data;
    size_t len;
    bool tmp;
} packed_t;

static rcmsg_status_t packed_get(mpi_type_t *t, void *buf, size_t count, bool pack, packed_t *p)
{
    p->len = mpi_type_size(t) * count;
    p->tmp = !mpi_type_is_contig(t);
    if (!p->tmp) {
        p->data = (char *)buf + mpi_type_true_lb(t);
        return RCMSG_OK;
    }
    p->data = malloc(p->len ? p->len : 1);
    if (p->data == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    if (pack) {
        mpi_type_pack(t, buf, count, p->data);
    }
    return RCMSG_OK;
}

/* unpacks into buf when the data was in a temporary, and frees it */
static void packed_put(mpi_type_t *t, void *buf, size_t count, bool unpack, packed_t *p)
{
    if (p->tmp) {
        if (unpack) {
            mpi_type_unpack(t, p->data, count, buf);
        }
        free(p->data);
    }
}

static int inter_fail(mpi_comm_t *c, const char *call, rcmsg_status_t s)
{
    return s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(c, call, s);
}

static int buf_check(mpi_comm_t *c, const char *call, const void *buf, int count, MPI_Datatype dt)
{
    return mpi_inter_check_buf(c, call, buf, count, dt, NULL);
}

int mpi_inter_barrier(mpi_comm_t *c)
{
    rcmsg_status_t s = rcmsg_barrier(c->local_rc);

    if (s == RCMSG_OK && c->rank == 0) {
        s = rcmsg_sendrecv(NULL, 0, c->peer_off, TAG_BARRIER, NULL, 0, c->peer_off, TAG_BARRIER,
                           c->coll_rc, NULL);
    }
    if (s == RCMSG_OK) {
        s = rcmsg_barrier(c->local_rc);
    }
    return inter_fail(c, "MPI_Barrier", s);
}

int mpi_inter_bcast(mpi_comm_t *c, void *buf, int count, MPI_Datatype dt, int root)
{
    const char *call = "MPI_Bcast";
    mpi_type_t *t;
    int err = mpi_inter_check_root(c, call, root);
    packed_t p;
    rcmsg_status_t s;

    if (err != MPI_SUCCESS || root == MPI_PROC_NULL ||
        (err = buf_check(c, call, buf, count, dt)) != MPI_SUCCESS) {
        return err;
    }
    t = mpi_type_get(dt);
    s = packed_get(t, buf, (size_t)count, root == MPI_ROOT, &p);
    if (s == RCMSG_OK && root == MPI_ROOT) {
        s = rcmsg_send(p.data, p.len, c->peer_off, TAG_BCAST, c->coll_rc);
    } else if (s == RCMSG_OK) {
        if (c->rank == 0) {
            s = rcmsg_recv(p.data, p.len, c->peer_off + root, TAG_BCAST, c->coll_rc, NULL);
        }
        if (s == RCMSG_OK) {
            s = rcmsg_bcast(p.data, p.len, RCMSG_UINT8, 0, c->local_rc);
        }
    }
    packed_put(t, buf, (size_t)count, s == RCMSG_OK && root != MPI_ROOT, &p);
    return inter_fail(c, call, s);
}

/* gather (to_root) or scatter: the root's side, one message per remote rank */
static rcmsg_status_t root_side(mpi_comm_t *c, bool to_root, void *buf, int count, mpi_type_t *t)
{
    size_t n = (size_t)count * (size_t)c->remote_size;
    rcmsg_request_t *reqs = calloc((size_t)c->remote_size + 1, sizeof(*reqs));
    size_t block = mpi_type_size(t) * (size_t)count;
    rcmsg_status_t s;
    packed_t p;

    if (reqs == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    s = packed_get(t, buf, n, !to_root, &p);
    for (int r = 0; s == RCMSG_OK && r < c->remote_size; r++) {
        s = to_root ? rcmsg_irecv(p.data + block * (size_t)r, block, c->peer_off + r, TAG_GATHER,
                                  c->coll_rc, &reqs[r])
                    : rcmsg_isend(p.data + block * (size_t)r, block, c->peer_off + r, TAG_SCATTER,
                                  c->coll_rc, &reqs[r]);
    }
    if (p.data != NULL || !p.tmp) {
        rcmsg_status_t w = rcmsg_waitall((size_t)c->remote_size, reqs, NULL);

        s = s == RCMSG_OK ? w : s;
        packed_put(t, buf, n, s == RCMSG_OK && to_root, &p);
    }
    free(reqs);
    return s;
}

/* gather (to_root) or scatter: a remote rank's side, one message to or from the root */
static rcmsg_status_t leaf_side(mpi_comm_t *c, bool to_root, void *buf, int count, mpi_type_t *t,
                                int root)
{
    packed_t p;
    rcmsg_status_t s = packed_get(t, buf, (size_t)count, to_root, &p);

    if (s != RCMSG_OK) {
        return s;
    }
    s = to_root ? rcmsg_send(p.data, p.len, c->peer_off + root, TAG_GATHER, c->coll_rc)
                : rcmsg_recv(p.data, p.len, c->peer_off + root, TAG_SCATTER, c->coll_rc, NULL);
    packed_put(t, buf, (size_t)count, s == RCMSG_OK && !to_root, &p);
    return s;
}

int mpi_inter_gather(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root)
{
    int err = mpi_inter_check_root(c, "MPI_Gather", root);
    rcmsg_status_t s = RCMSG_OK;

    if (err == MPI_SUCCESS && root != MPI_PROC_NULL) {
        err = root == MPI_ROOT ? buf_check(c, "MPI_Gather", recvbuf, recvcount, recvtype)
                               : buf_check(c, "MPI_Gather", sendbuf, sendcount, sendtype);
    }
    if (err != MPI_SUCCESS || root == MPI_PROC_NULL) {
        return err;
    }
    if (root == MPI_ROOT) {
        s = root_side(c, true, recvbuf, recvcount, mpi_type_get(recvtype));
    } else {
        s = leaf_side(c, true, (void *)sendbuf, sendcount, mpi_type_get(sendtype), root);
    }
    return inter_fail(c, "MPI_Gather", s);
}

int mpi_inter_scatter(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root)
{
    int err = mpi_inter_check_root(c, "MPI_Scatter", root);
    rcmsg_status_t s = RCMSG_OK;

    if (err == MPI_SUCCESS && root != MPI_PROC_NULL) {
        err = root == MPI_ROOT ? buf_check(c, "MPI_Scatter", sendbuf, sendcount, sendtype)
                               : buf_check(c, "MPI_Scatter", recvbuf, recvcount, recvtype);
    }
    if (err != MPI_SUCCESS || root == MPI_PROC_NULL) {
        return err;
    }
    if (root == MPI_ROOT) {
        s = root_side(c, false, (void *)sendbuf, sendcount, mpi_type_get(sendtype));
    } else {
        s = leaf_side(c, false, recvbuf, recvcount, mpi_type_get(recvtype), root);
    }
    return inter_fail(c, "MPI_Scatter", s);
}

/* Each group's packed blocks gathered at its rank 0 (mine: size * sendbytes), swapped with
 * the other rank 0 (theirs: remote_size * recvbytes), broadcast in the group. */
static rcmsg_status_t swap_groups(mpi_comm_t *c, const packed_t *one, char *mine, char *theirs,
                                  size_t theirs_len, int tag)
{
    rcmsg_status_t s = rcmsg_gather(one->data, mine, one->len, RCMSG_UINT8, 0, c->local_rc);

    if (s == RCMSG_OK && c->rank == 0) {
        s = rcmsg_sendrecv(mine, one->len * (size_t)c->size, c->peer_off, tag, theirs, theirs_len,
                           c->peer_off, tag, c->coll_rc, NULL);
    }
    if (s == RCMSG_OK) {
        s = rcmsg_bcast(theirs, theirs_len, RCMSG_UINT8, 0, c->local_rc);
    }
    return s;
}

int mpi_inter_allgather(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype)
{
    mpi_type_t *st = mpi_type_get(sendtype), *rt = mpi_type_get(recvtype);
    size_t nrecv = (size_t)recvcount * (size_t)c->remote_size;
    packed_t one, all;
    char *mine = NULL;
    rcmsg_status_t s;
    int err;

    if ((err = buf_check(c, "MPI_Allgather", sendbuf, sendcount, sendtype)) != MPI_SUCCESS ||
        (err = buf_check(c, "MPI_Allgather", recvbuf, recvcount, recvtype)) != MPI_SUCCESS) {
        return err;
    }
    s = packed_get(st, (void *)sendbuf, (size_t)sendcount, true, &one);
    if (s != RCMSG_OK) {
        return inter_fail(c, "MPI_Allgather", s);
    }
    s = packed_get(rt, recvbuf, nrecv, false, &all);
    if (s == RCMSG_OK && c->rank == 0) {
        mine = malloc(one.len * (size_t)c->size + 1);
        s = mine == NULL ? RCMSG_ERR_NO_MEMORY : RCMSG_OK;
    }
    if (s == RCMSG_OK) {
        s = swap_groups(c, &one, mine, all.data, all.len, TAG_ALLGATHER);
    }
    if (all.data != NULL || !all.tmp) {
        packed_put(rt, recvbuf, nrecv, s == RCMSG_OK, &all);
    }
    packed_put(st, (void *)sendbuf, (size_t)sendcount, false, &one);
    free(mine);
    return inter_fail(c, "MPI_Allgather", s);
}

/* This group's sendbufs (count elements, packed in one) reduced at its rank 0 into red (len
 * bytes there; NULL elsewhere): rcmsg_reduce on the local group with the operation and
 * datatype of mpi_op_rcmsg_any (rank order kept for a non-commutative one). */
static rcmsg_status_t group_reduce(mpi_comm_t *c, const packed_t *one, int count, MPI_Datatype dt,
                                   MPI_Op op, char *red, int *err_p)
{
    rcmsg_op_t rop;
    rcmsg_datatype_t rdt;
    size_t n;

    *err_p = mpi_op_rcmsg_any(op, dt, (size_t)count, &rop, &rdt, &n);
    if (*err_p != MPI_SUCCESS) {
        return RCMSG_ERR_NO_MEMORY;
    }
    if (count == 0 || one->len == 0) {
        return RCMSG_OK;
    }
    return rcmsg_reduce(one->data, red, n, rdt, rop, 0, c->local_rc);
}

int mpi_inter_allreduce(mpi_comm_t *c, const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype dt, MPI_Op op)
{
    const char *call = "MPI_Allreduce";
    mpi_type_t *t;
    packed_t one, res;
    char *red = NULL;
    rcmsg_status_t s;
    int err;

    if ((err = mpi_op_check(c, call, op, dt)) != MPI_SUCCESS ||
        (err = buf_check(c, call, sendbuf, count, dt)) != MPI_SUCCESS ||
        (err = buf_check(c, call, recvbuf, count, dt)) != MPI_SUCCESS) {
        return err;
    }
    t = mpi_type_get(dt);
    if ((s = packed_get(t, (void *)sendbuf, (size_t)count, true, &one)) != RCMSG_OK) {
        return inter_fail(c, call, s);
    }
    s = packed_get(t, recvbuf, (size_t)count, false, &res);
    if (s == RCMSG_OK && c->rank == 0) {
        red = malloc(one.len + 1);
        s = red == NULL ? RCMSG_ERR_NO_MEMORY : RCMSG_OK;
    }
    if (s == RCMSG_OK) {
        s = group_reduce(c, &one, count, dt, op, red, &err);
    }
    if (s == RCMSG_OK && c->rank == 0) {
        s = rcmsg_sendrecv(red, one.len, c->peer_off, TAG_ALLREDUCE, res.data, res.len, c->peer_off,
                           TAG_ALLREDUCE, c->coll_rc, NULL);
    }
    if (s == RCMSG_OK) {
        s = rcmsg_bcast(res.data, res.len, RCMSG_UINT8, 0, c->local_rc);
    }
    if (res.data != NULL || !res.tmp) {
        packed_put(t, recvbuf, (size_t)count, s == RCMSG_OK, &res);
    }
    packed_put(t, (void *)sendbuf, (size_t)count, false, &one);
    free(red);
    if (err != MPI_SUCCESS) {
        return mpi_err(c, call, err, "the operation failed");
    }
    return inter_fail(c, call, s);
}

/* Reduce: the root's group receives from rank 0 of the other group what it reduced there */
int mpi_inter_reduce(mpi_comm_t *c, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
                     MPI_Op op, int root)
{
    const char *call = "MPI_Reduce";
    mpi_type_t *t;
    packed_t p;
    char *red = NULL;
    rcmsg_status_t s;
    int err = mpi_inter_check_root(c, call, root);

    if (err != MPI_SUCCESS || root == MPI_PROC_NULL ||
        (err = mpi_op_check(c, call, op, dt)) != MPI_SUCCESS ||
        (err = buf_check(c, call, root == MPI_ROOT ? recvbuf : sendbuf, count, dt)) !=
            MPI_SUCCESS) {
        return err;
    }
    t = mpi_type_get(dt);
    if (root == MPI_ROOT) {
        if ((s = packed_get(t, recvbuf, (size_t)count, false, &p)) == RCMSG_OK) {
            s = rcmsg_recv(p.data, p.len, c->peer_off, TAG_REDUCE, c->coll_rc, NULL);
            packed_put(t, recvbuf, (size_t)count, s == RCMSG_OK, &p);
        }
        return inter_fail(c, call, s);
    }
    if ((s = packed_get(t, (void *)sendbuf, (size_t)count, true, &p)) != RCMSG_OK) {
        return inter_fail(c, call, s);
    }
    if (c->rank == 0) {
        red = malloc(p.len + 1);
        s = red == NULL ? RCMSG_ERR_NO_MEMORY : RCMSG_OK;
    }
    if (s == RCMSG_OK) {
        s = group_reduce(c, &p, count, dt, op, red, &err);
    }
    if (s == RCMSG_OK && c->rank == 0) {
        s = rcmsg_send(red, p.len, c->peer_off + root, TAG_REDUCE, c->coll_rc);
    }
    packed_put(t, (void *)sendbuf, (size_t)count, false, &p);
    free(red);
    if (err != MPI_SUCCESS) {
        return mpi_err(c, call, err, "the operation failed");
    }
    return inter_fail(c, call, s);
}

/* ---- exchanges of blocks with remote ranks (alltoall, the v/w ones) ------------------------ */
typedef struct {
    char *buf;
    int count;
    MPI_Datatype dt;
    int peer; /* a rank of the remote group */
} xblk_t;

/* every block checked, then all receives posted, all sends posted, all waited for */
static int xfer(mpi_comm_t *c, const char *call, xblk_t *b, int nsend, int nrecv)
{
    int n = nsend + nrecv, posted = 0, err = MPI_SUCCESS;
    rcmsg_request_t *reqs = calloc((size_t)n + 1, sizeof(*reqs));
    packed_t *p = calloc((size_t)n + 1, sizeof(*p));
    rcmsg_status_t s = RCMSG_OK;

    for (int i = 0; i < n && err == MPI_SUCCESS; i++) {
        err = buf_check(c, call, b[i].buf, b[i].count, b[i].dt);
    }
    if (err != MPI_SUCCESS || reqs == NULL || p == NULL) {
        free(reqs);
        free(p);
        return err != MPI_SUCCESS ? err : mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int k = 0; k < n && s == RCMSG_OK; k++) { /* receives (after the sends in b) first */
        int i = (k + nsend) % n;
        bool send = i < nsend;
        mpi_type_t *t = mpi_type_get(b[i].dt);

        s = packed_get(t, b[i].buf, (size_t)b[i].count, send, &p[i]);
        if (s == RCMSG_OK) {
            s = send ? rcmsg_isend(p[i].data, p[i].len, c->peer_off + b[i].peer, TAG_XFER,
                                   c->coll_rc, &reqs[posted])
                     : rcmsg_irecv(p[i].data, p[i].len, c->peer_off + b[i].peer, TAG_XFER,
                                   c->coll_rc, &reqs[posted]);
            posted += s == RCMSG_OK;
        }
    }
    if (posted > 0) {
        rcmsg_status_t w = rcmsg_waitall((size_t)posted, reqs, NULL);

        s = s == RCMSG_OK ? w : s;
    }
    for (int i = 0; i < n; i++) {
        if (p[i].data != NULL || (p[i].len > 0 && !p[i].tmp)) {
            packed_put(mpi_type_get(b[i].dt), b[i].buf, (size_t)b[i].count,
                       s == RCMSG_OK && i >= nsend, &p[i]);
        }
    }
    free(reqs);
    free(p);
    return inter_fail(c, call, s);
}

static xblk_t *xblk_alloc(mpi_comm_t *c, const char *call, size_t n, int *err_p)
{
    xblk_t *b = calloc(n + 1, sizeof(*b));

    *err_p = b == NULL ? mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory") : MPI_SUCCESS;
    return b;
}

static char *at_elem(const void *buf, int displ, MPI_Datatype dt)
{
    mpi_type_t *t = mpi_type_get(dt);

    return (char *)buf + (t != NULL ? (MPI_Aint)displ * mpi_type_extent(t) : 0);
}

/* Alltoallw's general form: block i of the send side goes to remote rank i, block i of the
 * receive side comes from remote rank i; displacements in bytes (w) or elements */
static int inter_alltoall_any(mpi_comm_t *c, const char *call, const void *sendbuf, const int *sc,
                              const int *sd, const MPI_Datatype *st, void *recvbuf, const int *rc,
                              const int *rd, const MPI_Datatype *rt, bool bytes)
{
    int n = c->remote_size, err;
    xblk_t *b;

    if (sendbuf == MPI_IN_PLACE) {
        return buf_check(c, call, sendbuf, 0, MPI_BYTE);
    }
    if ((err = coll_check_counts(c, call, sc, sd, "send")) != MPI_SUCCESS ||
        (err = coll_check_counts(c, call, rc, rd, "receive")) != MPI_SUCCESS) {
        return err;
    }
    if (st == NULL || rt == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL datatypes");
    }
    if ((b = xblk_alloc(c, call, 2 * (size_t)n, &err)) == NULL) {
        return err;
    }
    for (int i = 0; i < n; i++) {
        MPI_Datatype sdt = st[bytes ? i : 0], rdt = rt[bytes ? i : 0];

        b[i] =
            (xblk_t){bytes ? (char *)sendbuf + sd[i] : at_elem(sendbuf, sd[i], sdt), sc[i], sdt, i};
        b[n + i] =
            (xblk_t){bytes ? (char *)recvbuf + rd[i] : at_elem(recvbuf, rd[i], rdt), rc[i], rdt, i};
    }
    err = xfer(c, call, b, n, n);
    free(b);
    return err;
}

int mpi_inter_alltoallv(mpi_comm_t *c, const void *sendbuf, const int *sc, const int *sd,
                        MPI_Datatype st, void *recvbuf, const int *rc, const int *rd,
                        MPI_Datatype rt)
{
    return inter_alltoall_any(c, "MPI_Alltoallv", sendbuf, sc, sd, &st, recvbuf, rc, rd, &rt,
                              false);
}

int mpi_inter_alltoallw(mpi_comm_t *c, const void *sendbuf, const int *sc, const int *sd,
                        const MPI_Datatype *st, void *recvbuf, const int *rc, const int *rd,
                        const MPI_Datatype *rt)
{
    return inter_alltoall_any(c, "MPI_Alltoallw", sendbuf, sc, sd, st, recvbuf, rc, rd, rt, true);
}

int mpi_inter_alltoall(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype)
{
    const char *call = "MPI_Alltoall";
    int n = c->remote_size, err;
    xblk_t *b;

    if (sendbuf == MPI_IN_PLACE) {
        return buf_check(c, call, sendbuf, 0, MPI_BYTE);
    }
    if ((b = xblk_alloc(c, call, 2 * (size_t)n, &err)) == NULL) {
        return err;
    }
    for (int i = 0; i < n; i++) {
        b[i] = (xblk_t){at_elem(sendbuf, i * sendcount, sendtype), sendcount, sendtype, i};
        b[n + i] = (xblk_t){at_elem(recvbuf, i * recvcount, recvtype), recvcount, recvtype, i};
    }
    err = xfer(c, call, b, n, n);
    free(b);
    return err;
}

/* Gatherv (to_root) and Scatterv: the root exchanges block i with remote rank i, a rank of the
 * other group its one block with the root */
static int inter_v_root(mpi_comm_t *c, const char *call, bool to_root, void *rootbuf,
                        const int *counts, const int *displs, MPI_Datatype rootdt, void *buf,
                        int count, MPI_Datatype dt, int root)
{
    int n = c->remote_size, err = mpi_inter_check_root(c, call, root);
    xblk_t *b;

    if (err != MPI_SUCCESS || root == MPI_PROC_NULL) {
        return err;
    }
    if (root != MPI_ROOT) {
        xblk_t one = {buf, count, dt, root};

        return xfer(c, call, &one, to_root, !to_root);
    }
    if ((err = coll_check_counts(c, call, counts, displs, to_root ? "receive" : "send")) !=
            MPI_SUCCESS ||
        (b = xblk_alloc(c, call, (size_t)n, &err)) == NULL) {
        return err;
    }
    for (int i = 0; i < n; i++) {
        b[i] = (xblk_t){at_elem(rootbuf, displs[i], rootdt), counts[i], rootdt, i};
    }
    err = xfer(c, call, b, to_root ? 0 : n, to_root ? n : 0);
    free(b);
    return err;
}

int mpi_inter_gatherv(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int *recvcounts, const int *displs,
                      MPI_Datatype recvtype, int root)
{
    return inter_v_root(c, "MPI_Gatherv", true, recvbuf, recvcounts, displs, recvtype,
                        (void *)sendbuf, sendcount, sendtype, root);
}

int mpi_inter_scatterv(mpi_comm_t *c, const void *sendbuf, const int *sendcounts, const int *displs,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root)
{
    return inter_v_root(c, "MPI_Scatterv", false, (void *)sendbuf, sendcounts, displs, sendtype,
                        recvbuf, recvcount, recvtype, root);
}

/* Allgatherv: this rank's block to every remote rank, remote rank i's into displs[i] */
int mpi_inter_allgatherv(mpi_comm_t *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const int *recvcounts, const int *displs,
                         MPI_Datatype recvtype)
{
    const char *call = "MPI_Allgatherv";
    int n = c->remote_size, err;
    xblk_t *b;

    if (sendbuf == MPI_IN_PLACE) {
        return buf_check(c, call, sendbuf, 0, MPI_BYTE);
    }
    if ((err = coll_check_counts(c, call, recvcounts, displs, "receive")) != MPI_SUCCESS ||
        (b = xblk_alloc(c, call, 2 * (size_t)n, &err)) == NULL) {
        return err;
    }
    for (int i = 0; i < n; i++) {
        b[i] = (xblk_t){(char *)sendbuf, sendcount, sendtype, i};
        b[n + i] = (xblk_t){at_elem(recvbuf, displs[i], recvtype), recvcounts[i], recvtype, i};
    }
    err = xfer(c, call, b, n, n);
    free(b);
    return err;
}

/* Reduce_scatter: each group's sendbufs (sum of recvcounts elements, the same total in both
 * groups) reduced in rank order at its rank 0; the rank 0s swap their results; each scatters
 * the other group's result over its own group by recvcounts (its own group's counts). */
int mpi_inter_reduce_scatter(mpi_comm_t *c, const void *sendbuf, void *recvbuf,
                             const int *recvcounts, MPI_Datatype dt, MPI_Op op)
{
    const char *call = "MPI_Reduce_scatter";
    mpi_type_t *t;
    size_t total = 0, esize, off = 0;
    char *red = NULL, *theirs = NULL;
    rcmsg_request_t *reqs = NULL;
    packed_t one, mine;
    rcmsg_status_t s;
    int err;

    if (recvcounts == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL recvcounts");
    }
    for (int i = 0; i < c->size; i++) {
        if (recvcounts[i] < 0) {
            return mpi_err(c, call, MPI_ERR_COUNT, "negative count %d for rank %d", recvcounts[i],
                           i);
        }
        total += (size_t)recvcounts[i];
    }
    if (total > INT_MAX) {
        return mpi_err(c, call, MPI_ERR_COUNT, "recvcounts sum to more than INT_MAX");
    }
    if ((err = mpi_op_check(c, call, op, dt)) != MPI_SUCCESS ||
        (err = buf_check(c, call, sendbuf, (int)total, dt)) != MPI_SUCCESS ||
        (err = buf_check(c, call, recvbuf, recvcounts[c->rank], dt)) != MPI_SUCCESS) {
        return err;
    }
    t = mpi_type_get(dt);
    esize = mpi_type_size(t);
    if ((s = packed_get(t, (void *)sendbuf, total, true, &one)) != RCMSG_OK) {
        return inter_fail(c, call, s);
    }
    s = packed_get(t, recvbuf, (size_t)recvcounts[c->rank], false, &mine);
    if (s == RCMSG_OK && c->rank == 0) {
        red = malloc(one.len + 1);
        theirs = malloc(one.len + 1);
        reqs = calloc((size_t)c->size, sizeof(*reqs));
        s = red == NULL || theirs == NULL || reqs == NULL ? RCMSG_ERR_NO_MEMORY : RCMSG_OK;
    }
    if (s == RCMSG_OK) {
        s = group_reduce(c, &one, (int)total, dt, op, red, &err);
    }
    if (s == RCMSG_OK && c->rank == 0) {
        s = rcmsg_sendrecv(red, one.len, c->peer_off, TAG_RSCATTER, theirs, one.len, c->peer_off,
                           TAG_RSCATTER, c->coll_rc, NULL);
        for (int i = 0; s == RCMSG_OK && i < c->size; i++) { /* to local rank i */
            size_t len = esize * (size_t)recvcounts[i];

            s = rcmsg_isend(theirs + off, len, c->local_off + i, TAG_RSCATTER, c->coll_rc,
                            &reqs[i]);
            off += len;
        }
    }
    if (s == RCMSG_OK) {
        s = rcmsg_recv(mine.data, mine.len, c->local_off, TAG_RSCATTER, c->coll_rc, NULL);
    }
    if (c->rank == 0 && reqs != NULL && s == RCMSG_OK) {
        s = rcmsg_waitall((size_t)c->size, reqs, NULL);
    }
    if (mine.data != NULL || !mine.tmp) {
        packed_put(t, recvbuf, (size_t)recvcounts[c->rank], s == RCMSG_OK, &mine);
    }
    packed_put(t, (void *)sendbuf, total, false, &one);
    free(red);
    free(theirs);
    free(reqs);
    if (err != MPI_SUCCESS) {
        return mpi_err(c, call, err, "the operation failed");
    }
    return inter_fail(c, call, s);
}

int mpi_inter_reduce_scatter_block(mpi_comm_t *c, const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype dt, MPI_Op op)
{
    int *counts = malloc((size_t)c->size * sizeof(*counts)), err;

    if (counts == NULL) {
        return mpi_err(c, "MPI_Reduce_scatter_block", MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < c->size; i++) {
        counts[i] = recvcount;
    }
    err = mpi_inter_reduce_scatter(c, sendbuf, recvbuf, counts, dt, op);
    free(counts);
    return err;
}
