/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The v and w variants, Reduce_scatter(_block), Scan and Exscan: bindings over rcmsg's
 * (rcmsg_gatherv, rcmsg_scatterv, rcmsg_allgatherv, rcmsg_alltoallv, rcmsg_reduce_scatter,
 * rcmsg_reduce_scatter_block, rcmsg_scan, rcmsg_exscan). The blocks travel as bytes
 * (RCMSG_UINT8): the user's buffer itself when the types are contiguous, else packed
 * (coll_vbuf_*, mpi_coll_eng.c); reductions take rcmsg's operation and datatype of
 * mpi_op_rcmsg_any (a user operation, or one rcmsg lacks, through rcmsg_op_create).
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>
#include <string.h>

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Gatherv";
    coll_args_t a = {.shape = COLL_TO_ROOT,
                     .root = root,
                     .send = {sendbuf, sendcount, sendtype},
                     .recv = {recvbuf, 0, recvtype, true, recvcounts, displs},
                     .blocks = true};
    coll_blk_t *rb = NULL;
    coll_buf_t vi = {0};
    coll_vbuf_t vr = {0};
    bool is_root, in_place;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err;

    if (ic != NULL) {
        return mpi_inter_gatherv(ic, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                 recvtype, root);
    }
    if ((c = coll_enter(comm, call, &a, &err)) == NULL) {
        return err;
    }
    is_root = c->rank == root;
    in_place = is_root && sendbuf == MPI_IN_PLACE;
    if (!in_place) {
        err = coll_view_in(c, call, &vi, sendbuf, (size_t)sendcount, a.st);
    }
    if (err == MPI_SUCCESS && is_root &&
        (rb = coll_blks_of(c, call, recvbuf, recvcounts, displs, a.rt, &err)) != NULL) {
        err = coll_vbuf_out(c, call, &vr, rb, c->size, in_place ? root : -1);
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(c, call,
                          rcmsg_gatherv(in_place ? RCMSG_IN_PLACE : vi.p, vi.bytes, vr.base,
                                        vr.counts, vr.displs, RCMSG_UINT8, root, c->rc));
    }
    if (err == MPI_SUCCESS && is_root) {
        coll_vbuf_done(&vr, rb, c->size);
    }
    coll_vbuf_free(&vr);
    coll_view_free(&vi);
    free(rb);
    return err;
}
MPI_LOCAL_ALIAS(Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                          MPI_Comm comm));

int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {
        .sbuf = sendbuf, .scount = sendcount, .rcounts = recvcounts, .rdispls = displs};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, "MPI_Gatherv_c", root, MPI_C_GATHER, &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Gatherv(sendbuf, o.scount, sendtype, recvbuf, o.r.counts, o.r.displs,
                                recvtype, root, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Gatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, int root, MPI_Comm comm));

int MPI_Scatterv(const void *sendbuf, const int *sendcounts, const int *displs,
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Scatterv";
    coll_args_t a = {.shape = COLL_FROM_ROOT,
                     .root = root,
                     .send = {sendbuf, 0, sendtype, true, sendcounts, displs},
                     .recv = {recvbuf, recvcount, recvtype},
                     .blocks = true};
    coll_blk_t *sb = NULL;
    coll_buf_t vo = {0};
    coll_vbuf_t vs = {0};
    bool is_root, in_place;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err;

    if (ic != NULL) {
        return mpi_inter_scatterv(ic, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                  recvtype, root);
    }
    if ((c = coll_enter(comm, call, &a, &err)) == NULL) {
        return err;
    }
    is_root = c->rank == root;
    in_place = is_root && recvbuf == MPI_IN_PLACE;
    if (is_root && (sb = coll_blks_of(c, call, sendbuf, sendcounts, displs, a.st, &err)) != NULL) {
        err = coll_vbuf_in(c, call, &vs, sb, c->size);
    }
    if (err == MPI_SUCCESS && !in_place) {
        err = coll_view_out(c, call, &vo, recvbuf, (size_t)recvcount, a.rt);
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(c, call,
                          rcmsg_scatterv(vs.base, vs.counts, vs.displs,
                                         in_place ? RCMSG_IN_PLACE : vo.p, vo.bytes, RCMSG_UINT8,
                                         root, c->rc));
    }
    if (err == MPI_SUCCESS && !in_place) {
        coll_view_done(&vo, recvbuf, (size_t)recvcount, a.rt);
    }
    coll_vbuf_free(&vs);
    coll_view_free(&vo);
    free(sb);
    return err;
}
MPI_LOCAL_ALIAS(Scatterv, (const void *sendbuf, const int *sendcounts, const int *displs,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm));

int MPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {
        .scounts = sendcounts, .sdispls = displs, .rbuf = recvbuf, .rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, "MPI_Scatterv_c", root, MPI_C_SCATTER, &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Scatterv(sendbuf, o.s.counts, o.s.displs, sendtype, recvbuf, o.rcount,
                                 recvtype, root, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Scatterv_c, (const void *sendbuf, const MPI_Count sendcounts[],
                            const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int *recvcounts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Allgatherv";
    coll_args_t a = {.shape = COLL_ALL,
                     .send = {sendbuf, sendcount, sendtype},
                     .recv = {recvbuf, 0, recvtype, true, recvcounts, displs},
                     .blocks = true};
    coll_blk_t *rb;
    coll_buf_t vi = {0};
    coll_vbuf_t vr = {0};
    bool in_place = sendbuf == MPI_IN_PLACE;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err;

    if (ic != NULL) {
        return mpi_inter_allgatherv(ic, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype);
    }
    if ((c = coll_enter(comm, call, &a, &err)) == NULL ||
        (rb = coll_blks_of(c, call, recvbuf, recvcounts, displs, a.rt, &err)) == NULL) {
        return err;
    }
    if (!in_place) {
        err = coll_view_in(c, call, &vi, sendbuf, (size_t)sendcount, a.st);
    }
    if (err == MPI_SUCCESS) {
        err = coll_vbuf_out(c, call, &vr, rb, c->size, in_place ? c->rank : -1);
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(c, call,
                          rcmsg_allgatherv(in_place ? RCMSG_IN_PLACE : vi.p, vi.bytes, vr.base,
                                           vr.counts, vr.displs, RCMSG_UINT8, c->rc));
    }
    if (err == MPI_SUCCESS) {
        coll_vbuf_done(&vr, rb, c->size);
    }
    coll_vbuf_free(&vr);
    coll_view_free(&vi);
    free(rb);
    return err;
}
MPI_LOCAL_ALIAS(Allgatherv,
                (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int *recvcounts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm));

int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                     MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {
        .sbuf = sendbuf, .scount = sendcount, .rcounts = recvcounts, .rdispls = displs};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Allgatherv_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Allgatherv(sendbuf, o.scount, sendtype, recvbuf, o.r.counts, o.r.displs,
                                   recvtype, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, MPI_Comm comm));

/* Alltoallv and Alltoallw: displacements in elements (v) or bytes (w); in place, the data to
 * send is in recvbuf with the receive layout (rcmsg_alltoallv's RCMSG_IN_PLACE) */
static int alltoall_vw(mpi_comm_t *c, const char *call, const void *sendbuf, const int *sendcounts,
                       const int *sdispls, const MPI_Datatype *sendtypes, void *recvbuf,
                       const int *recvcounts, const int *rdispls, const MPI_Datatype *recvtypes,
                       bool bytes_displ)
{
    bool in_place = sendbuf == MPI_IN_PLACE;
    coll_blk_t *b, *sb, *rb;
    coll_vbuf_t vs = {0}, vr = {0};
    int err;

    if (in_place) {
        sendcounts = recvcounts, sdispls = rdispls, sendtypes = recvtypes, sendbuf = recvbuf;
    }
    if ((b = coll_blks_new(c, call, 2 * c->size, &err)) == NULL) {
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
                                         : coll_blk_at(sendbuf, sdispls[i], st),
                             (size_t)sendcounts[i], st};
        rb[i] = (coll_blk_t){bytes_displ ? (const char *)recvbuf + rdispls[i]
                                         : coll_blk_at(recvbuf, rdispls[i], rt),
                             (size_t)recvcounts[i], rt};
    }
    if (err == MPI_SUCCESS && !in_place) {
        err = coll_vbuf_in(c, call, &vs, sb, c->size);
    }
    if (err == MPI_SUCCESS) {
        err = in_place ? coll_vbuf_in(c, call, &vr, rb, c->size)
                       : coll_vbuf_out(c, call, &vr, rb, c->size, -1);
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(c, call,
                          rcmsg_alltoallv(in_place ? RCMSG_IN_PLACE : vs.base, vs.counts, vs.displs,
                                          vr.base, vr.counts, vr.displs, RCMSG_UINT8, c->rc));
    }
    if (err == MPI_SUCCESS) {
        coll_vbuf_done(&vr, rb, c->size);
    }
    coll_vbuf_free(&vs);
    coll_vbuf_free(&vr);
    free(b);
    return err;
}

/* Alltoallv (w false: one send type and one receive type) and Alltoallw */
static int alltoall_vw_call(const char *call, const void *sendbuf, const int *sc, const int *sd,
                            const MPI_Datatype *st, void *recvbuf, const int *rc, const int *rd,
                            const MPI_Datatype *rt, bool w, MPI_Comm comm)
{
    int err;
    mpi_comm_t *c = coll_enter(comm, call, NULL, &err);

    if (c == NULL || (err = coll_check_vw(c, call, sendbuf, sc, sd, st, recvbuf, rc, rd, rt, w)) !=
                         MPI_SUCCESS) {
        return err;
    }
    return alltoall_vw(c, call, sendbuf, sc, sd, st, recvbuf, rc, rd, rt, w);
}

