/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The request engine: the MPI request object, a per-kind operations table (mpi_req_ops_t:
 * test, wait, cancel, free, progress, as Open MPI's ompi_request_t carries req_free and
 * req_cancel) that point-to-point (mpi_p2p_req.c), buffered sends (mpi_bsend.c) and the
 * nonblocking collectives (mpi_coll_req.c) register, and the generic completion
 * the calls (mpi_req_api.c) share: a request completes in one place, mpi_req_complete(): its
 * kind recorded the outcome in req->done when its test or wait saw it finish; the status is
 * copied out and the request released (a persistent one becomes inactive).
 *
 * Request_free of an active request: the request goes on a background list and completes
 * there (mpi_progress, called by every call that tests or waits, also advances every
 * registered kind's background work). Finalize (mpi_req_drain) gives the freed and buffered
 * sends MPI_PENDING_WAIT_S (a receiver takes them before its own finalize, or refuses them
 * when it finalizes without; a lost one fails them), then cancels those left (one to this
 * rank at once), with one warning naming them; then it cancels the freed receives that
 * nothing matched, with one warning naming them, and completes the others.
 */
#include "mpi/mpi_engines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static mpi_req_t *free_reqs;  /* released request objects, reused (next_bg links them) */
static mpi_req_t *background; /* freed while active */

#define MPI_REQ_KINDS 8
static const mpi_req_ops_t *kinds[MPI_REQ_KINDS]; /* the registered kinds (mpi_progress) */
static int nkinds;

void mpi_req_register(const mpi_req_ops_t *ops)
{
    for (int i = 0; i < nkinds; i++) {
        if (kinds[i] == ops) {
            return;
        }
    }
    if (nkinds < MPI_REQ_KINDS) { /* a fixed set of kinds: never full */
        kinds[nkinds++] = ops;
    }
}

/* ---- the kind of a request complete when started ------------------------------------------ */
static bool done_test(mpi_req_t *req)
{
    (void)req;
    return true;
}

static void done_wait(mpi_req_t *req)
{
    (void)req;
}

/* complete already (PROC_NULL, a cancelled receive): the cancel fails, as MPI allows */
static int done_cancel(mpi_req_t *req, const char *call)
{
    (void)req;
    (void)call;
    return MPI_SUCCESS;
}

const mpi_req_ops_t mpi_req_done_ops = {
    .name = "completed operation",
    .test = done_test,
    .wait = done_wait,
    .cancel = done_cancel,
};

void mpi_req_set_done(mpi_req_t *req, const MPI_Status *st)
{
    req->ops = &mpi_req_done_ops;
    req->complete = true;
    req->done = *st;
}

/* ---- the object ----------------------------------------------------------------------------- */
mpi_req_t *mpi_req_new(mpi_comm_t *comm, const mpi_req_ops_t *ops, int *err_p)
{
    mpi_req_t *r = free_reqs;

    if (r != NULL) {
        free_reqs = r->next_bg;
    } else {
        r = malloc(sizeof(*r));
        if (r == NULL) {
            *err_p = MPI_ERR_NO_MEM;
            return NULL;
        }
    }
    memset(r, 0, sizeof(*r));
    *err_p = mpi_handle_alloc(MPI_KIND_REQUEST_, r, &r->handle);
    if (*err_p != MPI_SUCCESS) {
        r->next_bg = free_reqs;
        free_reqs = r;
        return NULL;
    }
    r->ops = ops;
    mpi_req_register(ops);
    r->comm = comm;
    comm->refs++;
    return r;
}

void mpi_req_delete(mpi_req_t *req)
{
    if (req->handle != MPI_REQUEST_NULL) {
        mpi_handle_release(MPI_KIND_REQUEST_, req->handle);
    }
    if (req->ops->free != NULL) {
        req->ops->free(req);
    }
    free(req->tmp);
    if (req->type != NULL) {
        mpi_type_release(req->type);
        req->type = NULL;
    }
    mpi_comm_unref(req->comm);
    req->next_bg = free_reqs;
    free_reqs = req;
}

static void req_free_all(void)
{
    while (free_reqs != NULL) {
        mpi_req_t *r = free_reqs;
        free_reqs = r->next_bg;
        free(r);
    }
}

/* ---- status ------------------------------------------------------------------------------ */
void mpi_status_set(MPI_Status *st, int source, int tag, MPI_Count bytes, int err, bool cancelled)
{
    if (st == MPI_STATUS_IGNORE) {
        return;
    }
    st->MPI_SOURCE = source;
    st->MPI_TAG = tag;
    st->MPI_ERROR = err;
    st->count_lo = (int)(bytes & 0xffffffff);
    st->count_hi_and_cancelled = (int)((bytes >> 32) << 1) | (cancelled ? 1 : 0);
}

void mpi_status_out(MPI_Status *out, const MPI_Status *st)
{
    int keep;

    if (out == MPI_STATUS_IGNORE) {
        return;
    }
    keep = out->MPI_ERROR;
    *out = *st;
    out->MPI_ERROR = keep;
}

MPI_Count mpi_status_bytes(const MPI_Status *st)
{
    return (MPI_Count)(unsigned)st->count_lo |
           ((MPI_Count)((unsigned)st->count_hi_and_cancelled >> 1) << 32);
}

void mpi_status_empty(MPI_Status *st)
{
    mpi_status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS, false);
}

