/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The neighborhood collectives (MPI-3.1 7.6, 7.7): Neighbor_allgather(v), Neighbor_alltoall
 * (v, w) and their nonblocking forms, over the communicator's topology. Each names one block
 * per neighbor (the topology's order: mpi_topo_neighbors) and hands them to the engine
 * (mpi_neighbor_req.c), which runs rcmsg's neighborhood exchange. Their large-count (_c)
 * forms, blocking, nonblocking and persistent, convert their counts (mpi_c_nbr) and run the
 * same functions under their own names.
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>

/* How one side's blocks lie in its buffer. */
typedef enum {
    NBR_SAME,   /* every block is the whole buffer (allgather's send side) */
    NBR_BLOCKS, /* block i at i x count elements */
    NBR_V,      /* counts[i] elements at displs[i] elements */
    NBR_W,      /* counts[i] elements of types[i] at bdispls[i] bytes */
} nbr_layout_t;

typedef struct {
    nbr_layout_t layout;
    const void *buf;
    int count;
    MPI_Datatype dt;
    const int *counts, *displs;
    const MPI_Aint *bdispls;
    const MPI_Datatype *types;
} nbr_side_t;

/* b[i] for each of the n neighbors ranks[i] of side s (what: "send" or "receive") */
static int nbr_blocks(mpi_comm_t *c, const char *call, const nbr_side_t *s, const char *what, int n,
                      const int *ranks, coll_blk_t *b)
{
    bool v = s->layout == NBR_V || s->layout == NBR_W;
    int err;

    if (s->buf == MPI_IN_PLACE) {
        return mpi_err(c, call, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed here");
    }
    if (v && n > 0 &&
        (s->counts == NULL || (s->layout == NBR_V ? (const void *)s->displs : s->bdispls) == NULL ||
         (s->layout == NBR_W && s->types == NULL))) {
        return mpi_err(c, call, MPI_ERR_ARG, "NULL %s counts, displacements or types", what);
    }
    for (int i = 0; i < n; i++) {
        int count = v ? s->counts[i] : s->count;
        mpi_type_t *t;

        if ((err = mpi_check_buf(c, call, s->buf, count, s->layout == NBR_W ? s->types[i] : s->dt,
                                 &t)) != MPI_SUCCESS) {
            return err;
        }
        b[i] = (coll_blk_t){s->buf, (size_t)count, t};
        if (s->layout == NBR_BLOCKS) {
            b[i].buf = (const char *)s->buf + (MPI_Aint)i * count * mpi_type_extent(t);
        } else if (s->layout == NBR_V) {
            b[i].buf = (const char *)s->buf + (MPI_Aint)s->displs[i] * mpi_type_extent(t);
        } else if (s->layout == NBR_W) {
            b[i].buf = (const char *)s->buf + s->bdispls[i];
        }
        if (ranks[i] == MPI_PROC_NULL) {
            b[i] = (coll_blk_t){s->buf, 0, NULL}; /* nothing moves: the block is untouched */
        }
    }
    return MPI_SUCCESS;
}

/* The call over comm's topology: blocking (nb false) or started as *request (request
 * MPI_NBC_CHECK_ONLY: the arguments checked, nothing started). */
static int nbr_call(const char *call, MPI_Comm comm, const nbr_side_t *send, const nbr_side_t *recv,
                    bool nb, MPI_Request *request)
{
    int err;
    mpi_comm_t *c = nb ? mpi_nbc_args(call, comm, request, &err) : mpi_comm_enter(comm, call, &err);
    nbr_lists_t l = {0};

    if (c == NULL) {
        return err;
    }
    if (c->topo == NULL) {
        return mpi_err(c, call, MPI_ERR_TOPOLOGY, "%s has no process topology",
                       c->name[0] != '\0' ? c->name : "the communicator");
    }
    mpi_topo_neighbors(c->topo, c->rank, &l.nsrc, NULL, &l.ndst, NULL);
    l.rb = malloc(((size_t)l.nsrc + l.ndst + 1) * (sizeof(coll_blk_t) + sizeof(int)));
    if (l.rb == NULL) {
        return mpi_err(c, call, MPI_ERR_NO_MEM, "out of memory");
    }
    l.sb = l.rb + l.nsrc;
    l.srcs = (int *)(l.sb + l.ndst);
    l.dsts = l.srcs + l.nsrc;
    l.cart = c->topo->kind == MPI_CART;
    mpi_topo_neighbors(c->topo, c->rank, &l.nsrc, l.srcs, &l.ndst, l.dsts);
    err = nbr_blocks(c, call, send, "send", l.ndst, l.dsts, l.sb);
    if (err == MPI_SUCCESS) {
        err = nbr_blocks(c, call, recv, "receive", l.nsrc, l.srcs, l.rb);
    }
    if (err == MPI_SUCCESS && request != MPI_NBC_CHECK_ONLY) {
        err = mpi_nbr_run(c, call, &l, nb ? request : NULL);
    }
    free(l.rb);
    return err;
}

/* ---- allgather, allgatherv --------------------------------------------------------------------
 */

static int allgather(const char *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, bool nb,
                     MPI_Request *request)
{
    nbr_side_t s = {.layout = NBR_SAME, .buf = sendbuf, .count = sendcount, .dt = sendtype};
    nbr_side_t r = {.layout = NBR_BLOCKS, .buf = recvbuf, .count = recvcount, .dt = recvtype};

    return nbr_call(call, comm, &s, &r, nb, request);
}

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    return allgather("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, false, NULL);
}

int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    MPI_MT_GUARD();
    return allgather("MPI_Ineighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                     recvtype, comm, true, request);
}

static int allgatherv(const char *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int *recvcounts, const int *displs,
                      MPI_Datatype recvtype, MPI_Comm comm, bool nb, MPI_Request *request)
{
    nbr_side_t s = {.layout = NBR_SAME, .buf = sendbuf, .count = sendcount, .dt = sendtype};
    nbr_side_t r = {
        .layout = NBR_V, .buf = recvbuf, .dt = recvtype, .counts = recvcounts, .displs = displs};

    return nbr_call(call, comm, &s, &r, nb, request);
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    return allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                      displs, recvtype, comm, false, NULL);
}

int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return allgatherv("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                      displs, recvtype, comm, true, request);
}

/* ---- alltoall, alltoallv, alltoallw -------------------------------------------------------- */

static int alltoall(const char *call, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, bool nb,
                    MPI_Request *request)
{
    nbr_side_t s = {.layout = NBR_BLOCKS, .buf = sendbuf, .count = sendcount, .dt = sendtype};
    nbr_side_t r = {.layout = NBR_BLOCKS, .buf = recvbuf, .count = recvcount, .dt = recvtype};

    return nbr_call(call, comm, &s, &r, nb, request);
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    return alltoall("MPI_Neighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, false, NULL);
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request)
{
    MPI_MT_GUARD();
    return alltoall("MPI_Ineighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                    recvtype, comm, true, request);
}

static int alltoallv(const char *call, const void *sendbuf, const int *sc, const int *sd,
                     MPI_Datatype st, void *recvbuf, const int *rc, const int *rd, MPI_Datatype rt,
                     MPI_Comm comm, bool nb, MPI_Request *request)
{
    nbr_side_t s = {.layout = NBR_V, .buf = sendbuf, .dt = st, .counts = sc, .displs = sd};
    nbr_side_t r = {.layout = NBR_V, .buf = recvbuf, .dt = rt, .counts = rc, .displs = rd};

    return nbr_call(call, comm, &s, &r, nb, request);
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    return alltoallv("MPI_Neighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, false, NULL);
}

int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    MPI_MT_GUARD();
    return alltoallv("MPI_Ineighbor_alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                     recvcounts, rdispls, recvtype, comm, true, request);
}

static int alltoallw(const char *call, const void *sendbuf, const int *sc, const MPI_Aint *sd,
                     const MPI_Datatype *st, void *recvbuf, const int *rc, const MPI_Aint *rd,
                     const MPI_Datatype *rt, MPI_Comm comm, bool nb, MPI_Request *request)
{
    nbr_side_t s = {.layout = NBR_W, .buf = sendbuf, .counts = sc, .bdispls = sd, .types = st};
    nbr_side_t r = {.layout = NBR_W, .buf = recvbuf, .counts = rc, .bdispls = rd, .types = rt};

    return nbr_call(call, comm, &s, &r, nb, request);
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    MPI_MT_GUARD();
    return alltoallw("MPI_Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, false, NULL);
}

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request *request)
{
    MPI_MT_GUARD();
    return alltoallw("MPI_Ineighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                     recvcounts, rdispls, recvtypes, comm, true, request);
}

/* ---- the persistent forms (MPI-4.0): each start runs the nonblocking one above ------------- */
/* the init's checks: the nonblocking forms' (nbr_call's, MPI_NBC_CHECK_ONLY) */
static int check_allgather(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    (void)c;
    return allgather(call, a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt, a->comm, true,
                     MPI_NBC_CHECK_ONLY);
}

static int check_alltoall(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    (void)c;
    return alltoall(call, a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt, a->comm, true,
                    MPI_NBC_CHECK_ONLY);
}

static int check_allgatherv(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    (void)c;
    return allgatherv(call, a->sbuf, a->scount, a->sdt, a->rbuf, a->rcounts, a->rdispls, a->rdt,
                      a->comm, true, MPI_NBC_CHECK_ONLY);
}

static int check_alltoallv(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    (void)c;
    return alltoallv(call, a->sbuf, a->scounts, a->sdispls, a->sdt, a->rbuf, a->rcounts, a->rdispls,
                     a->rdt, a->comm, true, MPI_NBC_CHECK_ONLY);
}

static int check_alltoallw(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    (void)c;
    return alltoallw(call, a->sbuf, a->scounts, a->sadispls, a->sdts, a->rbuf, a->rcounts,
                     a->radispls, a->rdts, a->comm, true, MPI_NBC_CHECK_ONLY);
}

static int start_allgather(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Ineighbor_allgather(a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt, a->comm,
                                   request);
}

static int start_alltoall(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Ineighbor_alltoall(a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt, a->comm,
                                  request);
}

/* Neighbor_allgather_init and Neighbor_alltoall_init */
static int init_blocks(const char *call, mpi_pcoll_start_fn *start, mpi_pcoll_check_fn *check,
                       const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype};

    return mpi_pcoll_new(call, info, &a, start, check, request);
}

int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_blocks("MPI_Neighbor_allgather_init", start_allgather, check_allgather, sendbuf,
                       sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
}
MPI_PMPI_ALIAS(Neighbor_allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                         void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                         MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_blocks("MPI_Neighbor_alltoall_init", start_alltoall, check_alltoall, sendbuf,
                       sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
}
MPI_PMPI_ALIAS(Neighbor_alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                        MPI_Comm comm, MPI_Info info, MPI_Request *request));

static int start_allgatherv(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Ineighbor_allgatherv(a->sbuf, a->scount, a->sdt, a->rbuf, a->rcounts, a->rdispls,
                                    a->rdt, a->comm, request);
}

int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = displs,
                          .rdt = recvtype};

    return mpi_pcoll_new("MPI_Neighbor_allgatherv_init", info, &a, start_allgatherv,
                         check_allgatherv, request);
}
MPI_PMPI_ALIAS(Neighbor_allgatherv_init,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                MPI_Info info, MPI_Request *request));

static int start_alltoallv(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Ineighbor_alltoallv(a->sbuf, a->scounts, a->sdispls, a->sdt, a->rbuf, a->rcounts,
                                   a->rdispls, a->rdt, a->comm, request);
}

int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .scounts = sendcounts,
                          .sdispls = sdispls,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = rdispls,
                          .rdt = recvtype};

    return mpi_pcoll_new("MPI_Neighbor_alltoallv_init", info, &a, start_alltoallv, check_alltoallv,
                         request);
}
MPI_PMPI_ALIAS(Neighbor_alltoallv_init,
               (const void *sendbuf, const int sendcounts[], const int sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));

