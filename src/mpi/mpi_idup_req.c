/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kind of request of an MPI_Comm_idup: rcmsg_comm_idup's request, and what the new
 * communicator takes from its parent as of the call (MPI-3.1 6.4.2: as if Comm_dup ran then):
 * the attributes (their copy callbacks run at the call) and the topology, held here until the
 * request completes; then the communicator object is made and *newcomm written (not before).
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>

typedef struct {
    rcmsg_comm_t rc;   /* written by rcmsg when the request completes */
    MPI_Comm *newcomm; /* the program's: written at completion */
    mpi_comm_t hold;   /* the attributes copied at the call (only attrs is used) */
    mpi_topo_t *topo;  /* the parent's topology, copied at the call (or NULL) */
} idup_req_t;

/* The communicator made from what the request holds: *newcomm on success. */
static int idup_make(mpi_req_t *req, idup_req_t *ir)
{
    MPI_Comm nc;
    mpi_comm_t *n;
    int err = mpi_comm_wrap(req->comm, "MPI_Comm_idup", ir->rc, req->comm->members, &nc);

    if (err != MPI_SUCCESS) {
        return err;
    }
    n = mpi_comm_get(nc);
    n->attrs = ir->hold.attrs;
    ir->hold.attrs = NULL;
    n->topo = ir->topo;
    ir->topo = NULL;
    n->hw_type = req->comm->hw_type; /* a static string */
    *ir->newcomm = nc;
    return MPI_SUCCESS;
}

static void idup_record(mpi_req_t *req, rcmsg_status_t s)
{
    idup_req_t *ir = req->priv;
    int err = MPI_SUCCESS;

    req->rc = RCMSG_REQUEST_NULL;
    if (s != RCMSG_OK) {
        err = mpi_err_note(mpi_err_code(mpi_err_class_of(s), s), "MPI_Comm_idup failed: %s (%s)",
                           rcmsg_strerror(s), rcmsg_status_name(s));
    } else {
        err = idup_make(req, ir);
    }
    mpi_status_set(&req->done, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, err, false);
}

static bool idup_test(mpi_req_t *req)
{
    int flag = 0;
    rcmsg_status_t s = rcmsg_test(&req->rc, &flag, NULL);

    if (flag) {
        idup_record(req, s);
    }
    return flag != 0;
}

static void idup_wait(mpi_req_t *req)
{
    idup_record(req, rcmsg_wait(&req->rc, NULL));
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

int mpi_idup_req_start(mpi_comm_t *c, const char *call, MPI_Comm *newcomm, MPI_Request *request)
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
    s = rcmsg_comm_idup(c->rc, &ir->rc, &r->rc);
    if (s != RCMSG_OK) {
        mpi_req_delete(r);
        return mpi_err_rcmsg(c, call, s);
    }
    *request = r->handle;
    return MPI_SUCCESS;
}
