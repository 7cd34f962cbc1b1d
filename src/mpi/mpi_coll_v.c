/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The blocking collectives rcmsg has no algorithm for: the v and w variants (a linear
 * exchange of the blocks over point-to-point on the hidden communicator, each block packed
 * when its type is noncontiguous), Reduce_scatter and Reduce_scatter_block (rcmsg's when the
 * counts are equal and rcmsg knows the operation, else a reduction to rank 0 and a scatter),
 * Scan and Exscan (recursive doubling in rank order, as MPICH's: non-commutative operations
 * combine lower ranks first).
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>
#include <string.h>

/* count elements of t at buf: one block of a linear exchange */
typedef struct {
    const void *buf;
    size_t count;
    mpi_type_t *t;
} coll_blk_t;

static size_t blk_bytes(const coll_blk_t *b)
{
    return b->t != NULL ? mpi_type_size(b->t) * b->count : 0;
}

/* Sends send[i] to rank i and receives recv[i] from it (NULL arrays: nothing that way); this
 * rank's own block is copied. pack_sends: the send data lives in the receive buffer (in
 * place): every send is packed before any receive is posted. */
static int exchange(mpi_comm_t *c, const char *call, int tag, const coll_blk_t *send,
                    const coll_blk_t *recv, bool pack_sends)
{
    coll_xfer_t *x = calloc(2 * (size_t)c->size, sizeof(*x));
    mpi_type_t *byte = mpi_type_get(MPI_BYTE);
    int n = 0, err = x == NULL ? mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory") : MPI_SUCCESS;

    for (int i = 0; send != NULL && err == MPI_SUCCESS && i < c->size; i++) {
        size_t bytes = blk_bytes(&send[i]);
        char *tmp = NULL;

        if (i == c->rank || bytes == 0) {
            continue;
        }
        if (!pack_sends) {
            err = coll_xfer_post(c, call, &x[n++], false, send[i].buf, send[i].count, send[i].t, i,
                                 tag);
            continue;
        }
        tmp = malloc(bytes);
        if (tmp == NULL) {
            err = mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
            break;
        }
        mpi_type_pack(send[i].t, send[i].buf, send[i].count, tmp);
        err = coll_xfer_post(c, call, &x[n++], false, tmp, bytes, byte, i, tag);
        x[n - 1].tmp = tmp; /* freed by coll_xfer_wait */
    }
    for (int i = 0; recv != NULL && err == MPI_SUCCESS && i < c->size; i++) {
        if (i != c->rank && blk_bytes(&recv[i]) > 0) {
            err = coll_xfer_post(c, call, &x[n++], true, recv[i].buf, recv[i].count, recv[i].t, i,
                                 tag);
        }
    }
    if (err == MPI_SUCCESS && send != NULL && recv != NULL && blk_bytes(&send[c->rank]) > 0 &&
        !pack_sends) {
        err = coll_copy(send[c->rank].buf, send[c->rank].count, send[c->rank].t,
                        (void *)recv[c->rank].buf, recv[c->rank].count, recv[c->rank].t);
        if (err != MPI_SUCCESS) {
            err = mpi_err(c, call, err, "out of memory");
        }
    }
    if (x != NULL) {
        int werr = coll_xfer_wait(c, call, x, n);

        err = err != MPI_SUCCESS ? err : werr;
    }
    free(x);
    return err;
}

static coll_blk_t *blk_alloc(mpi_comm_t *c, const char *call, int *err_p)
{
    coll_blk_t *b = calloc(2 * (size_t)c->size, sizeof(*b));

    *err_p = b == NULL ? mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory") : MPI_SUCCESS;
    return b;
}

