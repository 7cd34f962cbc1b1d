/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blocking collectives: bindings over rcmsg's collectives (zero copy for contiguous data,
 * noncontiguous data packed first; operations rcmsg lacks, MINLOC/MAXLOC, long double,
 * complex, user operations through rcmsg_op_create: mpi_op_rcmsg_any). Over an
 * intercommunicator each dispatches to mpi_inter_coll.c. Bindings: the checks are
 * mpi_check.c's.
 */
#include "mpi/mpi_engines.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
/* ---- the MPI calls: data that only moves ------------------------------------------------------
 */

int MPI_Barrier(MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err;

    if (ic != NULL) {
        return mpi_inter_barrier(ic);
    }
    if ((c = coll_enter(comm, "MPI_Barrier", NULL, &err)) == NULL) {
        return err;
    }
    return coll_status(c, "MPI_Barrier", rcmsg_barrier(c->rc));
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Bcast";
    coll_args_t a = {.shape = COLL_BCAST, .root = root, .recv = {buffer, count, datatype}};
    coll_buf_t v;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err;

    if (ic != NULL) {
        return mpi_inter_bcast(ic, buffer, count, datatype, root);
    }
    if ((c = coll_enter(comm, call, &a, &err)) == NULL) {
        return err;
    }
    if (mpi_type_size(a.rt) * (size_t)count == 0) {
        return MPI_SUCCESS;
    }
    err = c->rank == root ? coll_view_in(c, call, &v, buffer, (size_t)count, a.rt)
                          : coll_view_out(c, call, &v, buffer, (size_t)count, a.rt);
    if (err != MPI_SUCCESS) {
        return err;
    }
    err = coll_status(c, call, rcmsg_bcast(v.p, v.bytes, RCMSG_UINT8, root, c->rc));
    if (err == MPI_SUCCESS && c->rank != root) {
        coll_view_done(&v, buffer, (size_t)count, a.rt);
    }
    coll_view_free(&v);
    return err;
}
MPI_LOCAL_ALIAS(Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm));

int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.scount = count};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, "MPI_Bcast_c", root, MPI_C_ONE, &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Bcast(buffer, o.scount, datatype, root, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Bcast_c,
               (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm));

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Gather";
    coll_args_t a = {.shape = COLL_TO_ROOT,
                     .root = root,
                     .send = {sendbuf, sendcount, sendtype},
                     .recv = {recvbuf, recvcount, recvtype},
                     .blocks = true};
    coll_buf_t vi = {0}, vo = {0};
    bool is_root, in_place;
    size_t block;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err = MPI_SUCCESS;

    if (ic != NULL) {
        return mpi_inter_gather(ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                root);
    }
    if ((c = coll_enter(comm, call, &a, &err)) == NULL) {
        return err;
    }
    is_root = c->rank == root;
    in_place = is_root && sendbuf == MPI_IN_PLACE;
    block =
        is_root ? mpi_type_size(a.rt) * (size_t)recvcount : mpi_type_size(a.st) * (size_t)sendcount;
    if (block == 0) {
        return MPI_SUCCESS;
    }
    if (!in_place) {
        err = coll_view_in(c, call, &vi, sendbuf, (size_t)sendcount, a.st);
    }
    if (err == MPI_SUCCESS && is_root) {
        err = coll_gather_view(c, call, &vo, recvbuf, recvcount, a.rt, in_place);
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(
            c, call,
            rcmsg_gather(in_place ? RCMSG_IN_PLACE : vi.p, vo.p, block, RCMSG_UINT8, root, c->rc));
    }
    if (err == MPI_SUCCESS && is_root) {
        coll_view_done(&vo, recvbuf, (size_t)recvcount * (size_t)c->size, a.rt);
    }
    coll_view_free(&vi);
    coll_view_free(&vo);
    return err;
}
MPI_LOCAL_ALIAS(Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));