int MPI_Alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                  MPI_Datatype sendtype, void *recvbuf, const int *recvcounts, const int *rdispls,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_comm_t *ic = mpi_inter_of(comm);

    if (ic != NULL) {
        return mpi_inter_alltoallv(ic, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype);
    }
    return alltoall_vw_call("MPI_Alltoallv", sendbuf, sendcounts, sdispls, &sendtype, recvbuf,
                            recvcounts, rdispls, &recvtype, false, comm);
}
MPI_LOCAL_ALIAS(Alltoallv, (const void *sendbuf, const int *sendcounts, const int *sdispls,
                            MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                            const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm));

int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls = sdispls,
                     .rcounts = recvcounts,
                     .rdispls = rdispls};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Alltoallv_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Alltoallv(sendbuf, o.s.counts, o.s.displs, sendtype, recvbuf, o.r.counts,
                                  o.r.displs, recvtype, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Alltoallv_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm));

int MPI_Alltoallw(const void *sendbuf, const int *sendcounts, const int *sdispls,
                  const MPI_Datatype *sendtypes, void *recvbuf, const int *recvcounts,
                  const int *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_comm_t *ic = mpi_inter_of(comm);

    if (ic != NULL) {
        return mpi_inter_alltoallw(ic, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                   rdispls, recvtypes);
    }
    return alltoall_vw_call("MPI_Alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                            recvcounts, rdispls, recvtypes, true, comm);
}
MPI_LOCAL_ALIAS(Alltoallw, (const void *sendbuf, const int *sendcounts, const int *sdispls,
                            const MPI_Datatype *sendtypes, void *recvbuf, const int *recvcounts,
                            const int *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm));

int MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls = sdispls,
                     .rcounts = recvcounts,
                     .rdispls = rdispls};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Alltoallw_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Alltoallw(sendbuf, o.s.counts, o.s.displs, sendtypes, recvbuf, o.r.counts,
                                  o.r.displs, recvtypes, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Alltoallw_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));

/* ---- reduce-scatter ------------------------------------------------------------------------ */

/* Reduce_scatter (counts) and Reduce_scatter_block (counts NULL: block each), the arguments
 * checked: the input is sum(counts) elements of dt (sendbuf, or recvbuf in place), the result
 * counts[rank] elements into recvbuf. */
static int reduce_scatter_do(mpi_comm_t *c, const char *call, const void *sendbuf, void *recvbuf,
                             const int *counts, int block, MPI_Datatype dt, MPI_Op op)
{
    mpi_type_t *t = mpi_type_get(dt);
    bool in_place = sendbuf == MPI_IN_PLACE;
    size_t total = 0, k, mine, *rc;
    rcmsg_op_t rop;
    rcmsg_datatype_t rdt;
    coll_buf_t vi = {0}, vo = {0};
    int err;

    if (mpi_type_size(t) == 0) {
        return MPI_SUCCESS;
    }
    err = mpi_op_rcmsg_any(op, dt, 1, &rop, &rdt, &k); /* k rcmsg elements per element of dt */
    if (err != MPI_SUCCESS) {
        return mpi_err(c, call, err, "no rcmsg operation or datatype for the reduction");
    }
    rc = malloc((size_t)c->size * sizeof(*rc));
    if (rc == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < c->size; i++) {
        size_t n = counts != NULL ? (size_t)counts[i] : (size_t)block;

        rc[i] = n * k;
        total += n;
    }
    mine = counts != NULL ? (size_t)counts[c->rank] : (size_t)block;
    if (total == 0) { /* the same on every rank */
        free(rc);
        return MPI_SUCCESS;
    }
    err = in_place ? coll_view_in(c, call, &vo, recvbuf, total, t)
                   : coll_view_in(c, call, &vi, sendbuf, total, t);
    if (err == MPI_SUCCESS && !in_place) {
        err = coll_view_out(c, call, &vo, recvbuf, mine, t);
    }
    if (err == MPI_SUCCESS) {
        const void *sp = in_place ? RCMSG_IN_PLACE : vi.p;

        err = coll_status(c, call,
                          counts == NULL
                              ? rcmsg_reduce_scatter_block(sp, vo.p, rc[0], rdt, rop, c->rc)
                              : rcmsg_reduce_scatter(sp, vo.p, rc, rdt, rop, c->rc));
    }
    if (err == MPI_SUCCESS) {
        coll_view_done(&vo, recvbuf, mine, t); /* in place: the first mine elements */
    }
    coll_view_free(&vi);
    coll_view_free(&vo);
    free(rc);
    return err;
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Reduce_scatter_block";
    coll_args_t a = {.shape = COLL_ALL,
                     .reduce = true,
                     .op = op,
                     .send = {sendbuf, recvcount, datatype},
                     .recv = {recvbuf, recvcount, datatype}};
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err;

    if (ic != NULL) {
        return mpi_inter_reduce_scatter_block(ic, sendbuf, recvbuf, recvcount, datatype, op);
    }
    if ((c = coll_enter(comm, call, &a, &err)) == NULL) {
        return err;
    }
    return reduce_scatter_do(c, call, sendbuf, recvbuf, NULL, recvcount, datatype, op);
}
MPI_LOCAL_ALIAS(Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount,
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));

