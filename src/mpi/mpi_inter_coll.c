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
 *   allreduce: each group gathers at its rank 0, which combines in rank order (mpi_op_apply:
 *              non-commutative ops too); the rank 0s swap; each broadcasts the other's result
 * MPI_IN_PLACE is not allowed over an intercommunicator (MPI says so). Allreduce takes
 * contiguous types only (another is refused naming the call).
 */
#include "mpi/mpi_impl.h"

#include <stdlib.h>

enum { TAG_BARRIER = 1, TAG_BCAST, TAG_GATHER, TAG_SCATTER, TAG_ALLGATHER, TAG_ALLREDUCE };

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

/* a root argument: MPI_ROOT, MPI_PROC_NULL or a remote rank */
static int root_check(mpi_comm_t *c, const char *call, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->remote_size)) {
        return MPI_SUCCESS;
    }
    return mpi_err(c, call, MPI_ERR_ROOT,
                   "invalid root %d over an intercommunicator (MPI_ROOT, MPI_PROC_NULL or a "
                   "rank of the remote group of %d)",
                   root, c->remote_size);
}

mpi_comm_t *mpi_inter_of(MPI_Comm comm)
{
    mpi_comm_t *c = mpi_state == MPI_STATE_ACTIVE ? mpi_comm_get(comm) : NULL;

    return c != NULL && c->inter ? c : NULL;
}

/* a buffer argument (IN_PLACE refused) */
static int buf_check(mpi_comm_t *c, const char *call, const void *buf, int count, MPI_Datatype dt)
{
    if (buf == MPI_IN_PLACE) {
        return mpi_err(c, call, MPI_ERR_BUFFER,
                       "MPI_IN_PLACE is not allowed over an intercommunicator");
    }
    return mpi_check_buf(c, call, buf, count, dt, NULL);
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
    int err = root_check(c, call, root);
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
    int err = root_check(c, "MPI_Gather", root);
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
    int err = root_check(c, "MPI_Scatter", root);
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

/* rank 0 of a group: blocks (size of them, len bytes each, packed) combined in rank order
 * into the last one: b[0] op (b[1] op (... op b[size - 1])) */
static int reduce_blocks(mpi_comm_t *c, char *blocks, size_t len, int count, MPI_Datatype dt,
                         MPI_Op op, MPI_Aint lb)
{
    char *acc = blocks + len * (size_t)(c->size - 1);

    for (int i = c->size - 2; i >= 0; i--) {
        int err = mpi_op_apply(op, blocks + len * (size_t)i - lb, acc - lb, count, dt);

        if (err != MPI_SUCCESS) {
            return err;
        }
    }
    return MPI_SUCCESS;
}

int mpi_inter_allreduce(mpi_comm_t *c, const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype dt, MPI_Op op)
{
    const char *call = "MPI_Allreduce";
    mpi_type_t *t = mpi_type_get(dt);
    size_t len;
    char *blocks = NULL, *lbuf;
    MPI_Aint lb;
    rcmsg_status_t s;
    int err;

    if ((err = mpi_op_check(c, call, op, dt)) != MPI_SUCCESS ||
        (err = buf_check(c, call, sendbuf, count, dt)) != MPI_SUCCESS ||
        (err = buf_check(c, call, recvbuf, count, dt)) != MPI_SUCCESS) {
        return err;
    }
    t = mpi_type_get(dt);
    if (!mpi_type_is_contig(t)) {
        return mpi_err(c, call, MPI_ERR_TYPE,
                       "a noncontiguous datatype over an intercommunicator is not supported");
    }
    lb = mpi_type_true_lb(t);
    len = mpi_type_size(t) * (size_t)count;
    if (c->rank == 0 && (blocks = malloc(len * (size_t)c->size + 1)) == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    s = rcmsg_gather((const char *)sendbuf + lb, blocks, len, RCMSG_UINT8, 0, c->local_rc);
    lbuf = (char *)recvbuf + lb;
    if (s == RCMSG_OK && c->rank == 0) {
        char *acc = blocks + len * (size_t)(c->size - 1);

        /* on an error of the operation the other group and this one still take part (with
         * this group's data unreduced): the error is raised below, nothing waits */
        err = reduce_blocks(c, blocks, len, count, dt, op, lb);
        s = rcmsg_sendrecv(acc, len, c->peer_off, TAG_ALLREDUCE, lbuf, len, c->peer_off,
                           TAG_ALLREDUCE, c->coll_rc, NULL);
    }
    if (s == RCMSG_OK) {
        s = rcmsg_bcast(lbuf, len, RCMSG_UINT8, 0, c->local_rc);
    }
    free(blocks);
    if (err != MPI_SUCCESS) {
        return mpi_err(c, call, err, "the operation failed");
    }
    return inter_fail(c, call, s);
}