static const void *at(const void *buf, MPI_Aint elements, mpi_type_t *t)
{
    return (const char *)buf + elements * mpi_type_extent(t);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    static const char call[] = "MPI_Gatherv";
    coll_args_t a = {.shape = COLL_TO_ROOT,
                     .root = root,
                     .send = {sendbuf, sendcount, sendtype},
                     .recv = {recvbuf, 0, recvtype, true, recvcounts, displs}};
    coll_blk_t *b, *sb, *rb;
    bool is_root;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err, tag;

    if (ic != NULL) {
        return mpi_inter_gatherv(ic, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                 recvtype, root);
    }
    if ((c = coll_enter(comm, call, &a, &tag, &err)) == NULL ||
        (b = blk_alloc(c, call, &err)) == NULL) {
        return err;
    }
    is_root = c->rank == root;
    sb = b, rb = b + c->size;
    if (a.st != NULL) {
        sb[root] = (coll_blk_t){sendbuf, (size_t)sendcount, a.st};
    }
    for (int i = 0; is_root && i < c->size; i++) {
        rb[i] = (coll_blk_t){at(recvbuf, displs[i], a.rt), (size_t)recvcounts[i], a.rt};
    }
    err = exchange(c, call, tag, sb, is_root ? rb : NULL, false);
    free(b);
    return err;
}

int MPI_Scatterv(const void *sendbuf, const int *sendcounts, const int *displs,
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Scatterv";
    coll_args_t a = {.shape = COLL_FROM_ROOT,
                     .root = root,
                     .send = {sendbuf, 0, sendtype, true, sendcounts, displs},
                     .recv = {recvbuf, recvcount, recvtype}};
    coll_blk_t *b, *sb, *rb;
    bool is_root;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err, tag;

    if (ic != NULL) {
        return mpi_inter_scatterv(ic, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                  recvtype, root);
    }
    if ((c = coll_enter(comm, call, &a, &tag, &err)) == NULL ||
        (b = blk_alloc(c, call, &err)) == NULL) {
        return err;
    }
    is_root = c->rank == root;
    sb = b, rb = b + c->size;
    for (int i = 0; is_root && i < c->size; i++) {
        sb[i] = (coll_blk_t){at(sendbuf, displs[i], a.st), (size_t)sendcounts[i], a.st};
    }
    if (a.rt != NULL) {
        rb[root] = (coll_blk_t){recvbuf, (size_t)recvcount, a.rt};
    }
    err = exchange(c, call, tag, is_root ? sb : NULL, rb, false);
    free(b);
    return err;
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int *recvcounts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char call[] = "MPI_Allgatherv";
    coll_args_t a = {.shape = COLL_ALL,
                     .send = {sendbuf, sendcount, sendtype},
                     .recv = {recvbuf, 0, recvtype, true, recvcounts, displs}};
    coll_blk_t *b, *sb, *rb, own;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err, tag;

    if (ic != NULL) {
        return mpi_inter_allgatherv(ic, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype);
    }
    if ((c = coll_enter(comm, call, &a, &tag, &err)) == NULL ||
        (b = blk_alloc(c, call, &err)) == NULL) {
        return err;
    }
    sb = b, rb = b + c->size;
    own = a.st != NULL
              ? (coll_blk_t){sendbuf, (size_t)sendcount, a.st}
              : (coll_blk_t){at(recvbuf, displs[c->rank], a.rt), (size_t)recvcounts[c->rank], a.rt};
    for (int i = 0; i < c->size; i++) {
        sb[i] = own;
        rb[i] = (coll_blk_t){at(recvbuf, displs[i], a.rt), (size_t)recvcounts[i], a.rt};
    }
    err = exchange(c, call, tag, sb, rb, false);
    free(b);
    return err;
}