bool mpi_status_cancelled(const MPI_Status *st)
{
    return (st->count_hi_and_cancelled & 1) != 0;
}

void mpi_status_proc_null(MPI_Status *st)
{
    mpi_status_set(st, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS, false);
}

/* ---- completion -------------------------------------------------------------------------- */
bool mpi_req_live(const mpi_req_t *r)
{
    return r != NULL && (!r->persistent || r->active);
}

bool mpi_req_test(mpi_req_t *req)
{
    if (!req->complete && req->ops->test(req)) {
        req->complete = true;
    }
    return req->complete;
}

void mpi_req_wait(mpi_req_t *req)
{
    if (!req->complete) {
        req->ops->wait(req);
        req->complete = true;
    }
}

/* Ends a complete operation: its status out, the request released (persistent: inactive). */
static int req_finish(mpi_req_t *req, MPI_Status *status)
{
    int err = req->done.MPI_ERROR;

    mpi_status_out(status, &req->done);
    if (req->persistent) {
        req->active = false;
        req->complete = false;
        return err;
    }
    if (req->freed) {
        req->handle = MPI_REQUEST_NULL; /* released at Request_free */
    }
    mpi_req_delete(req);
    return err;
}

int mpi_req_complete(MPI_Request *h, mpi_req_t *r, MPI_Status *status)
{
    bool persistent = r->persistent;
    int err = req_finish(r, status);

    if (!persistent && h != NULL) {
        *h = MPI_REQUEST_NULL;
    }
    return err;
}

int mpi_req_test_one(MPI_Request *h, mpi_req_t *r, MPI_Status *status, int *err_p)
{
    if (!mpi_req_test(r)) {
        return 0;
    }
    *err_p = mpi_req_complete(h, r, status);
    return 1;
}

int mpi_req_wait_one(MPI_Request *h, mpi_req_t *r, MPI_Status *status)
{
    mpi_req_wait(r);
    return mpi_req_complete(h, r, status);
}

