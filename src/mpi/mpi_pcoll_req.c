/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kind of request of a persistent collective (MPI-4.0 6.13: MPI_Bcast_init, ...): the
 * arguments of the call, kept, and the start function its binding handed over, which runs
 * the matching nonblocking collective (the binding's own MPI_Ibcast, ...) at each MPI_Start.
 * The nonblocking collective's request is the inner one: this kind takes it over (its handle
 * released: the program sees only the persistent request), waits and tests through it, copies
 * its outcome when it completes and deletes it; the persistent request is then inactive and
 * can be started again. Buffers and arrays are read at each start (the program keeps them
 * until it frees the request, as MPI says).
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>

typedef struct {
    mpi_pcoll_args_t a;
    mpi_pcoll_start_fn *start;
    mpi_req_t *inner; /* the running nonblocking collective; NULL: none */
} pcoll_req_t;

/* the inner request is over: its outcome becomes the persistent request's */
static void pcoll_end(mpi_req_t *req, pcoll_req_t *p)
{
    req->done = p->inner->done;
    mpi_req_delete(p->inner);
    p->inner = NULL;
}

static bool pcoll_test(mpi_req_t *req)
{
    pcoll_req_t *p = req->priv;

    if (p->inner == NULL) {
        return true;
    }
    if (!mpi_req_test(p->inner)) {
        return false;
    }
    pcoll_end(req, p);
    return true;
}

static void pcoll_wait(mpi_req_t *req)
{
    pcoll_req_t *p = req->priv;

    if (p->inner != NULL) {
        mpi_req_wait(p->inner);
        pcoll_end(req, p);
    }
}

static int pcoll_cancel(mpi_req_t *req, const char *call)
{
    return call == NULL ? MPI_ERR_REQUEST
                        : mpi_err(req->comm, call, MPI_ERR_REQUEST,
                                  "a persistent collective (%s) cannot be cancelled (MPI: "
                                  "erroneous)",
                                  req->what);
}

/* Runs the nonblocking collective through the binding's start function and takes its
 * request over. Its errors are raised by that binding (naming it). */
static int pcoll_start(mpi_req_t *req, const char *call)
{
    pcoll_req_t *p = req->priv;
    MPI_Request h = MPI_REQUEST_NULL;
    int err = p->start(&p->a, &h);

    (void)call;
    if (err != MPI_SUCCESS) {
        return err;
    }
    req->complete = false;
    p->inner = h != MPI_REQUEST_NULL ? mpi_handle_get(MPI_KIND_REQUEST_, h) : NULL;
    if (p->inner == NULL) { /* nothing to wait for */
        mpi_status_empty(&req->done);
        return MPI_SUCCESS;
    }
    mpi_handle_release(MPI_KIND_REQUEST_, h);
    p->inner->handle = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

static void pcoll_free(mpi_req_t *req)
{
    pcoll_req_t *p = req->priv;

    if (p == NULL) {
        return;
    }
    if (p->inner != NULL) { /* Finalize only: its collective could not complete */
        mpi_req_delete(p->inner);
    }
    free(p);
    req->priv = NULL;
}

static const mpi_req_ops_t pcoll_req_ops = {
    .name = "persistent collective",
    .collective = true,
    .test = pcoll_test,
    .wait = pcoll_wait,
    .cancel = pcoll_cancel,
    .free = pcoll_free,
    .start = pcoll_start,
};

int mpi_pcoll_new(const char *call, MPI_Info info, const mpi_pcoll_args_t *a,
                  mpi_pcoll_start_fn *start, MPI_Request *request)
{
    int err;
    mpi_comm_t *c;
    pcoll_req_t *p;
    mpi_req_t *r;

    MPI_CHECK_ACTIVE(call);
    c = mpi_nbc_args(call, a->comm, request, &err);
    if (c == NULL) {
        return err;
    }
    if (info != MPI_INFO_NULL && mpi_info_get(info) == NULL) {
        return mpi_err(c, call, MPI_ERR_INFO, "invalid info %#x", (unsigned)info);
    }
    p = calloc(1, sizeof(*p));
    err = MPI_ERR_NO_MEM;
    r = p != NULL ? mpi_req_new(c, &pcoll_req_ops, &err) : NULL;
    if (r == NULL) {
        free(p);
        return mpi_err(c, call, err, "out of requests");
    }
    p->a = *a;
    p->start = start;
    r->priv = p;
    r->persistent = true;
    r->what = call;
    *request = r->handle;
    return MPI_SUCCESS;
}