/* Alltoallv and Alltoallw: displacements in elements (v) or bytes (w) */
static int alltoall_vw(mpi_comm_t *c, const char *call, int tag, const void *sendbuf,
                       const int *sendcounts, const int *sdispls, const MPI_Datatype *sendtypes,
                       void *recvbuf, const int *recvcounts, const int *rdispls,
                       const MPI_Datatype *recvtypes, bool bytes_displ)
{
    bool in_place = sendbuf == MPI_IN_PLACE;
    coll_blk_t *b, *sb, *rb;
    int err;

    if (in_place) { /* MPI: the data to send is in recvbuf, with the receive layout */
        sendcounts = recvcounts, sdispls = rdispls, sendtypes = recvtypes, sendbuf = recvbuf;
    }
    if ((b = blk_alloc(c, call, &err)) == NULL) {
        return err;
    }
    sb = b, rb = b + c->size;
    for (int i = 0; i < c->size && err == MPI_SUCCESS; i++) {
        mpi_type_t *st = NULL, *rt = NULL;

        if ((err = mpi_check_buf(c, call, sendbuf, sendcounts[i], sendtypes[bytes_displ ? i : 0],
                                 &st)) != MPI_SUCCESS ||
            (err = mpi_check_buf(c, call, recvbuf, recvcounts[i], recvtypes[bytes_displ ? i : 0],
                                 &rt)) != MPI_SUCCESS) {
            break;
        }
        sb[i] = (coll_blk_t){bytes_displ ? (const char *)sendbuf + sdispls[i]
                                         : at(sendbuf, sdispls[i], st),
                             (size_t)sendcounts[i], st};
        rb[i] = (coll_blk_t){bytes_displ ? (const char *)recvbuf + rdispls[i]
                                         : at(recvbuf, rdispls[i], rt),
                             (size_t)recvcounts[i], rt};
    }
    if (err == MPI_SUCCESS) {
        err = exchange(c, call, tag, sb, rb, in_place);
    }
    free(b);
    return err;
}

static int check_vw_args(mpi_comm_t *c, const char *call, const void *sendbuf, const int *sc,
                         const int *sd, const void *st, const int *rc, const int *rd,
                         const void *rt)
{
    int err = MPI_SUCCESS;

    if (sendbuf != MPI_IN_PLACE &&
        ((err = coll_check_counts(c, call, sc, sd, "send")) != MPI_SUCCESS || st == NULL)) {
        return err != MPI_SUCCESS ? err : mpi_err(c, call, MPI_ERR_ARG, "NULL send types");
    }
    if ((err = coll_check_counts(c, call, rc, rd, "receive")) != MPI_SUCCESS || rt == NULL) {
        return err != MPI_SUCCESS ? err : mpi_err(c, call, MPI_ERR_ARG, "NULL receive types");
    }
    return MPI_SUCCESS;
}

/* Alltoallv (w false: one send type and one receive type) and Alltoallw */
static int alltoall_vw_call(const char *call, const void *sendbuf, const int *sc, const int *sd,
                            const MPI_Datatype *st, void *recvbuf, const int *rc, const int *rd,
                            const MPI_Datatype *rt, bool w, MPI_Comm comm)
{
    int err, tag;
    mpi_comm_t *c = coll_enter(comm, call, NULL, &tag, &err);

    if (c == NULL ||
        (err = check_vw_args(c, call, sendbuf, sc, sd, st, rc, rd, rt)) != MPI_SUCCESS) {
        return err;
    }
    return alltoall_vw(c, call, tag, sendbuf, sc, sd, st, recvbuf, rc, rd, rt, w);
}

int MPI_Alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                  MPI_Datatype sendtype, void *recvbuf, const int *recvcounts, const int *rdispls,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    mpi_comm_t *ic = mpi_inter_of(comm);

    if (ic != NULL) {
        return mpi_inter_alltoallv(ic, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype);
    }
    return alltoall_vw_call("MPI_Alltoallv", sendbuf, sendcounts, sdispls, &sendtype, recvbuf,
                            recvcounts, rdispls, &recvtype, false, comm);
}