int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.sbuf = sendbuf, .scount = sendcount, .rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, "MPI_Gather_c", root, MPI_C_GATHER, &in, &o);

    if (err == MPI_SUCCESS) {
        err =
            mpi_local_Gather(sendbuf, o.scount, sendtype, recvbuf, o.rcount, recvtype, root, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Gather_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Scatter";
    coll_args_t a = {.shape = COLL_FROM_ROOT,
                     .root = root,
                     .send = {sendbuf, sendcount, sendtype},
                     .recv = {recvbuf, recvcount, recvtype},
                     .blocks = true};
    coll_buf_t vi = {0}, vo = {0};
    bool is_root, in_place;
    size_t block;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err = MPI_SUCCESS;

    if (ic != NULL) {
        return mpi_inter_scatter(ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 root);
    }
    if ((c = coll_enter(comm, call, &a, &err)) == NULL) {
        return err;
    }
    is_root = c->rank == root;
    in_place = is_root && recvbuf == MPI_IN_PLACE;
    block =
        is_root ? mpi_type_size(a.st) * (size_t)sendcount : mpi_type_size(a.rt) * (size_t)recvcount;
    if (block == 0) {
        return MPI_SUCCESS;
    }
    if (is_root) {
        err = coll_view_in(c, call, &vi, sendbuf, (size_t)sendcount * (size_t)c->size, a.st);
    }
    if (err == MPI_SUCCESS && !in_place) {
        err = coll_view_out(c, call, &vo, recvbuf, (size_t)recvcount, a.rt);
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(
            c, call,
            rcmsg_scatter(vi.p, in_place ? RCMSG_IN_PLACE : vo.p, block, RCMSG_UINT8, root, c->rc));
    }
    if (err == MPI_SUCCESS && !in_place) {
        coll_view_done(&vo, recvbuf, (size_t)recvcount, a.rt);
    }
    coll_view_free(&vi);
    coll_view_free(&vo);
    return err;
}
MPI_LOCAL_ALIAS(Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));