int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Reduce_scatter_block_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Reduce_scatter_block(sendbuf, recvbuf, o.rcount, datatype, op, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Reduce_scatter_block_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Reduce_scatter";
    coll_args_t a = {.shape = COLL_ALL,
                     .reduce = true,
                     .op = op,
                     .send = {sendbuf, 0, datatype},
                     .recv = {recvbuf, 0, datatype}};
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err;

    if (ic != NULL) {
        return mpi_inter_reduce_scatter(ic, sendbuf, recvbuf, recvcounts, datatype, op);
    }
    if ((c = coll_enter(comm, call, NULL, &err)) == NULL) {
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
    }
    a.send.count = a.recv.count = recvcounts[c->rank];
    if ((err = coll_check(c, call, &a)) != MPI_SUCCESS) {
        return err;
    }
    return reduce_scatter_do(c, call, sendbuf, recvbuf, recvcounts, -1, datatype, op);
}
MPI_LOCAL_ALIAS(Reduce_scatter, (const void *sendbuf, void *recvbuf, const int *recvcounts,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));

int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.rcounts = recvcounts, .local = true};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Reduce_scatter_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Reduce_scatter(sendbuf, recvbuf, o.r.counts, datatype, op, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Reduce_scatter_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));

/* ---- scans --------------------------------------------------------------------------------- */
static int scan_common(const char *call, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype dt, MPI_Op op, MPI_Comm comm, bool exclusive)
{
    coll_args_t a = {.shape = COLL_ALL,
                     .reduce = true,
                     .op = op,
                     .send = {sendbuf, count, dt},
                     .recv = {recvbuf, count, dt}};
    bool in_place = sendbuf == MPI_IN_PLACE;
    coll_buf_t vi = {0}, vo = {0};
    rcmsg_op_t rop;
    rcmsg_datatype_t rdt;
    size_t n;
    int err;
    mpi_comm_t *c = coll_enter(comm, call, &a, &err);

    if (c == NULL || count == 0 || mpi_type_size(a.rt) == 0) {
        return err;
    }
    err = mpi_op_rcmsg_any(op, dt, (size_t)count, &rop, &rdt, &n);
    if (err != MPI_SUCCESS) {
        return mpi_err(c, call, err, "no rcmsg operation or datatype for the reduction");
    }
    err = in_place ? coll_view_in(c, call, &vo, recvbuf, (size_t)count, a.rt)
                   : coll_view_in(c, call, &vi, sendbuf, (size_t)count, a.rt);
    if (err == MPI_SUCCESS && !in_place) {
        err = coll_view_out(c, call, &vo, recvbuf, (size_t)count, a.rt);
    }
    if (err == MPI_SUCCESS) {
        const void *sp = in_place ? RCMSG_IN_PLACE : vi.p;

        err = coll_status(c, call,
                          exclusive ? rcmsg_exscan(sp, vo.p, n, rdt, rop, c->rc)
                                    : rcmsg_scan(sp, vo.p, n, rdt, rop, c->rc));
    }
    if (err == MPI_SUCCESS && !(exclusive && c->rank == 0)) {
        coll_view_done(&vo, recvbuf, (size_t)count, a.rt);
    }
    coll_view_free(&vi);
    coll_view_free(&vo);
    return err;
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm)
{
    MPI_MT_GUARD();
    return scan_common("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, false);
}
MPI_LOCAL_ALIAS(Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm));

int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.rcount = count};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Scan_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Scan(sendbuf, recvbuf, o.rcount, datatype, op, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Scan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm));

/* recvbuf of rank 0 is left as it is (MPI: undefined) */
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm)
{
    MPI_MT_GUARD();
    return scan_common("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, true);
}
MPI_LOCAL_ALIAS(Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm));

int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.rcount = count};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Exscan_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Exscan(sendbuf, recvbuf, o.rcount, datatype, op, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Exscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
