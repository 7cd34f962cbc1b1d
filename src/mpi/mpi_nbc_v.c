/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Nonblocking v and w collectives: Igatherv, Iscatterv, Iallgatherv, Ialltoallv, Ialltoallw,
 * bindings over rcmsg_igatherv, rcmsg_iscatterv, rcmsg_iallgatherv and rcmsg_ialltoallv. As the
 * blocking ones (mpi_coll_v.c), the blocks travel as bytes: the user's buffer itself when the
 * types are contiguous, else packed copies kept with the request (mpi_coll_req.c) and the
 * result unpacked when it completes. Over an intercommunicator: rcmsg's nonblocking forms on
 * its intercommunicator (mpi_inter_coll.c).
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>

/* the checked arguments of a v-collective on an intracommunicator (a: as coll_check) */
static mpi_comm_t *nbcv_enter(const char *call, MPI_Comm comm, coll_args_t *a, MPI_Request *request,
                              int *err_p)
{
    mpi_comm_t *c = mpi_nbc_args(call, comm, request, err_p);

    if (c != NULL && a != NULL && (*err_p = coll_check(c, call, a)) != MPI_SUCCESS) {
        return NULL;
    }
    return c;
}

/* the arguments of Igatherv, Iscatterv and Iallgatherv as coll_check reads them (root -1 for
 * Iallgatherv) */
static coll_args_t gatherv_args(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const int *recvcounts, const int *displs,
                                MPI_Datatype recvtype, int root)
{
    return (coll_args_t){.shape = root < 0 ? COLL_ALL : COLL_TO_ROOT,
                         .root = root < 0 ? 0 : root,
                         .send = {sendbuf, sendcount, sendtype},
                         .recv = {recvbuf, 0, recvtype, true, recvcounts, displs},
                         .blocks = true};
}

static coll_args_t scatterv_args(const void *sendbuf, const int *sendcounts, const int *displs,
                                 MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                 MPI_Datatype recvtype, int root)
{
    return (coll_args_t){.shape = COLL_FROM_ROOT,
                         .root = root,
                         .send = {sendbuf, 0, sendtype, true, sendcounts, displs},
                         .recv = {recvbuf, recvcount, recvtype},
                         .blocks = true};
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Igatherv";
    coll_args_t a =
        gatherv_args(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root);
    coll_buf_t *vi, *unused;
    coll_vbuf_t *vin, *vr;
    coll_blk_t *rb = NULL;
    mpi_comm_t *c;
    mpi_req_t *r;
    bool in_place;
    rcmsg_status_t s = RCMSG_OK;
    int err;

    MPI_CHECK_ACTIVE(call);
    if ((c = mpi_nbc_args(call, comm, request, &err)) != NULL && c->inter) {
        return mpi_nbc_inter_gatherv(c, call, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                     displs, recvtype, root, request);
    }
    if (c == NULL || (c = nbcv_enter(call, comm, &a, request, &err)) == NULL ||
        (r = mpi_coll_req_new(c, call, &vi, &unused, &err)) == NULL) {
        return err;
    }
    mpi_coll_req_vbufs(r, &vin, &vr);
    in_place = c->rank == root && sendbuf == MPI_IN_PLACE;
    if (!in_place) {
        err = coll_view_in(c, call, vi, sendbuf, (size_t)sendcount, a.st);
    }
    if (err == MPI_SUCCESS && c->rank == root &&
        (rb = coll_blks_of(c, call, recvbuf, recvcounts, displs, a.rt, &err)) != NULL) {
        mpi_coll_req_vunpack(r, rb, c->size);
        err = coll_vbuf_out(c, call, vr, rb, c->size, in_place ? root : -1);
    }
    if (err == MPI_SUCCESS) {
        s = rcmsg_igatherv(in_place ? RCMSG_IN_PLACE : vi->p, vi->bytes, vr->base, vr->counts,
                           vr->displs, RCMSG_UINT8, root, c->rc, &r->rc);
    }
    return mpi_coll_req_start(r, call, err, s, request);
}
MPI_LOCAL_ALIAS(Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                           int root, MPI_Comm comm, MPI_Request *request));

int MPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {
        .sbuf = sendbuf, .scount = sendcount, .rcounts = recvcounts, .rdispls = displs};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, "MPI_Igatherv_c", root, MPI_C_GATHER, &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Igatherv(sendbuf, o.scount, sendtype, recvbuf, o.r.counts, o.r.displs,
                                 recvtype, root, comm, request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Igatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Iscatterv";
    coll_args_t a =
        scatterv_args(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root);
    coll_buf_t *unused, *vo;
    coll_vbuf_t *vs, *vout;
    coll_blk_t *sb = NULL;
    mpi_comm_t *c;
    mpi_req_t *r;
    bool in_place;
    rcmsg_status_t s = RCMSG_OK;
    int err;

    MPI_CHECK_ACTIVE(call);
    if ((c = mpi_nbc_args(call, comm, request, &err)) != NULL && c->inter) {
        return mpi_nbc_inter_scatterv(c, call, sendbuf, sendcounts, displs, sendtype, recvbuf,
                                      recvcount, recvtype, root, request);
    }
    if (c == NULL || (c = nbcv_enter(call, comm, &a, request, &err)) == NULL ||
        (r = mpi_coll_req_new(c, call, &unused, &vo, &err)) == NULL) {
        return err;
    }
    mpi_coll_req_vbufs(r, &vs, &vout);
    in_place = c->rank == root && recvbuf == MPI_IN_PLACE;
    if (c->rank == root &&
        (sb = coll_blks_of(c, call, sendbuf, sendcounts, displs, a.st, &err)) != NULL) {
        err = coll_vbuf_in(c, call, vs, sb, c->size);
        free(sb);
    }
    if (err == MPI_SUCCESS && !in_place) {
        err = coll_view_out(c, call, vo, recvbuf, (size_t)recvcount, a.rt);
        mpi_coll_req_unpack(r, recvbuf, (size_t)recvcount, a.rt);
    }
    if (err == MPI_SUCCESS) {
        s = rcmsg_iscatterv(vs->base, vs->counts, vs->displs, in_place ? RCMSG_IN_PLACE : vo->p,
                            vo->bytes, RCMSG_UINT8, root, c->rc, &r->rc);
    }
    return mpi_coll_req_start(r, call, err, s, request);
}
MPI_LOCAL_ALIAS(Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[],
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));

int MPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {
        .scounts = sendcounts, .sdispls = displs, .rbuf = recvbuf, .rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, "MPI_Iscatterv_c", root, MPI_C_SCATTER, &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Iscatterv(sendbuf, o.s.counts, o.s.displs, sendtype, recvbuf, o.rcount,
                                  recvtype, root, comm, request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Iscatterv_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                int root, MPI_Comm comm, MPI_Request *request));

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Iallgatherv";
    coll_args_t a =
        gatherv_args(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, -1);
    coll_buf_t *vi, *unused;
    coll_vbuf_t *vin, *vr;
    coll_blk_t *rb;
    mpi_comm_t *c;
    mpi_req_t *r;
    bool in_place = sendbuf == MPI_IN_PLACE;
    rcmsg_status_t s = RCMSG_OK;
    int err;

    MPI_CHECK_ACTIVE(call);
    if ((c = mpi_nbc_args(call, comm, request, &err)) != NULL && c->inter) {
        return mpi_nbc_inter_allgatherv(c, call, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                        displs, recvtype, request);
    }
    if (c == NULL || (c = nbcv_enter(call, comm, &a, request, &err)) == NULL ||
        (r = mpi_coll_req_new(c, call, &vi, &unused, &err)) == NULL) {
        return err;
    }
    mpi_coll_req_vbufs(r, &vin, &vr);
    if ((rb = coll_blks_of(c, call, recvbuf, recvcounts, displs, a.rt, &err)) == NULL) {
        return mpi_coll_req_start(r, call, err, s, request);
    }
    mpi_coll_req_vunpack(r, rb, c->size);
    if (!in_place) {
        err = coll_view_in(c, call, vi, sendbuf, (size_t)sendcount, a.st);
    }
    if (err == MPI_SUCCESS) {
        err = coll_vbuf_out(c, call, vr, rb, c->size, in_place ? c->rank : -1);
    }
    if (err == MPI_SUCCESS) {
        s = rcmsg_iallgatherv(in_place ? RCMSG_IN_PLACE : vi->p, vi->bytes, vr->base, vr->counts,
                              vr->displs, RCMSG_UINT8, c->rc, &r->rc);
    }
    return mpi_coll_req_start(r, call, err, s, request);
}
MPI_LOCAL_ALIAS(Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));

int MPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {
        .sbuf = sendbuf, .scount = sendcount, .rcounts = recvcounts, .rdispls = displs};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Iallgatherv_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Iallgatherv(sendbuf, o.scount, sendtype, recvbuf, o.r.counts, o.r.displs,
                                    recvtype, comm, request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Iallgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));

/* The blocks of Ialltoallv (w false: one type each side, displacements in elements) and
 * Ialltoallw (displacements in bytes), their counts and types checked; in place, the send
 * blocks are the receive blocks. */
typedef struct {
    const void *sendbuf;
    const int *sc, *sd;
    const MPI_Datatype *st;
    void *recvbuf;
    const int *rc, *rd;
    const MPI_Datatype *rt;
    bool w;
} vw_args_t;

static int nbcv_vw_blocks(mpi_comm_t *c, const char *call, const vw_args_t *v, coll_blk_t *sb,
                          coll_blk_t *rb)
{
    int err = MPI_SUCCESS;

    for (int i = 0; i < c->size && err == MPI_SUCCESS; i++) {
        mpi_type_t *st = NULL, *rt = NULL;

        if ((err = mpi_check_buf(c, call, v->sendbuf, v->sc[i], v->st[v->w ? i : 0], &st)) !=
                MPI_SUCCESS ||
            (err = mpi_check_buf(c, call, v->recvbuf, v->rc[i], v->rt[v->w ? i : 0], &rt)) !=
                MPI_SUCCESS) {
            break;
        }
        sb[i] = (coll_blk_t){v->w ? (const char *)v->sendbuf + v->sd[i]
                                  : coll_blk_at(v->sendbuf, v->sd[i], st),
                             (size_t)v->sc[i], st};
        rb[i] = (coll_blk_t){v->w ? (const char *)v->recvbuf + v->rd[i]
                                  : coll_blk_at(v->recvbuf, v->rd[i], rt),
                             (size_t)v->rc[i], rt};
    }
    return err;
}

/* Ialltoallv and Ialltoallw on an intracommunicator (request MPI_NBC_CHECK_ONLY: the checks
 * alone) */
static int nbcv_alltoall(const char *call, vw_args_t v, MPI_Comm comm, MPI_Request *request)
{
    bool in_place = v.sendbuf == MPI_IN_PLACE;
    coll_buf_t *u1, *u2;
    coll_vbuf_t *vs, *vr;
    coll_blk_t *sb = NULL, *rb = NULL;
    mpi_comm_t *c;
    mpi_req_t *r;
    rcmsg_status_t s = RCMSG_OK;
    int err;

    if ((c = mpi_nbc_args(call, comm, request, &err)) == NULL) {
        return err;
    }
    if ((err = coll_check_vw(c, call, v.sendbuf, v.sc, v.sd, v.st, v.recvbuf, v.rc, v.rd, v.rt,
                             v.w)) != MPI_SUCCESS) {
        return err;
    }
    if (in_place) {
        v.sc = v.rc, v.sd = v.rd, v.st = v.rt, v.sendbuf = v.recvbuf;
    }
    if ((sb = coll_blks_new(c, call, c->size, &err)) == NULL ||
        (rb = coll_blks_new(c, call, c->size, &err)) == NULL ||
        (err = nbcv_vw_blocks(c, call, &v, sb, rb)) != MPI_SUCCESS ||
        request == MPI_NBC_CHECK_ONLY || (r = mpi_coll_req_new(c, call, &u1, &u2, &err)) == NULL) {
        free(sb);
        free(rb);
        return err;
    }
    mpi_coll_req_vbufs(r, &vs, &vr);
    mpi_coll_req_vunpack(r, rb, c->size);
    if (!in_place) {
        err = coll_vbuf_in(c, call, vs, sb, c->size);
    }
    if (err == MPI_SUCCESS) {
        err = in_place ? coll_vbuf_in(c, call, vr, rb, c->size)
                       : coll_vbuf_out(c, call, vr, rb, c->size, -1);
    }
    free(sb);
    if (err == MPI_SUCCESS) {
        s = rcmsg_ialltoallv(in_place ? RCMSG_IN_PLACE : vs->base, vs->counts, vs->displs, vr->base,
                             vr->counts, vr->displs, RCMSG_UINT8, c->rc, &r->rc);
    }
    return mpi_coll_req_start(r, call, err, s, request);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Ialltoallv";
    mpi_comm_t *c;
    int err;

    MPI_CHECK_ACTIVE(call);
    if ((c = mpi_nbc_args(call, comm, request, &err)) != NULL && c->inter) {
        return mpi_nbc_inter_alltoallvw(c, call, sendbuf, sendcounts, sdispls, &sendtype, recvbuf,
                                        recvcounts, rdispls, &recvtype, false, request);
    }
    if (c == NULL) {
        return err;
    }
    return nbcv_alltoall(call,
                         (vw_args_t){sendbuf, sendcounts, sdispls, &sendtype, recvbuf, recvcounts,
                                     rdispls, &recvtype, false},
                         comm, request);
}
MPI_LOCAL_ALIAS(Ialltoallv,
                (const void *sendbuf, const int sendcounts[], const int sdispls[],
                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));