int MPI_Alltoallw(const void *sendbuf, const int *sendcounts, const int *sdispls,
                  const MPI_Datatype *sendtypes, void *recvbuf, const int *recvcounts,
                  const int *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm)
{
    mpi_comm_t *ic = mpi_inter_of(comm);

    if (ic != NULL) {
        return mpi_inter_alltoallw(ic, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                   rdispls, recvtypes);
    }
    return alltoall_vw_call("MPI_Alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                            recvcounts, rdispls, recvtypes, true, comm);
}

/* ---- reduce-scatter ------------------------------------------------------------------------ */

/* The whole reduction to rank 0 (in: MPI_IN_PLACE when the input is in recvbuf), then a scatter of
 * counts[i] elements to rank i. */
static int reduce_scatter_layer(mpi_comm_t *c, const char *call, int tag, const void *in,
                                void *recvbuf, const int *counts, MPI_Datatype dt, MPI_Op op)
{
    mpi_type_t *t = mpi_type_get(dt);
    size_t total = 0;
    void *base = NULL, *all = NULL;
    coll_blk_t *b;
    int err;

    for (int i = 0; i < c->size; i++) {
        total += (size_t)counts[i];
    }
    if (total > (size_t)__INT_MAX__) {
        return mpi_err(c, call, MPI_ERR_COUNT, "%zu elements in all: more than an int", total);
    }
    if (c->rank == 0 && (all = coll_typed_alloc(dt, t, total, &base)) == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    err = coll_reduce(c, call, tag, in != MPI_IN_PLACE ? in : recvbuf, all, (int)total, dt, op, 0);
    if (err == MPI_SUCCESS && (b = blk_alloc(c, call, &err)) != NULL) {
        size_t off = 0;

        for (int i = 0; i < c->size; i++) {
            b[i] = (coll_blk_t){at(all, (MPI_Aint)off, t), (size_t)counts[i], t};
            off += (size_t)counts[i];
        }
        /* rank 0 sends block i to rank i (its own is copied); rank i receives it from 0 */
        if (c->rank == 0) {
            err = exchange(c, call, tag, b, NULL, false);
            if (err == MPI_SUCCESS) {
                err = coll_copy(b[0].buf, b[0].count, t, recvbuf, b[0].count, t);
                err = err == MPI_SUCCESS ? err : mpi_err(c, call, err, "out of memory");
            }
        } else {
            b[c->size] = (coll_blk_t){recvbuf, (size_t)counts[c->rank], t};
            err = exchange(c, call, tag, NULL, b + c->size, false);
        }
        free(b);
    }
    free(base);
    return err;
}

/* rcmsg's reduce_scatter_block: size * count elements in (packed), count out */
static int reduce_scatter_rcmsg(mpi_comm_t *c, const char *call, const void *sendbuf, void *recvbuf,
                                int count, mpi_type_t *t, rcmsg_op_t rop, rcmsg_datatype_t rdt)
{
    bool in_place = sendbuf == MPI_IN_PLACE;
    size_t n = mpi_type_size(t) * (size_t)count / rcmsg_datatype_size(rdt);
    size_t all = (size_t)count * (size_t)c->size;
    coll_buf_t vi = {0}, vo = {0};
    rcmsg_status_t s;
    int err;

    err = in_place ? coll_view_in(c, call, &vo, recvbuf, all, t)
                   : coll_view_in(c, call, &vi, sendbuf, all, t);
    if (err == MPI_SUCCESS && !in_place) {
        err = coll_view_out(c, call, &vo, recvbuf, (size_t)count, t);
    }
    if (err == MPI_SUCCESS) {
        s = rcmsg_reduce_scatter_block(in_place ? RCMSG_IN_PLACE : vi.p, vo.p, n, rdt, rop, c->rc);
        err = s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(c, call, s);
    }
    if (err == MPI_SUCCESS) {
        coll_view_done(&vo, recvbuf, (size_t)count, t);
    }
    coll_view_free(&vi);
    coll_view_free(&vo);
    return err;
}

/* Reduce_scatter(_block), its arguments checked: rcmsg's reduce_scatter_block when every count
 * is block (>= 0; counts may then be NULL) and rcmsg knows op on dt, else the MPI layer's. */
static int reduce_scatter_do(mpi_comm_t *c, const char *call, int tag, const void *sendbuf,
                             void *recvbuf, const int *counts, int block, MPI_Datatype dt,
                             MPI_Op op)
{
    mpi_type_t *t = mpi_type_get(dt);
    rcmsg_op_t rop;
    rcmsg_datatype_t rdt;
    int *own = NULL, err;

    if (block >= 0 && (block == 0 || mpi_type_size(t) == 0)) {
        return MPI_SUCCESS;
    }
    if (block >= 0 && mpi_op_rcmsg(op, dt, &rop, &rdt)) {
        return reduce_scatter_rcmsg(c, call, sendbuf, recvbuf, block, t, rop, rdt);
    }
    if (counts == NULL) {
        if ((own = malloc((size_t)c->size * sizeof(*own))) == NULL) {
            return mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
        }
        for (int i = 0; i < c->size; i++) {
            own[i] = block;
        }
        counts = own;
    }
    err = reduce_scatter_layer(c, call, tag, sendbuf, recvbuf, counts, dt, op);
    free(own);
    return err;
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce_scatter_block";
    coll_args_t a = {.shape = COLL_ALL,
                     .reduce = true,
                     .op = op,
                     .send = {sendbuf, recvcount, datatype},
                     .recv = {recvbuf, recvcount, datatype}};
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err, tag;

    if (ic != NULL) {
        return mpi_inter_reduce_scatter_block(ic, sendbuf, recvbuf, recvcount, datatype, op);
    }
    if ((c = coll_enter(comm, call, &a, &tag, &err)) == NULL) {
        return err;
    }
    return reduce_scatter_do(c, call, tag, sendbuf, recvbuf, NULL, recvcount, datatype, op);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce_scatter";
    coll_args_t a = {.shape = COLL_ALL,
                     .reduce = true,
                     .op = op,
                     .send = {sendbuf, 0, datatype},
                     .recv = {recvbuf, 0, datatype}};
    bool equal = true;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err, tag;

    if (ic != NULL) {
        return mpi_inter_reduce_scatter(ic, sendbuf, recvbuf, recvcounts, datatype, op);
    }
    if ((c = coll_enter(comm, call, NULL, &tag, &err)) == NULL) {
        return err;
    }
    if (recvcounts == NULL) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL recvcounts");
    }
    for (int i = 0; i < c->size; i++) {
        if (recvcounts[i] < 0) {
            return mpi_err(c, call, MPI_ERR_COUNT, "negative count %d for rank %d", recvcounts[i],
                           i);
        }
        equal = equal && recvcounts[i] == recvcounts[0];
    }
    a.send.count = a.recv.count = recvcounts[c->rank];
    if ((err = coll_check(c, call, &a)) != MPI_SUCCESS) {
        return err;
    }
    return reduce_scatter_do(c, call, tag, sendbuf, recvbuf, recvcounts, equal ? recvcounts[0] : -1,
                             datatype, op);
}

/* ---- scans --------------------------------------------------------------------------------- */
typedef struct {
    MPI_Datatype dt;
    mpi_type_t *t;
    MPI_Op op;
    int count;
    size_t bytes;
    void *partial, *tmp, *pbase, *tbase;
    char *ps, *pr; /* packed: sent, received */
} scan_t;

static void scan_free(scan_t *s)
{
    free(s->pbase);
    free(s->tbase);
    free(s->ps);
}

/* One exchange with peer: our partial for theirs (into s->tmp). */
static int scan_swap(mpi_comm_t *c, const char *call, rcmsg_comm_t rc, int tag, scan_t *s, int peer)
{
    rcmsg_status_t st;

    mpi_type_pack(s->t, s->partial, (size_t)s->count, s->ps);
    st = rcmsg_sendrecv(s->ps, s->bytes, peer, tag, s->pr, s->bytes, peer, tag, rc, NULL);
    if (st != RCMSG_OK) {
        return mpi_err_rcmsg(c, call, st);
    }
    mpi_type_unpack(s->t, s->pr, (size_t)s->count, s->tmp);
    return MPI_SUCCESS;
}

/* Folds what came from peer into partial (and recvbuf) in rank order. */
static int scan_fold(scan_t *s, bool from_lower, void *recvbuf, bool exclusive, bool *first_p)
{
    int err;

    if (!from_lower) { /* partial = partial op theirs */
        void *swap;

        if (mpi_op_commutative(s->op)) {
            return mpi_op_apply(s->op, s->tmp, s->partial, s->count, s->dt);
        }
        err = mpi_op_apply(s->op, s->partial, s->tmp, s->count, s->dt);
        swap = s->partial, s->partial = s->tmp, s->tmp = swap;
        return err;
    }
    err = mpi_op_apply(s->op, s->tmp, s->partial, s->count, s->dt);
    if (err == MPI_SUCCESS && exclusive && *first_p) {
        *first_p = false;
        return coll_copy(s->tmp, (size_t)s->count, s->t, recvbuf, (size_t)s->count, s->t);
    }
    return err != MPI_SUCCESS ? err : mpi_op_apply(s->op, s->tmp, recvbuf, s->count, s->dt);
}

/* Recursive doubling (MPICH's): after the step of mask, partial holds the reduction of the
 * 2 * mask ranks of this rank's block; recvbuf folds in those below this rank. */
static int scan_common(const char *call, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype dt, MPI_Op op, MPI_Comm comm, bool exclusive)
{
    coll_args_t a = {.shape = COLL_ALL,
                     .reduce = true,
                     .op = op,
                     .send = {sendbuf, count, dt},
                     .recv = {recvbuf, count, dt}};
    scan_t s = {.dt = dt, .op = op, .count = count};
    rcmsg_comm_t rc;
    bool first = true;
    int err, tag;
    mpi_comm_t *c = coll_enter(comm, call, &a, &tag, &err);

    if (c == NULL) {
        return err;
    }
    s.t = a.rt;
    s.bytes = mpi_type_size(s.t) * (size_t)count;
    if (s.bytes == 0 || (rc = mpi_coll_comm(c, call, &err)) == NULL) {
        return err;
    }
    s.partial = coll_typed_alloc(dt, s.t, (size_t)count, &s.pbase);
    s.tmp = coll_typed_alloc(dt, s.t, (size_t)count, &s.tbase);
    s.ps = malloc(2 * s.bytes);
    s.pr = s.ps + s.bytes;
    if (s.partial == NULL || s.tmp == NULL || s.ps == NULL) {
        scan_free(&s);
        return mpi_err(c, call, MPI_ERR_NO_MEM, "no memory for a scan of %zu bytes", s.bytes);
    }
    err = coll_copy(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, (size_t)count, s.t, s.partial,
                    (size_t)count, s.t);
    if (err == MPI_SUCCESS && !exclusive && sendbuf != MPI_IN_PLACE) {
        err = coll_copy(sendbuf, (size_t)count, s.t, recvbuf, (size_t)count, s.t);
    }
    err = err == MPI_SUCCESS ? err : mpi_err(c, call, err, "out of memory");
    for (int mask = 1; mask < c->size && err == MPI_SUCCESS; mask <<= 1) {
        int peer = c->rank ^ mask;

        if (peer < c->size && (err = scan_swap(c, call, rc, tag, &s, peer)) == MPI_SUCCESS) {
            err = scan_fold(&s, peer < c->rank, recvbuf, exclusive, &first);
            err = err == MPI_SUCCESS ? err : mpi_err(c, call, err, "the reduction failed");
        }
    }
    scan_free(&s);
    return err;
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm)
{
    return scan_common("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, false);
}

/* recvbuf of rank 0 is left as it is (MPI: undefined) */
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm)
{
    return scan_common("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, true);
}
