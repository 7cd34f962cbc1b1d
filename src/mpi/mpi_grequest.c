/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Generalized requests (MPI-3.1 section 12.2): a request kind of the request engine
 * (mpi_req_ops_t) whose operation the program runs itself. MPI_Grequest_complete marks it
 * done; the wait or test that then completes it calls the program's query function for the
 * status (its return value is the operation's error), and releasing the request calls the free
 * function; MPI_Cancel calls the cancel function (complete: whether Grequest_complete was
 * called). A wait on one the program has not completed polls rcmsg's progress until another
 * thread completes it. MPI_Grequest_complete is valid after MPI_Request_free too (the live
 * generalized requests are listed by handle).
 */
#include "mpi/mpi_engines.h"

#include <stdlib.h>

typedef struct grequest {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
    bool done; /* MPI_Grequest_complete was called */
    MPI_Request handle;
    mpi_req_t *req;
    struct grequest *next;
} grequest_t;

static grequest_t *live; /* every generalized request not yet released */

/* the query function's status; its return value is the operation's error */
static void grequest_query(mpi_req_t *req)
{
    grequest_t *g = req->priv;
    int rc;

    mpi_status_empty(&req->done);
    rc = g->query_fn != NULL ? g->query_fn(g->extra_state, &req->done) : MPI_SUCCESS;
    req->done.MPI_ERROR = rc;
}

static bool grequest_test(mpi_req_t *req)
{
    grequest_t *g = req->priv;

    if (!g->done) {
        return false;
    }
    grequest_query(req);
    return true;
}

static void grequest_wait(mpi_req_t *req)
{
    grequest_t *g = req->priv;

    while (!g->done) {
        mpi_progress();
        mpi_mt_pause();
    }
    grequest_query(req);
}

static int grequest_cancel(mpi_req_t *req, const char *call)
{
    grequest_t *g = req->priv;
    int rc = g->cancel_fn != NULL ? g->cancel_fn(g->extra_state, g->done) : MPI_SUCCESS;

    if (rc != MPI_SUCCESS && call != NULL) {
        return mpi_err(req->comm, call, rc, "the generalized request's cancel function failed");
    }
    return rc;
}

static void grequest_free(mpi_req_t *req)
{
    grequest_t *g = req->priv, **pp = &live;

    if (g->free_fn != NULL) {
        (void)g->free_fn(g->extra_state); /* its error has no call to go to */
    }
    while (*pp != NULL && *pp != g) {
        pp = &(*pp)->next;
    }
    if (*pp == g) {
        *pp = g->next;
    }
    free(g);
    req->priv = NULL;
}

static const mpi_req_ops_t grequest_ops = {
    .name = "generalized request",
    .test = grequest_test,
    .wait = grequest_wait,
    .cancel = grequest_cancel,
    .free = grequest_free,
};

int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                       MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                       MPI_Request *request)
{
    MPI_MT_GUARD();
    static const char call[] = "MPI_Grequest_start";
    mpi_comm_t *world;
    grequest_t *g;
    mpi_req_t *r;
    int err;

    MPI_CHECK_ACTIVE(call);
    if (request == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "request is NULL");
    }
    world = mpi_comm_get(MPI_COMM_WORLD);
    g = calloc(1, sizeof(*g));
    if (g == NULL || (r = mpi_req_new(world, &grequest_ops, &err)) == NULL) {
        free(g);
        return mpi_err(NULL, call, MPI_ERR_NO_MEM, "out of memory for a request");
    }
    *g = (grequest_t){query_fn, free_fn, cancel_fn, extra_state, false, r->handle, r, live};
    live = g;
    r->priv = g;
    *request = r->handle;
    return MPI_SUCCESS;
}

int MPI_Grequest_complete(MPI_Request request)
{
    MPI_MT_GUARD();
    grequest_t *g = live;

    MPI_CHECK_ACTIVE("MPI_Grequest_complete");
    while (g != NULL && g->handle != request) {
        g = g->next;
    }
    if (g == NULL || g->done) {
        return mpi_err(NULL, "MPI_Grequest_complete", MPI_ERR_REQUEST,
                       g == NULL ? "%#x is not a generalized request"
                                 : "generalized request %#x is complete already",
                       (unsigned)request);
    }
    g->done = true;
    if (g->req->freed) {
        mpi_progress(); /* freed by the program: released now (its free function called) */
    }
    return MPI_SUCCESS;
}