int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls = sdispls,
                     .rcounts = recvcounts,
                     .rdispls = rdispls};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Ialltoallv_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Ialltoallv(sendbuf, o.s.counts, o.s.displs, sendtype, recvbuf, o.r.counts,
                                   o.r.displs, recvtype, comm, request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Ialltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Ialltoallw";
    mpi_comm_t *c;
    int err;

    MPI_CHECK_ACTIVE(call);
    if ((c = mpi_nbc_args(call, comm, request, &err)) != NULL && c->inter) {
        return mpi_nbc_inter_alltoallvw(c, call, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                        recvcounts, rdispls, recvtypes, true, request);
    }
    if (c == NULL) {
        return err;
    }
    return nbcv_alltoall(call,
                         (vw_args_t){sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                     rdispls, recvtypes, true},
                         comm, request);
}
MPI_LOCAL_ALIAS(Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request));

int MPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                     MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_c_in_t in = {.sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls = sdispls,
                     .rcounts = recvcounts,
                     .rdispls = rdispls};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, "MPI_Ialltoallw_c", &in, &o);

    if (err == MPI_SUCCESS) {
        err = mpi_local_Ialltoallw(sendbuf, o.s.counts, o.s.displs, sendtypes, recvbuf, o.r.counts,
                                   o.r.displs, recvtypes, comm, request);
    }
    mpi_c_out_free(&o);
    return err;
}
MPI_PMPI_ALIAS(Ialltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request));

/* ---- the persistent forms (MPI-4.0): each start runs the nonblocking one above ------------- */
/* the init's checks: coll_check's (nbcv_alltoall's), on the nonblocking forms' arguments;
 * over an intercommunicator, the intercommunicator forms' (MPI_NBC_CHECK_ONLY) */
static int check_gatherv(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    coll_args_t ca =
        gatherv_args(a->sbuf, a->scount, a->sdt, a->rbuf, a->rcounts, a->rdispls, a->rdt, a->root);

    if (c->inter) {
        return mpi_nbc_inter_gatherv(c, call, a->sbuf, a->scount, a->sdt, a->rbuf, a->rcounts,
                                     a->rdispls, a->rdt, a->root, MPI_NBC_CHECK_ONLY);
    }
    return coll_check(c, call, &ca);
}

static int check_scatterv(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    coll_args_t ca =
        scatterv_args(a->sbuf, a->scounts, a->sdispls, a->sdt, a->rbuf, a->rcount, a->rdt, a->root);

    if (c->inter) {
        return mpi_nbc_inter_scatterv(c, call, a->sbuf, a->scounts, a->sdispls, a->sdt, a->rbuf,
                                      a->rcount, a->rdt, a->root, MPI_NBC_CHECK_ONLY);
    }
    return coll_check(c, call, &ca);
}