int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.scount = sendcount, .rbuf = recvbuf, .rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, "MPI_Scatter_c", root, MPI_C_SCATTER, &in, &o);

    if (err == MPI_SUCCESS) {
        err =
            mpi_local_Scatter(sendbuf, o.scount, sendtype, recvbuf, o.rcount, recvtype, root, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Scatter_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Allgather";
    coll_args_t a = {.shape = COLL_ALL,
                     .send = {sendbuf, sendcount, sendtype},
                     .recv = {recvbuf, recvcount, recvtype},
                     .blocks = true};
    coll_buf_t vi = {0}, vo = {0};
    bool in_place = sendbuf == MPI_IN_PLACE;
    size_t block;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err = MPI_SUCCESS;

    if (ic != NULL) {
        return mpi_inter_allgather(ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }
    if ((c = coll_enter(comm, call, &a, &err)) == NULL) {
        return err;
    }
    block = mpi_type_size(a.rt) * (size_t)recvcount;
    if (block == 0) { /* nothing moves; a send block is the program's error */
        return in_place ? MPI_SUCCESS
                        : coll_all_mismatch(c, call, 0, mpi_type_size(a.st) * (size_t)sendcount);
    }
    if (!in_place) {
        err = coll_view_in(c, call, &vi, sendbuf, (size_t)sendcount, a.st);
        if (err == MPI_SUCCESS) {
            err = coll_all_pad(c, call, &vi, 1, block);
        }
    }
    if (err == MPI_SUCCESS) {
        err = coll_gather_view(c, call, &vo, recvbuf, recvcount, a.rt, in_place);
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(
            c, call,
            rcmsg_allgather(in_place ? RCMSG_IN_PLACE : vi.p, vo.p, block, RCMSG_UINT8, c->rc));
        if (err == MPI_SUCCESS && !in_place) {
            err = coll_all_mismatch(c, call, block, vi.bytes);
        }
    }
    if (err == MPI_SUCCESS) {
        coll_view_done(&vo, recvbuf, (size_t)recvcount * (size_t)c->size, a.rt);
    }
    coll_view_free(&vi);
    coll_view_free(&vo);
    return err;
}
MPI_LOCAL_ALIAS(Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm));

int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.sbuf = sendbuf, .scount = sendcount, .rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Allgather_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Allgather(sendbuf, o.scount, sendtype, recvbuf, o.rcount, recvtype, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Allgather_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Alltoall";
    coll_args_t a = {.shape = COLL_ALL,
                     .send = {sendbuf, sendcount, sendtype},
                     .recv = {recvbuf, recvcount, recvtype}};
    coll_buf_t vi = {0}, vo = {0};
    bool in_place = sendbuf == MPI_IN_PLACE;
    size_t block, n;
    mpi_comm_t *ic = mpi_inter_of(comm), *c;
    int err;

    if (ic != NULL) {
        return mpi_inter_alltoall(ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    }
    if ((c = coll_enter(comm, call, &a, &err)) == NULL) {
        return err;
    }
    block = mpi_type_size(a.rt) * (size_t)recvcount;
    n = (size_t)recvcount * (size_t)c->size;
    if (block == 0) { /* nothing moves; a send block is the program's error */
        return in_place ? MPI_SUCCESS
                        : coll_all_mismatch(c, call, 0, mpi_type_size(a.st) * (size_t)sendcount);
    }
    if (in_place) {
        err = coll_view_in(c, call, &vo, recvbuf, n, a.rt); /* the blocks to send are there */
    } else {
        err = coll_view_in(c, call, &vi, sendbuf, (size_t)sendcount * (size_t)c->size, a.st);
        if (err == MPI_SUCCESS) {
            err = coll_all_pad(c, call, &vi, (size_t)c->size, block);
        }
        if (err == MPI_SUCCESS) {
            err = coll_view_out(c, call, &vo, recvbuf, n, a.rt);
        }
    }
    if (err == MPI_SUCCESS) {
        err = coll_status(
            c, call,
            rcmsg_alltoall(in_place ? RCMSG_IN_PLACE : vi.p, vo.p, block, RCMSG_UINT8, c->rc));
        if (err == MPI_SUCCESS && !in_place) {
            err = coll_all_mismatch(c, call, block, vi.bytes / (size_t)c->size);
        }
    }
    if (err == MPI_SUCCESS) {
        coll_view_done(&vo, recvbuf, n, a.rt);
    }
    coll_view_free(&vi);
    coll_view_free(&vo);
    return err;
}
MPI_LOCAL_ALIAS(Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm));

int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.sbuf = sendbuf, .scount = sendcount, .rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Alltoall_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Alltoall(sendbuf, o.scount, sendtype, recvbuf, o.rcount, recvtype, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Alltoall_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));

/* ---- the MPI calls: reductions ------------------------------------------------------------- */

/* Reduce (to root) and Allreduce (all) on an intracommunicator */
static int reduce_call(const char *call, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, int root, bool all, MPI_Comm comm)
{
    coll_args_t a = {.shape = all ? COLL_ALL : COLL_TO_ROOT,
                     .root = root,
                     .reduce = true,
                     .op = op,
                     .send = {sendbuf, count, datatype},
                     .recv = {recvbuf, count, datatype}};
    int err;
    mpi_comm_t *c = coll_enter(comm, call, &a, &err);

    if (c == NULL) {
        return err;
    }
    return coll_reduce(c, call, sendbuf, recvbuf, count, datatype, op, all ? -1 : root);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_comm_t *ic = mpi_inter_of(comm);

    if (ic != NULL) {
        return mpi_inter_reduce(ic, sendbuf, recvbuf, count, datatype, op, root);
    }
    return reduce_call("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, false, comm);
}
MPI_LOCAL_ALIAS(Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, int root, MPI_Comm comm));

int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.scount = count};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, "MPI_Reduce_c", root, MPI_C_ONE, &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Reduce(sendbuf, recvbuf, o.scount, datatype, op, root, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Reduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm));

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_comm_t *ic = mpi_inter_of(comm);

    if (ic != NULL) {
        return mpi_inter_allreduce(ic, sendbuf, recvbuf, count, datatype, op);
    }
    return reduce_call("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, -1, true, comm);
}
MPI_LOCAL_ALIAS(Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm));

int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.rcount = count};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Allreduce_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Allreduce(sendbuf, recvbuf, o.rcount, datatype, op, comm);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Allreduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