int mpi_req_wait_call(MPI_Request *h, MPI_Status *status, const char *call)
{
    mpi_req_t *r = *h == MPI_REQUEST_NULL ? NULL : mpi_handle_get(MPI_KIND_REQUEST_, *h);
    mpi_comm_t *c;
    int err;

    if (!mpi_req_live(r)) {
        mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    c = r->comm;
    c->refs++; /* the request may go with its communicator's last reference */
    err = mpi_req_wait_one(h, r, status);
    mpi_progress();
    if (err != MPI_SUCCESS) {
        err = mpi_err_again(c, call, err); /* the operation's own reason, if noted */
    }
    mpi_comm_unref(c);
    return err;
}

int mpi_req_cancel(mpi_req_t *r, const char *call)
{
    if (r->complete && !r->ops->collective) {
        return MPI_SUCCESS; /* too late: Test_cancelled says false */
    }
    return r->ops->cancel(r, call);
}

void mpi_req_free(mpi_req_t *r)
{
    mpi_handle_release(MPI_KIND_REQUEST_, r->handle);
    r->handle = MPI_REQUEST_NULL;
    if (!mpi_req_live(r) || mpi_req_test(r)) {
        r->persistent = false;
        if (!mpi_req_live(r)) {
            r->done = (MPI_Status){0};
        }
        req_finish(r, MPI_STATUS_IGNORE);
        return;
    }
    /* active: it completes in the background (its buffer stays the library's until then) */
    r->freed = true;
    r->next_bg = background;
    background = r;
}

/* ---- background: the kinds' work, requests freed while active ------------------------------ */
void mpi_progress(void)
{
    mpi_req_t **pp = &background;

    for (int i = 0; i < nkinds; i++) {
        if (kinds[i]->progress != NULL) {
            kinds[i]->progress();
        }
    }
    while (*pp != NULL) {
        mpi_req_t *r = *pp;

        if (!mpi_req_test(r)) {
            pp = &r->next_bg;
            continue;
        }
        *pp = r->next_bg;
        r->persistent = false;
        req_finish(r, MPI_STATUS_IGNORE);
    }
}

/* Waits for the background receives a message matched (their data is on its way). */
static void drain_wait(void)
{
    while (background != NULL) {
        mpi_req_t *r = background;

        background = r->next_bg;
        mpi_req_wait(r);
        r->persistent = false;
        req_finish(r, MPI_STATUS_IGNORE);
    }
}

/* "cancel_dup", or "communicator 0x..." (c, or if NULL the communicator of handle h) */
static void comm_text(const mpi_comm_t *c, MPI_Comm h, char *out, size_t len)
{
    if (c == NULL) {
        c = mpi_comm_get(h);
    }
    if (c != NULL && c->name[0] != '\0') {
        snprintf(out, len, "%s", c->name);
    } else {
        snprintf(out, len, "communicator %#x", (unsigned)h);
    }
}

/* Appends one of a warning's list of n items (the first few, then "; ..."); false when full. */
static bool list_room(char *list, size_t cap, int n, size_t *len_p)
{
    *len_p = strlen(list);
    if (n > 4) {
        if (n == 5) {
            snprintf(list + *len_p, cap - *len_p, "; ...");
        }
        return false;
    }
    return true;
}

/* Adds "source S tag T on C" of a freed receive to the warning's list (the first few). */
static void drain_name(char *list, size_t cap, int n, const mpi_req_t *r)
{
    size_t len;
    char src[16], tag[16], comm[MPI_MAX_OBJECT_NAME + 32];

    if (!list_room(list, cap, n, &len)) {
        return;
    }
    comm_text(r->comm, r->comm->handle, comm, sizeof(comm));
    snprintf(src, sizeof(src), "%d", r->peer);
    snprintf(tag, sizeof(tag), "%d", r->tag);
    snprintf(list + len, cap - len, "%ssource %s tag %s on %s", n > 1 ? "; " : "",
             r->peer == MPI_ANY_SOURCE ? "MPI_ANY_SOURCE" : src,
             r->tag == MPI_ANY_TAG ? "MPI_ANY_TAG" : tag, comm);
}

void mpi_req_name_send(char *list, size_t cap, int n, const char *what, int peer, int tag,
                       MPI_Comm comm)
{
    size_t len;
    char c[MPI_MAX_OBJECT_NAME + 32];

    if (!list_room(list, cap, n, &len)) {
        return;
    }
    comm_text(NULL, comm, c, sizeof(c));
    snprintf(list + len, cap - len, "%sa %s to rank %d, tag %d on %s", n > 1 ? "; " : "", what,
             peer, tag, c);
}

/* The freed receives nothing matched are cancelled, with one warning naming them; those that
 * a message matched stay on the list (their data is on its way). */
static void drain_cancel_recvs(void)
{
    mpi_req_t **pp = &background;
    char list[512] = "";
    int n = 0;

    while (*pp != NULL) {
        mpi_req_t *r = *pp;

        if (!r->is_recv || mpi_req_cancel(r, NULL) != MPI_SUCCESS || !mpi_req_test(r)) {
            pp = &r->next_bg; /* matched: unmatched ones complete at once, cancelled */
            continue;
        }
        if (mpi_status_cancelled(&r->done)) {
            drain_name(list, sizeof(list), ++n, r);
        }
        *pp = r->next_bg;
        r->persistent = false;
        req_finish(r, MPI_STATUS_IGNORE);
    }
    if (n > 0) {
        fprintf(stderr,
                "rcmsg-mpi: rank %d: warning: MPI_Finalize cancelled %d receive(s) freed by "
                "MPI_Request_free that no message matched (%s)\n",
                rcmsg_comm_rank(rcmsg_comm_world()), n, list);
    }
}

typedef struct {
    char list[512]; /* the sends cancelled, named */
    int n;
    mpi_req_settle_fn_t *more; /* the buffered sends' pass */
} drain_sends_t;

/* A send to this rank: at Finalize nothing can receive it any more (a freed receive that
 * matches it would have matched it already). */
static bool send_to_self(const mpi_req_t *r)
{
    return !r->is_recv && r->peer >= 0 &&
           mpi_comm_rc_peer(r->comm, r->peer) == rcmsg_comm_rank(r->comm->rc);
}

/* mpi_fini_settle's pass over the sends in flight: buffered ones and freed ones (the
 * background's requests other than receives); returns how many are left. */
static int drain_sends_pass(void *arg, bool cancel)
{
    drain_sends_t *d = arg;
    mpi_req_t **pp = &background;
    int left = d->more != NULL ? d->more(cancel, d->list, sizeof(d->list), &d->n) : 0;

    while (*pp != NULL) {
        mpi_req_t *r = *pp;

        if (r->is_recv) {
            pp = &r->next_bg;
            continue;
        }
        if (cancel || send_to_self(r)) {
            (void)mpi_req_cancel(r, NULL); /* also when too late: it completes */
        }
        if (!mpi_req_test(r)) {
            left++;
            pp = &r->next_bg;
            continue;
        }
        if (mpi_status_cancelled(&r->done)) {
            mpi_req_name_send(d->list, sizeof(d->list), ++d->n, "freed send", r->peer, r->tag,
                              r->comm->handle);
        }
        *pp = r->next_bg;
        r->persistent = false;
        req_finish(r, MPI_STATUS_IGNORE);
    }
    return left;
}

/* The sends still in flight (freed, buffered) get MPI_PENDING_WAIT_S to be received, then are
 * cancelled (one warning naming them); those left are an error. */
static int drain_sends(mpi_req_settle_fn_t *more)
{
    drain_sends_t d = {.list = "", .n = 0, .more = more};
    int left = mpi_fini_settle(drain_sends_pass, &d);

    if (d.n > 0) {
        fprintf(stderr,
                "rcmsg-mpi: rank %d: warning: MPI_Finalize cancelled %d freed or buffered "
                "send(s) that no receiver took (%s; one to another rank after %.0f s)\n",
                rcmsg_comm_rank(rcmsg_comm_world()), d.n, d.list, MPI_PENDING_WAIT_S);
    }
    if (left > 0) {
        return mpi_err(NULL, "MPI_Finalize", MPI_ERR_PENDING,
                       "%d freed or buffered send(s) neither completed within %.0f s nor could "
                       "be cancelled",
                       left, MPI_PENDING_WAIT_S);
    }
    return MPI_SUCCESS;
}

int mpi_req_drain(mpi_req_settle_fn_t *more)
{
    /* the sends first: a receive of ours may be what they wait for */
    int err = drain_sends(more);

    if (err != MPI_SUCCESS) {
        return err;
    }
    drain_cancel_recvs();
    drain_wait();
    for (int i = 0; i < nkinds; i++) {
        if (kinds[i]->fini != NULL) {
            kinds[i]->fini();
        }
    }
    req_free_all();
    return MPI_SUCCESS;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int mpi_fini_settle(int (*pass)(void *arg, bool cancel), void *arg)
{
    double deadline = now_s() + MPI_PENDING_WAIT_S;
    int left;

    while ((left = pass(arg, false)) > 0 && now_s() < deadline) {
        mpi_mt_pause(); /* ranks may share cores (and threads the lock) */
    }
    if (left == 0) {
        return 0;
    }
    deadline = now_s() + MPI_PENDING_WAIT_S; /* the receivers' answers to the cancels */
    while ((left = pass(arg, true)) > 0 && now_s() < deadline) {
        mpi_mt_pause();
    }
    return left;
}