static int check_allgatherv(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    coll_args_t ca =
        gatherv_args(a->sbuf, a->scount, a->sdt, a->rbuf, a->rcounts, a->rdispls, a->rdt, -1);

    if (c->inter) {
        return mpi_nbc_inter_allgatherv(c, call, a->sbuf, a->scount, a->sdt, a->rbuf, a->rcounts,
                                        a->rdispls, a->rdt, MPI_NBC_CHECK_ONLY);
    }
    return coll_check(c, call, &ca);
}

/* Alltoallv_init's (w false: a->sdt, a->rdt) and Alltoallw_init's (a->sdts, a->rdts) */
static int check_alltoallvw(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a, bool w)
{
    const MPI_Datatype *st = w ? a->sdts : &a->sdt, *rt = w ? a->rdts : &a->rdt;

    if (c->inter) {
        return mpi_nbc_inter_alltoallvw(c, call, a->sbuf, a->scounts, a->sdispls, st, a->rbuf,
                                        a->rcounts, a->rdispls, rt, w, MPI_NBC_CHECK_ONLY);
    }
    return nbcv_alltoall(
        call,
        (vw_args_t){a->sbuf, a->scounts, a->sdispls, st, a->rbuf, a->rcounts, a->rdispls, rt, w},
        a->comm, MPI_NBC_CHECK_ONLY);
}

static int check_alltoallv(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    return check_alltoallvw(c, call, a, false);
}

static int check_alltoallw(mpi_comm_t *c, const char *call, const mpi_pcoll_args_t *a)
{
    return check_alltoallvw(c, call, a, true);
}

static int start_gatherv(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Igatherv(a->sbuf, a->scount, a->sdt, a->rbuf, a->rcounts, a->rdispls, a->rdt,
                        a->root, a->comm, request);
}

int MPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .scount = sendcount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = displs,
                          .rdt = recvtype,
                          .root = root};

    return mpi_pcoll_new("MPI_Gatherv_init", info, &a, start_gatherv, check_gatherv, request);
}
MPI_PMPI_ALIAS(Gatherv_init,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));

static int start_scatterv(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Iscatterv(a->sbuf, a->scounts, a->sdispls, a->sdt, a->rbuf, a->rcount, a->rdt,
                         a->root, a->comm, request);
}

int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .scounts = sendcounts,
                          .sdispls = displs,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = recvcount,
                          .rdt = recvtype,
                          .root = root};

    return mpi_pcoll_new("MPI_Scatterv_init", info, &a, start_scatterv, check_scatterv, request);
}
MPI_PMPI_ALIAS(Scatterv_init,
               (const void *sendbuf, const int sendcounts[], const int displs[],
                MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));

static int start_allgatherv(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Iallgatherv(a->sbuf, a->scount, a->sdt, a->rbuf, a->rcounts, a->rdispls, a->rdt,
                           a->comm, request);
}

int MPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
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

    return mpi_pcoll_new("MPI_Allgatherv_init", info, &a, start_allgatherv, check_allgatherv,
                         request);
}
MPI_PMPI_ALIAS(Allgatherv_init,
               (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                MPI_Info info, MPI_Request *request));

static int start_alltoallv(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Ialltoallv(a->sbuf, a->scounts, a->sdispls, a->sdt, a->rbuf, a->rcounts, a->rdispls,
                          a->rdt, a->comm, request);
}

int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
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

    return mpi_pcoll_new("MPI_Alltoallv_init", info, &a, start_alltoallv, check_alltoallv, request);
}
MPI_PMPI_ALIAS(Alltoallv_init,
               (const void *sendbuf, const int sendcounts[], const int sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));

static int start_alltoallw(const mpi_pcoll_args_t *a, MPI_Request *request)
{
    return MPI_Ialltoallw(a->sbuf, a->scounts, a->sdispls, a->sdts, a->rbuf, a->rcounts, a->rdispls,
                          a->rdts, a->comm, request);
}