static int start_alltoallw(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Ineighbor_alltoallw(a->sbuf, a->scounts, a->sadispls, a->sdts, a->rbuf, a->rcounts,
                                   a->radispls, a->rdts, a->comm, request);
}

int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .scounts = sendcounts,
                          .sadispls = sdispls,
                          .sdts = sendtypes,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .radispls = rdispls,
                          .rdts = recvtypes,
                          .nbr = true};

    return mpi_pcoll_new("MPI_Neighbor_alltoallw_init", info, &a, start_alltoallw, check_alltoallw,
                         request);
}
MPI_PMPI_ALIAS(Neighbor_alltoallw_init,
               (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                MPI_Info info, MPI_Request *request));

/* ---- the large-count forms (MPI-4.0): the counts converted (mpi_c_nbr), then as above ------ */

static int allgather_c(const char *call, const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, bool nb, MPI_Request *request)
{
    mpi_c_in_t in = {.scount = sendcount, .rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_nbr(comm, call, &in, &o);

    if (err == MPI_SUCCESS) {
        err = allgather(call, sendbuf, o.scount, sendtype, recvbuf, o.rcount, recvtype, comm, nb,
                        request);
    }
    mpi_c_out_free(&o);
    return err;
}

static int alltoall_c(const char *call, const void *sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, bool nb, MPI_Request *request)
{
    mpi_c_in_t in = {.scount = sendcount, .rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_nbr(comm, call, &in, &o);

    if (err == MPI_SUCCESS) {
        err = alltoall(call, sendbuf, o.scount, sendtype, recvbuf, o.rcount, recvtype, comm, nb,
                       request);
    }
    mpi_c_out_free(&o);
    return err;
}

static int allgatherv_c(const char *call, const void *sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, void *recvbuf, const MPI_Count *recvcounts,
                        const MPI_Aint *displs, MPI_Datatype recvtype, MPI_Comm comm, bool nb,
                        MPI_Request *request)
{
    mpi_c_in_t in = {.scount = sendcount, .rcounts = recvcounts, .rdispls = displs};
    mpi_c_out_t o;
    int err = mpi_c_nbr(comm, call, &in, &o);

    if (err == MPI_SUCCESS) {
        err = allgatherv(call, sendbuf, o.scount, sendtype, recvbuf, o.r.counts, o.r.displs,
                         recvtype, comm, nb, request);
    }
    mpi_c_out_free(&o);
    return err;
}

static int alltoallv_c(const char *call, const void *sendbuf, const MPI_Count *sc,
                       const MPI_Aint *sd, MPI_Datatype st, void *recvbuf, const MPI_Count *rc,
                       const MPI_Aint *rd, MPI_Datatype rt, MPI_Comm comm, bool nb,
                       MPI_Request *request)
{
    mpi_c_in_t in = {.scounts = sc, .sdispls = sd, .rcounts = rc, .rdispls = rd};
    mpi_c_out_t o;
    int err = mpi_c_nbr(comm, call, &in, &o);

    if (err == MPI_SUCCESS) {
        err = alltoallv(call, sendbuf, o.s.counts, o.s.displs, st, recvbuf, o.r.counts, o.r.displs,
                        rt, comm, nb, request);
    }
    mpi_c_out_free(&o);
    return err;
}

/* (its displacements are MPI_Aint in the int form too: only the counts converted) */
static int alltoallw_c(const char *call, const void *sendbuf, const MPI_Count *sc,
                       const MPI_Aint *sd, const MPI_Datatype *st, void *recvbuf,
                       const MPI_Count *rc, const MPI_Aint *rd, const MPI_Datatype *rt,
                       MPI_Comm comm, bool nb, MPI_Request *request)
{
    mpi_c_in_t in = {.scounts = sc, .rcounts = rc};
    mpi_c_out_t o;
    int err = mpi_c_nbr(comm, call, &in, &o);

    if (err == MPI_SUCCESS) {
        err = alltoallw(call, sendbuf, o.s.counts, sd, st, recvbuf, o.r.counts, rd, rt, comm, nb,
                        request);
    }
    mpi_c_out_free(&o);
    return err;
}

int MPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    MPI_MT_GUARD();
    return allgather_c("MPI_Neighbor_allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       recvtype, comm, false, NULL);
}
MPI_PMPI_ALIAS(Neighbor_allgather_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));

int MPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return allgather_c("MPI_Ineighbor_allgather_c", sendbuf, sendcount, sendtype, recvbuf,
                       recvcount, recvtype, comm, true, request);
}
MPI_PMPI_ALIAS(Ineighbor_allgather_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));

int MPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    MPI_MT_GUARD();
    return alltoall_c("MPI_Neighbor_alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, comm, false, NULL);
}
MPI_PMPI_ALIAS(Neighbor_alltoall_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));

int MPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return alltoall_c("MPI_Ineighbor_alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, comm, true, request);
}
MPI_PMPI_ALIAS(Ineighbor_alltoall_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));

int MPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    return allgatherv_c("MPI_Neighbor_allgatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                        recvcounts, displs, recvtype, comm, false, NULL);
}
MPI_PMPI_ALIAS(Neighbor_allgatherv_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                MPI_Comm comm));

int MPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return allgatherv_c("MPI_Ineighbor_allgatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                        recvcounts, displs, recvtype, comm, true, request);
}
MPI_PMPI_ALIAS(Ineighbor_allgatherv_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                MPI_Comm comm, MPI_Request *request));

int MPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                             const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_MT_GUARD();
    return alltoallv_c("MPI_Neighbor_alltoallv_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                       recvcounts, rdispls, recvtype, comm, false, NULL);
}
MPI_PMPI_ALIAS(Neighbor_alltoallv_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm));

int MPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return alltoallv_c("MPI_Ineighbor_alltoallv_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                       recvcounts, rdispls, recvtype, comm, true, request);
}
MPI_PMPI_ALIAS(Ineighbor_alltoallv_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                MPI_Request *request));

int MPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    MPI_MT_GUARD();
    return alltoallw_c("MPI_Neighbor_alltoallw_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                       recvcounts, rdispls, recvtypes, comm, false, NULL);
}
MPI_PMPI_ALIAS(Neighbor_alltoallw_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));

int MPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    return alltoallw_c("MPI_Ineighbor_alltoallw_c", sendbuf, sendcounts, sdispls, sendtypes,
                       recvbuf, recvcounts, rdispls, recvtypes, comm, true, request);
}
MPI_PMPI_ALIAS(Ineighbor_alltoallw_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                MPI_Request *request));

/* the persistent ones: converted at the init, kept with the request (mpi_pcoll_c_new) */
static int init_c(const char *call, mpi_pcoll_start_fn *start, mpi_pcoll_check_fn *check,
                  const mpi_c_in_t *in, mpi_pcoll_args_t *a, MPI_Info info, MPI_Request *request)
{
    mpi_c_out_t o;
    int err = mpi_c_nbr(a->comm, call, in, &o);

    a->scount = o.scount;
    a->rcount = o.rcount;
    return mpi_pcoll_c_new(call, info, a, &o, err, start, check, request);
}

int MPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.scount = sendcount, .rcount = recvcount};
    mpi_pcoll_args_t a = {
        .comm = comm, .sbuf = sendbuf, .sdt = sendtype, .rbuf = recvbuf, .rdt = recvtype};

    return init_c("MPI_Neighbor_allgather_init_c", start_allgather, check_allgather, &in, &a, info,
                  request);
}
MPI_PMPI_ALIAS(Neighbor_allgather_init_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                MPI_Request *request));

int MPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.scount = sendcount, .rcount = recvcount};
    mpi_pcoll_args_t a = {
        .comm = comm, .sbuf = sendbuf, .sdt = sendtype, .rbuf = recvbuf, .rdt = recvtype};

    return init_c("MPI_Neighbor_alltoall_init_c", start_alltoall, check_alltoall, &in, &a, info,
                  request);
}
MPI_PMPI_ALIAS(Neighbor_alltoall_init_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                MPI_Request *request));

int MPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.scount = sendcount, .rcounts = recvcounts, .rdispls = displs};
    mpi_pcoll_args_t a = {
        .comm = comm, .sbuf = sendbuf, .sdt = sendtype, .rbuf = recvbuf, .rdt = recvtype};

    return init_c("MPI_Neighbor_allgatherv_init_c", start_allgatherv, check_allgatherv, &in, &a,
                  info, request);
}
MPI_PMPI_ALIAS(Neighbor_allgatherv_init_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                  const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {
        .scounts = sendcounts, .sdispls = sdispls, .rcounts = recvcounts, .rdispls = rdispls};
    mpi_pcoll_args_t a = {
        .comm = comm, .sbuf = sendbuf, .sdt = sendtype, .rbuf = recvbuf, .rdt = recvtype};

    return init_c("MPI_Neighbor_alltoallv_init_c", start_alltoallv, check_alltoallv, &in, &a, info,
                  request);
}
MPI_PMPI_ALIAS(Neighbor_alltoallv_init_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                MPI_Request *request));

int MPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                  void *recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.scounts = sendcounts, .rcounts = recvcounts};
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .sadispls = sdispls,
                          .sdts = sendtypes,
                          .rbuf = recvbuf,
                          .radispls = rdispls,
                          .rdts = recvtypes,
                          .nbr = true};

    return init_c("MPI_Neighbor_alltoallw_init_c", start_alltoallw, check_alltoallw, &in, &a, info,
                  request);
}
MPI_PMPI_ALIAS(Neighbor_alltoallw_init_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                MPI_Info info, MPI_Request *request));
