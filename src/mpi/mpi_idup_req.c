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

/* ---- the duplicate (mpi_dupset_t: see mpi_engines.h) ---- */
rcmsg_status_t mpi_dupset_post(mpi_comm_t *c, mpi_dupset_t *d)
{
    rcmsg_comm_t p[MPI_INTER_RCS];
    rcmsg_status_t s = RCMSG_OK;
    int n = mpi_comm_rcs(c, p);

    for (int i = 0; i < MPI_INTER_RCS; i++) {
        d->rc[i] = RCMSG_COMM_NULL;
        d->req[i] = RCMSG_REQUEST_NULL;
    }
    for (int i = 0; i < n && (i == 0 || d->req[0] != RCMSG_REQUEST_NULL); i++) {
        rcmsg_status_t si = rcmsg_comm_idup(p[i], &d->rc[i], &d->req[i]);

        s = s == RCMSG_OK ? si : s; /* the rest still posted: the other members wait on them */
    }
    d->s = s;
    d->n = d->req[0] == RCMSG_REQUEST_NULL ? 0 : n;
    return d->n == 0 ? s : RCMSG_OK;
}

bool mpi_dupset_test(mpi_dupset_t *d, bool block)
{
    bool all = true;

    for (int i = 0; i < d->n; i++) {
        int flag = 1;
        rcmsg_status_t s = RCMSG_OK;

        if (d->req[i] != RCMSG_REQUEST_NULL) {
            s = block ? rcmsg_wait(&d->req[i], NULL) : rcmsg_test(&d->req[i], &flag, NULL);
        }
        d->s = d->s == RCMSG_OK ? s : d->s;
        all = all && flag != 0;
    }
    return all;
}

void mpi_dupset_drop(mpi_dupset_t *d)
{
    for (int i = 0; i < d->n; i++) {
        if (d->rc[i] != RCMSG_COMM_NULL) {
            rcmsg_comm_free(&d->rc[i]);
        }
    }
    d->n = 0;
}

int mpi_dupset_make(mpi_comm_t *c, const char *call, mpi_dupset_t *d, MPI_Comm *newcomm)
{
    rcmsg_status_t s = d->s;
    int err;

    if (s != RCMSG_OK) {
        mpi_dupset_drop(d);
        return mpi_err_note(mpi_err_code(mpi_err_class_of(s), s),
                            "%s: the duplicate communicator could not be agreed on: %s (%s)", call,
                            rcmsg_strerror(s), rcmsg_status_name(s));
    }
    err = c->inter ? mpi_inter_make(c, call, RCMSG_OK, d->rc, newcomm)
                   : mpi_comm_wrap(c, call, d->rc[0], c->members, newcomm);
    for (int i = 0; i < d->n; i++) {
        d->rc[i] = RCMSG_COMM_NULL; /* (taken, or freed on failure) */
    }
    d->n = 0;
    return err;
}

/* ---- the request kind ---- */
typedef struct {
    mpi_dupset_t d;
    MPI_Comm *newcomm;   /* the program's: written at completion */
    mpi_comm_t hold;     /* the attributes copied at the call (only attrs) */
    mpi_topo_t *topo;    /* the parent's topology, copied at the call (or NULL) */
    const char *hw_type; /* the parent's hints (a static string), or NULL */
} idup_req_t;

/* The request is complete (every rcmsg idup): the outcome in req->done, the communicator made
 * from what the request holds (*newcomm) on success. */
static void idup_record(mpi_req_t *req)
{
    idup_req_t *ir = req->priv;
    MPI_Comm nc;
    mpi_comm_t *n;
    int err = mpi_dupset_make(req->comm, "MPI_Comm_idup", &ir->d, &nc);

    if (err == MPI_SUCCESS) {
        n = mpi_comm_get(nc);
        n->attrs = ir->hold.attrs;
        ir->hold.attrs = NULL;
        n->topo = ir->topo;
        ir->topo = NULL;
        n->hw_type = ir->hw_type;
        *ir->newcomm = nc;
    }
    mpi_status_set(&req->done, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, err, false);
}

static bool idup_test(mpi_req_t *req)
{
    idup_req_t *ir = req->priv;

    if (!mpi_dupset_test(&ir->d, false)) {
        return false;
    }
    idup_record(req);
    return true;
}

static void idup_wait(mpi_req_t *req)
{
    idup_req_t *ir = req->priv;

    (void)mpi_dupset_test(&ir->d, true);
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
        *newcomm = MPI_COMM_NULL; /* no request: the dup failed (as Comm_dup's) */
        return mpi_err(c, call, err, "%s",
                       err == MPI_ERR_NO_MEM ? "out of memory for the attributes or topology"
                                             : "an attribute's copy callback failed");
    }
    s = mpi_dupset_post(c, &ir->d);
    if (s != RCMSG_OK) {
        mpi_req_delete(r);
        *newcomm = MPI_COMM_NULL;
        return mpi_err_rcmsg(c, call, s);
    }
    *request = r->handle;
    return MPI_SUCCESS;
}