int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .scounts = sendcounts,
                          .sdispls = sdispls,
                          .sdts = sendtypes,
                          .rbuf = recvbuf,
                          .rcounts = recvcounts,
                          .rdispls = rdispls,
                          .rdts = recvtypes};

    return mpi_pcoll_new("MPI_Alltoallw_init", info, &a, start_alltoallw, check_alltoallw, request);
}
MPI_PMPI_ALIAS(Alltoallw_init,
               (const void *sendbuf, const int sendcounts[], const int sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                MPI_Request *request));

/* ---- their large-count forms: the counts converted at the init (mpi_c_rooted, mpi_c_all),
 * kept with the request ---------------------------------------------------------------------- */

int MPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Gatherv_init_c";
    mpi_c_in_t in = {
        .sbuf = sendbuf, .scount = sendcount, .rcounts = recvcounts, .rdispls = displs};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, call, root, MPI_C_GATHER, &in, &o);
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .scount = o.scount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rdt = recvtype,
                          .root = root};

    return mpi_pcoll_c_new(call, info, &a, &o, err, start_gatherv, check_gatherv, request);
}
MPI_PMPI_ALIAS(Gatherv_init_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                        MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Scatterv_init_c";
    mpi_c_in_t in = {
        .scounts = sendcounts, .sdispls = displs, .rbuf = recvbuf, .rcount = recvcount};
    mpi_c_out_t o;
    int err = mpi_c_rooted(comm, call, root, MPI_C_SCATTER, &in, &o);
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rcount = o.rcount,
                          .rdt = recvtype,
                          .root = root};

    return mpi_pcoll_c_new(call, info, &a, &o, err, start_scatterv, check_scatterv, request);
}
MPI_PMPI_ALIAS(Scatterv_init_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));

int MPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Allgatherv_init_c";
    mpi_c_in_t in = {
        .sbuf = sendbuf, .scount = sendcount, .rcounts = recvcounts, .rdispls = displs};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, call, &in, &o);
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .scount = o.scount,
                          .sdt = sendtype,
                          .rbuf = recvbuf,
                          .rdt = recvtype};

    return mpi_pcoll_c_new(call, info, &a, &o, err, start_allgatherv, check_allgatherv, request);
}
MPI_PMPI_ALIAS(Allgatherv_init_c,
               (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                MPI_Comm comm, MPI_Info info, MPI_Request *request));

/* Alltoallv_init_c's (st, rt: one type each) and Alltoallw_init_c's (w: sts, rts, one per
 * peer) */
static int init_alltoallvw_c(const char *call, bool w, const void *sendbuf,
                             const MPI_Count *sendcounts, const MPI_Aint *sdispls, MPI_Datatype st,
                             const MPI_Datatype *sts, void *recvbuf, const MPI_Count *recvcounts,
                             const MPI_Aint *rdispls, MPI_Datatype rt, const MPI_Datatype *rts,
                             MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    mpi_c_in_t in = {.sbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls = sdispls,
                     .rcounts = recvcounts,
                     .rdispls = rdispls};
    mpi_c_out_t o;
    int err = mpi_c_all(comm, call, &in, &o);
    mpi_pcoll_args_t a = {.comm = comm,
                          .sbuf = sendbuf,
                          .sdt = st,
                          .sdts = sts,
                          .rbuf = recvbuf,
                          .rdt = rt,
                          .rdts = rts};

    return mpi_pcoll_c_new(call, info, &a, &o, err, w ? start_alltoallw : start_alltoallv,
                           w ? check_alltoallw : check_alltoallv, request);
}

int MPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_alltoallvw_c("MPI_Alltoallv_init_c", false, sendbuf, sendcounts, sdispls, sendtype,
                             NULL, recvbuf, recvcounts, rdispls, recvtype, NULL, comm, info,
                             request);
}
MPI_PMPI_ALIAS(Alltoallv_init_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                MPI_Request *request));

int MPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                         MPI_Request *request)
{
    MPI_MT_GUARD();
    return init_alltoallvw_c("MPI_Alltoallw_init_c", true, sendbuf, sendcounts, sdispls, 0,
                             sendtypes, recvbuf, recvcounts, rdispls, 0, recvtypes, comm, info,
                             request);
}
MPI_PMPI_ALIAS(Alltoallw_init_c,
               (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                MPI_Info info, MPI_Request *request));
