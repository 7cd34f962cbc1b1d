/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kind of request of an MPI_Comm_idup: rcmsg_comm_idup's requests, and what the new
 * communicator takes from its parent as of the call (MPI-3.1 6.4.2: as if Comm_dup ran then):
 * the attributes (their copy callbacks run at the call) and the topology, held here until the
 * request completes; then the communicator object is made and *newcomm written (not before).
 * An intracommunicator's is one rcmsg_comm_idup; an intercommunicator's three, of its union,
 * its local group and its collectives' rcmsg intercommunicator (mpi_objects.h), posted at the
 * call in that order on every member (the order of its collectives): the request completes
 * when the three did, and fails when any did (the others' communicators freed).
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>

typedef struct {
    int n;                              /* rcmsg idups: 1, or MPI_INTER_RCS */
    rcmsg_comm_t rc[MPI_INTER_RCS];     /* written by rcmsg as each completes */
    rcmsg_request_t req[MPI_INTER_RCS]; /* NULL once complete */
    rcmsg_status_t s;                   /* the first failure */
    MPI_Comm *newcomm;                  /* the program's: written at completion */
    mpi_comm_t hold;                    /* the attributes copied at the call (only attrs) */
    mpi_topo_t *topo;                   /* the parent's topology, copied at the call (or NULL) */
    const char *hw_type;                /* the parent's hints (a static string), or NULL */
} idup_req_t;

/* The communicator made from what the request holds: *newcomm on success. */
static int idup_make(mpi_req_t *req, idup_req_t *ir)
{
    MPI_Comm nc;
    mpi_comm_t *n;
    int err = req->comm->inter
                  ? mpi_inter_make(req->comm, "MPI_Comm_idup", RCMSG_OK, ir->rc, &nc)
                  : mpi_comm_wrap(req->comm, "MPI_Comm_idup", ir->rc[0], req->comm->members, &nc);

    for (int i = 0; i < ir->n; i++) {
        ir->rc[i] = RCMSG_COMM_NULL; /* (taken, or freed on failure) */
    }
    if (err != MPI_SUCCESS) {
        return err;
    }
    n = mpi_comm_get(nc);
    n->attrs = ir->hold.attrs;
    ir->hold.attrs = NULL;
    n->topo = ir->topo;
    ir->topo = NULL;
    n->hw_type = ir->hw_type;
    *ir->newcomm = nc;
    return MPI_SUCCESS;
}

/* The request is complete (every rcmsg idup): the outcome in req->done. */
static void idup_record(mpi_req_t *req)
{
    idup_req_t *ir = req->priv;
    rcmsg_status_t s = ir->s;
    int err = MPI_SUCCESS;

    if (s != RCMSG_OK) {
        for (int i = 0; i < ir->n; i++) {
            if (ir->rc[i] != RCMSG_COMM_NULL) {
                rcmsg_comm_free(&ir->rc[i]);
            }
        }
        err = mpi_err_note(mpi_err_code(mpi_err_class_of(s), s), "MPI_Comm_idup failed: %s (%s)",
                           rcmsg_strerror(s), rcmsg_status_name(s));
    } else {
        err = idup_make(req, ir);
    }
    mpi_status_set(&req->done, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, err, false);
}

static void idup_note(idup_req_t *ir, rcmsg_status_t s)
{
    ir->s = ir->s == RCMSG_OK ? s : ir->s;
}

static bool idup_test(mpi_req_t *req)
{
    idup_req_t *ir = req->priv;
    bool all = true;

    for (int i = 0; i < ir->n; i++) {
        int flag = 1;

        if (ir->req[i] != RCMSG_REQUEST_NULL) {
            flag = 0;
            idup_note(ir, rcmsg_test(&ir->req[i], &flag, NULL));
        }
        all = all && flag != 0;
    }
    if (all) {
        idup_record(req);
    }
    return all;
}

static void idup_wait(mpi_req_t *req)
{
    idup_req_t *ir = req->priv;

    for (int i = 0; i < ir->n; i++) {
        if (ir->req[i] != RCMSG_REQUEST_NULL) {
            idup_note(ir, rcmsg_wait(&ir->req[i], NULL));
        }
    }
    idup_record(req);
}

static int idup_cancel(mpi_req_t *req, const char *call)
{
    return call == NULL ? MPI_ERR_REQUEST
                        : mpi_err(req->comm, call, MPI_ERR_REQUEST,
                                  "a Comm_idup cannot be cancelled (MPI: erroneous)");
}

/* What was not handed to a communicator goes (the attributes' delete callbacks run). */
static void idup_free(mpi_req_t *req)
{
    idup_req_t *ir = req->priv;

    if (ir == NULL) {
        return;
    }
    (void)mpi_attr_delete_all(&ir->hold);
    mpi_attr_release_all(&ir->hold);
    mpi_topo_free(ir->topo);
    free(ir);
    req->priv = NULL;
}

static const mpi_req_ops_t idup_req_ops = {
    .name = "Comm_idup",
    .collective = true,
    .test = idup_test,
    .wait = idup_wait,
    .cancel = idup_cancel,
    .free = idup_free,
};

/* rcmsg's idups of what c is made of. The first one's failure fails the call (nothing posted);
 * a later one's, after others were posted (out of memory), is the request's outcome: the rest
 * are still posted, so that the other members' agreements on them are answered, and those
 * posted complete as the other members' do. */
static rcmsg_status_t idup_post(mpi_comm_t *c, idup_req_t *ir)
{
    rcmsg_comm_t p[MPI_INTER_RCS];
    rcmsg_status_t s = RCMSG_OK;

    ir->n = mpi_comm_rcs(c, p);
    for (int i = 0; i < ir->n; i++) {
        ir->rc[i] = RCMSG_COMM_NULL;
    }
    for (int i = 0; i < ir->n && (i == 0 || ir->req[0] != RCMSG_REQUEST_NULL); i++) {
        rcmsg_status_t si = rcmsg_comm_idup(p[i], &ir->rc[i], &ir->req[i]);

        s = s == RCMSG_OK ? si : s;
    }
    ir->s = s;
    return ir->req[0] == RCMSG_REQUEST_NULL ? s : RCMSG_OK;
}

int mpi_idup_req_start(mpi_comm_t *c, const char *call, bool with_info, MPI_Comm *newcomm,
                       MPI_Request *request)
{
    idup_req_t *ir = calloc(1, sizeof(*ir));
    int err = MPI_ERR_NO_MEM;
    mpi_req_t *r = ir != NULL ? mpi_req_new(c, &idup_req_ops, &err) : NULL;
    rcmsg_status_t s;

    if (r == NULL) {
        free(ir);
        return mpi_err(c, call, err, "out of requests");
    }
    r->priv = ir;
    ir->newcomm = newcomm;
    ir->hw_type = with_info ? NULL : c->hw_type;
    ir->hold.handle = MPI_COMM_NULL;
    err = mpi_attr_copy_all(c, &ir->hold);
    if (err == MPI_SUCCESS && c->topo != NULL && (ir->topo = mpi_topo_copy(c->topo)) == NULL) {
        err = MPI_ERR_NO_MEM;
    }
    if (err != MPI_SUCCESS) {
        mpi_req_delete(r);
        return mpi_err(c, call, err, "%s",
                       err == MPI_ERR_NO_MEM ? "out of memory for the attributes or topology"
                                             : "an attribute's copy callback failed");
    }
    s = idup_post(c, ir);
    if (s != RCMSG_OK) {
        mpi_req_delete(r);
        return mpi_err_rcmsg(c, call, s);
    }
    *request = r->handle;
    return MPI_SUCCESS;
}
