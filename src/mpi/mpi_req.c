/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests: the MPI request object around an rcmsg request, its completion (Wait, Test and
 * their any/all/some forms), Request_free, Cancel and persistent requests.
 *
 * A request completes in one place, mpi_req_finish(): a noncontiguous receive is unpacked
 * there from its packed copy, the status is filled, and the request is released (a
 * persistent one becomes inactive). A request completed when it started (MPI_PROC_NULL, a
 * buffered send, a cancelled receive) is of kind MPI_REQ_DONE and holds its status.
 *
 * Cancel (rcmsg_cancel): a receive nothing matched yet, or a send its receiver has not
 * matched, is taken back; its completion (Wait, Test) reports MPI_Test_cancelled true. One
 * matched already completes normally (false); so does a buffered send (its copy is on its
 * way from the attached buffer).
 *
 * Request_free of an active request: the request goes on a background list and completes
 * there (mpi_progress, called by every call that tests or waits). Finalize (mpi_req_drain)
 * gives the freed and buffered sends MPI_PENDING_WAIT_S (a receiver takes them before its
 * own finalize, or refuses them when it finalizes without; a lost one fails them), then
 * cancels those left (one to this rank at once), with one warning naming them; then it
 * cancels the freed receives that nothing matched, with one warning naming them, and
 * completes the others.
 *
 * A nonblocking collective is a request of kind MPI_REQ_COLL around a schedule (mpi_sched.c):
 * req_poll advances it where a point-to-point request would be tested, and mpi_progress
 * advances every active schedule; so does rcmsg's progress inside every blocking rcmsg call
 * (mpi_sched.c's hook), so a wait for a point-to-point request may block in rcmsg_wait.
 */
#include "mpi/mpi_impl.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mpi_req_t *free_reqs;  /* released request objects, reused (next_bg links them) */
static mpi_req_t *background; /* freed while active */

mpi_req_t *mpi_req_new(mpi_comm_t *comm, int *err_p)
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
    r->comm = comm;
    comm->refs++;
    return r;
}

void mpi_req_delete(mpi_req_t *req)
{
    if (req->handle != MPI_REQUEST_NULL) {
        mpi_handle_release(MPI_KIND_REQUEST_, req->handle);
    }
    free(req->tmp);
    if (req->sched != NULL) {
        mpi_sched_free(req->sched);
        req->sched = NULL;
    }
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

MPI_Count mpi_status_bytes(const MPI_Status *st)
{
    return (MPI_Count)(unsigned)st->count_lo |
           ((MPI_Count)((unsigned)st->count_hi_and_cancelled >> 1) << 32);
}

void mpi_status_empty(MPI_Status *st)
{
    mpi_status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS, false);
}

void mpi_status_proc_null(MPI_Status *st)
{
    mpi_status_set(st, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS, false);
}

/* ---- completion -------------------------------------------------------------------------- */

/* Unpacks bytes of packed data into count elements of dt at buf: whole elements, then the
 * part of a last element that arrived (the rest of that element keeps its contents). */
static void recv_unpack(const mpi_type_t *t, const char *in, size_t bytes, void *buf)
{
    size_t size = mpi_type_size(t);
    size_t whole = size > 0 ? bytes / size : 0;
    size_t rest = bytes - whole * size;
    char *el, *scratch;

    mpi_type_unpack(t, in, whole, buf);
    if (rest == 0) {
        return;
    }
    el = (char *)buf + (MPI_Aint)whole * mpi_type_extent(t);
    scratch = malloc(size);
    if (scratch != NULL) {
        mpi_type_pack(t, el, 1, scratch);
        memcpy(scratch, in + whole * size, rest);
        mpi_type_unpack(t, scratch, 1, el);
        free(scratch);
    }
}

/* A receive through req->tmp (noncontiguous, or an Mprobe'd message): delivers what fits
 * into the user's buffer. Returns the bytes delivered; *trunc_p when some did not fit. */
static size_t recv_deliver(mpi_req_t *req, size_t bytes, bool *trunc_p)
{
    mpi_type_t *t = req->type;
    size_t cap = t != NULL ? mpi_type_size(t) * (size_t)req->count : 0;

    *trunc_p = bytes > cap;
    if (bytes > cap) {
        bytes = cap;
    }
    if (t == NULL || bytes == 0) {
        return bytes;
    }
    if (mpi_type_is_contig(t)) {
        memcpy((char *)req->buf + mpi_type_true_lb(t), req->tmp, bytes);
    } else {
        recv_unpack(t, req->tmp, bytes, req->buf);
    }
    return bytes;
}

/* Ends an operation (the rcmsg request is done): unpacks, builds the status, and either
 * releases req or (persistent) makes it inactive. Returns the operation's MPI code. */
int mpi_req_finish(mpi_req_t *req, rcmsg_status_t s, const rcmsg_msg_status_t *rst,
                   MPI_Status *status)
{
    int err = MPI_SUCCESS;

    if (req->kind == MPI_REQ_DONE) {
        err = req->done.MPI_ERROR;
        if (status != MPI_STATUS_IGNORE) {
            *status = req->done;
        }
    } else if (req->kind == MPI_REQ_COLL) {
        mpi_sched_test(req->sched, &err);
        mpi_status_set(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, err, false);
    } else if (rst->cancelled) { /* MPI_Cancel took it back: nothing sent or received */
        mpi_status_set(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS, true);
    } else if (req->is_recv) {
        size_t bytes = rst->count;
        bool trunc = s == RCMSG_ERR_TRUNCATED;

        if (req->tmp != NULL && (s == RCMSG_OK || trunc)) {
            bool t2;
            bytes = recv_deliver(req, bytes > req->tmp_len ? req->tmp_len : bytes, &t2);
            trunc = trunc || t2;
        }
        err = mpi_err_recv(s, trunc, mpi_comm_src(req->comm, rst->source), rst->tag,
                           req->type != NULL ? mpi_type_size(req->type) * (size_t)req->count : 0);
        mpi_status_set(status, mpi_comm_src(req->comm, rst->source), rst->tag, (MPI_Count)bytes,
                       err, false);
    } else {
        if (s != RCMSG_OK) {
            err = mpi_err_note(mpi_err_code(mpi_err_class_of(s), s),
                               "the send to rank %d (tag %d) failed: %s (%s)", req->peer, req->tag,
                               rcmsg_strerror(s), rcmsg_status_name(s));
        }
        mpi_status_set(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, err, false);
    }
    req->rc = RCMSG_REQUEST_NULL;
    if (req->persistent) {
        req->active = false;
    } else if (req->freed) {
        req->handle = MPI_REQUEST_NULL; /* released at Request_free */
        mpi_req_delete(req);
    } else {
        mpi_req_delete(req);
    }
    return err;
}

/* A request that completed in Request_get_status: keeps its outcome as a DONE request. */
static void req_hold(mpi_req_t *req, rcmsg_status_t s, const rcmsg_msg_status_t *rst)
{
    bool persistent = req->persistent;
    MPI_Status st;

    /* finish it as a persistent one (so that it stays), then restore */
    req->persistent = true;
    mpi_req_finish(req, s, rst, &st);
    req->persistent = persistent;
    req->active = true;
    req->kind = MPI_REQ_DONE;
    req->done = st;
}

/* Tests the operation under r without completing the request: *flag_p, and (done) what
 * mpi_req_finish needs. A schedule is advanced first. */
static rcmsg_status_t req_poll(mpi_req_t *r, int *flag_p, rcmsg_msg_status_t *rst)
{
    int err;

    if (r->kind == MPI_REQ_DONE) {
        *flag_p = 1;
        return RCMSG_OK;
    }
    if (r->kind == MPI_REQ_COLL) {
        *flag_p = mpi_sched_test(r->sched, &err);
        return RCMSG_OK;
    }
    return rcmsg_test(&r->rc, flag_p, rst);
}

/* ---- background: requests freed while active --------------------------------------------- */
void mpi_progress(void)
{
    mpi_req_t **pp = &background;

    (void)mpi_sched_progress();
    mpi_bsend_progress();
    while (*pp != NULL) {
        mpi_req_t *r = *pp;
        rcmsg_msg_status_t rst = {0};
        int flag = 1;
        rcmsg_status_t s = req_poll(r, &flag, &rst);

        if (!flag) {
            pp = &r->next_bg;
            continue;
        }
        *pp = r->next_bg;
        r->persistent = false;
        mpi_req_finish(r, s, &rst, MPI_STATUS_IGNORE);
    }
}

/* Waits for the background receives a message matched (their data is on its way). */
static void drain_wait(void)
{
    while (background != NULL) {
        mpi_req_t *r = background;
        rcmsg_msg_status_t rst = {0};
        rcmsg_status_t s = RCMSG_OK;

        background = r->next_bg;
        if (r->kind != MPI_REQ_DONE) {
            s = rcmsg_wait(&r->rc, &rst);
        }
        r->persistent = false;
        mpi_req_finish(r, s, &rst, MPI_STATUS_IGNORE);
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
        rcmsg_msg_status_t rst = {0};
        int flag = 0;
        rcmsg_status_t s = RCMSG_OK;

        if (r->kind == MPI_REQ_RECV && rcmsg_cancel(&r->rc) == RCMSG_OK) {
            s = rcmsg_test(&r->rc, &flag, &rst); /* unmatched: complete, cancelled */
        }
        if (!flag) {
            pp = &r->next_bg;
            continue;
        }
        if (rst.cancelled) {
            drain_name(list, sizeof(list), ++n, r);
        }
        *pp = r->next_bg;
        r->persistent = false;
        mpi_req_finish(r, s, &rst, MPI_STATUS_IGNORE);
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
} drain_sends_t;

/* A send to this rank: at Finalize nothing can receive it any more (a freed receive that
 * matches it would have matched it already). */
static bool send_to_self(const mpi_req_t *r)
{
    return r->kind == MPI_REQ_SEND &&
           mpi_comm_rc_peer(r->comm, r->peer) == rcmsg_comm_rank(r->comm->rc);
}

/* mpi_fini_settle's pass over the sends in flight: buffered ones and freed ones (the
 * background's requests other than receives); returns how many are left. */
static int drain_sends_pass(void *arg, bool cancel)
{
    drain_sends_t *d = arg;
    mpi_req_t **pp = &background;
    int left = mpi_bsend_settle(cancel, d->list, sizeof(d->list), &d->n);

    while (*pp != NULL) {
        mpi_req_t *r = *pp;
        rcmsg_msg_status_t rst = {0};
        int flag = 0;
        rcmsg_status_t s;

        if (r->kind == MPI_REQ_RECV) {
            pp = &r->next_bg;
            continue;
        }
        if (r->kind == MPI_REQ_SEND && (cancel || send_to_self(r))) {
            (void)rcmsg_cancel(&r->rc); /* RCMSG_OK also when too late: it completes */
        }
        s = req_poll(r, &flag, &rst);
        if (!flag) {
            left++;
            pp = &r->next_bg;
            continue;
        }
        if (rst.cancelled) {
            mpi_req_name_send(d->list, sizeof(d->list), ++d->n, "freed send", r->peer, r->tag,
                              r->comm->handle);
        }
        *pp = r->next_bg;
        r->persistent = false;
        mpi_req_finish(r, s, &rst, MPI_STATUS_IGNORE);
    }
    return left;
}

/* The sends still in flight (freed, buffered) get MPI_PENDING_WAIT_S to be received, then are
 * cancelled (one warning naming them); those left are an error. */
static int drain_sends(void)
{
    drain_sends_t d = {.list = "", .n = 0};
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

int mpi_req_drain(void)
{
    /* the sends first: a receive of ours may be what they wait for */
    int err = drain_sends();

    if (err != MPI_SUCCESS) {
        return err;
    }
    drain_cancel_recvs();
    drain_wait();
    req_free_all();
    return MPI_SUCCESS;
}

/* ---- wait and test ----------------------------------------------------------------------- */

/* NULL (no request) or not active (persistent, not started): completes at once, empty */
static mpi_req_t *req_lookup(MPI_Request h, const char *call, int *err_p)
{
    mpi_req_t *r;

    *err_p = MPI_SUCCESS;
    if (h == MPI_REQUEST_NULL) {
        return NULL;
    }
    r = mpi_handle_get(MPI_KIND_REQUEST_, h);
    if (r == NULL) {
        *err_p = mpi_err(NULL, call, MPI_ERR_REQUEST,
                         "invalid request %#x (completed "
                         "already, or never made)",
                         (unsigned)h);
    }
    return r;
}

static bool req_live(const mpi_req_t *r)
{
    return r != NULL && (!r->persistent || r->active);
}

/* Completes a live request (rcmsg request done with s and rst); clears *h unless persistent.
 * Returns the operation's code (not raised). */
static int req_complete(MPI_Request *h, mpi_req_t *r, rcmsg_status_t s,
                        const rcmsg_msg_status_t *rst, MPI_Status *status)
{
    bool persistent = r->persistent;
    int err = mpi_req_finish(r, s, rst, status);

    if (!persistent) {
        *h = MPI_REQUEST_NULL;
    }
    return err;
}

/* Tests one live request without blocking: 1 done (completed into status), 0 not yet. */
static int req_test_one(MPI_Request *h, mpi_req_t *r, MPI_Status *status, int *err_p)
{
    rcmsg_msg_status_t rst = {0};
    int flag = 1;
    rcmsg_status_t s = req_poll(r, &flag, &rst);

    if (!flag) {
        return 0;
    }
    *err_p = req_complete(h, r, s, &rst, status);
    return 1;
}

static int req_wait_one(MPI_Request *h, mpi_req_t *r, MPI_Status *status)
{
    rcmsg_msg_status_t rst = {0};
    rcmsg_status_t s = RCMSG_OK;
    int flag = 0;

    if (r->kind == MPI_REQ_COLL) {
        /* no rcmsg request to block on: poll the schedule (and the others with it) */
        while (s = req_poll(r, &flag, &rst), !flag) {
            (void)mpi_sched_progress();
            sched_yield(); /* rcmsg's own waits yield too (RCMSG_YIELD): ranks may share cores */
        }
    } else if (r->kind != MPI_REQ_DONE) {
        s = rcmsg_wait(&r->rc, &rst);
    }
    return req_complete(h, r, s, &rst, status);
}

static int raise_op(mpi_comm_t *comm, const char *call, int err)
{
    if (err == MPI_SUCCESS) {
        return err;
    }
    return mpi_err_again(comm, call, err); /* the operation's own reason, if noted */
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    int err;
    mpi_req_t *r;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE("MPI_Wait");
    if (request == NULL) {
        return mpi_err(NULL, "MPI_Wait", MPI_ERR_ARG, "NULL request");
    }
    r = req_lookup(*request, "MPI_Wait", &err);
    if (!req_live(r)) {
        mpi_status_empty(status);
        return err;
    }
    c = r->comm;
    c->refs++; /* the request may go with its communicator's last reference */
    err = req_wait_one(request, r, status);
    mpi_progress();
    err = raise_op(c, "MPI_Wait", err);
    mpi_comm_unref(c);
    return err;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    int err = MPI_SUCCESS;
    mpi_req_t *r;
    mpi_comm_t *c;

    MPI_CHECK_ACTIVE("MPI_Test");
    if (request == NULL || flag == NULL) {
        return mpi_err(NULL, "MPI_Test", MPI_ERR_ARG, "NULL %s",
                       request == NULL ? "request" : "flag");
    }
    mpi_progress();
    r = req_lookup(*request, "MPI_Test", &err);
    if (!req_live(r)) {
        *flag = err == MPI_SUCCESS;
        mpi_status_empty(status);
        return err;
    }
    c = r->comm;
    c->refs++;
    *flag = req_test_one(request, r, status, &err);
    err = raise_op(c, "MPI_Test", err);
    mpi_comm_unref(c);
    return err;
}

static MPI_Status *status_at(MPI_Status *statuses, int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* Looks every handle up: an invalid one is raised (returns its code), NULL entries are fine */
static int reqs_check(int count, const MPI_Request reqs[], const char *call)
{
    int err = MPI_SUCCESS;

    if (count < 0 || (count > 0 && reqs == NULL)) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "%s", count < 0 ? "negative count" : "NULL array");
    }
    for (int i = 0; i < count && err == MPI_SUCCESS; i++) {
        req_lookup(reqs[i], call, &err);
    }
    return err;
}

static mpi_req_t *req_at(const MPI_Request reqs[], int i)
{
    mpi_req_t *r = reqs[i] == MPI_REQUEST_NULL ? NULL : mpi_handle_get(MPI_KIND_REQUEST_, reqs[i]);

    return req_live(r) ? r : NULL;
}

/* Raises err_in_status through the communicator of the first failed request (held by
 * *errcomm_p) for the multiple-completion calls. */
static int raise_in_status(mpi_comm_t **errcomm_p, const char *call)
{
    int err;

    if (*errcomm_p == NULL) {
        return MPI_SUCCESS;
    }
    err = mpi_err(*errcomm_p, call, MPI_ERR_IN_STATUS, "an operation failed (see its status)");
    mpi_comm_unref(*errcomm_p);
    *errcomm_p = NULL;
    return err;
}

static void note_err(mpi_comm_t **errcomm_p, mpi_comm_t *c, int err)
{
    if (err != MPI_SUCCESS && *errcomm_p == NULL) {
        *errcomm_p = c;
        c->refs++;
    }
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status *statuses)
{
    mpi_comm_t *errcomm = NULL;
    int err;

    MPI_CHECK_ACTIVE("MPI_Waitall");
    err = reqs_check(count, reqs, "MPI_Waitall");
    if (err != MPI_SUCCESS) {
        return err;
    }
    for (int i = 0; i < count; i++) {
        mpi_req_t *r = req_at(reqs, i);
        mpi_comm_t *c;

        if (r == NULL) {
            mpi_status_empty(status_at(statuses, i));
            continue;
        }
        c = r->comm;
        c->refs++;
        note_err(&errcomm, c, req_wait_one(&reqs[i], r, status_at(statuses, i)));
        mpi_comm_unref(c);
    }
    mpi_progress();
    return raise_in_status(&errcomm, "MPI_Waitall");
}

int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status *statuses)
{
    mpi_comm_t *errcomm = NULL;
    int err, done = 1;

    MPI_CHECK_ACTIVE("MPI_Testall");
    err = reqs_check(count, reqs, "MPI_Testall");
    if (err != MPI_SUCCESS) {
        return err;
    }
    mpi_progress();
    /* completes none unless all are complete: a finished one is held (kind DONE) meanwhile */
    for (int i = 0; i < count; i++) {
        mpi_req_t *r = req_at(reqs, i);
        rcmsg_msg_status_t rst = {0};
        rcmsg_status_t s;
        int f;

        if (r == NULL || r->kind == MPI_REQ_DONE) {
            continue;
        }
        s = req_poll(r, &f, &rst);
        if (f) {
            req_hold(r, s, &rst);
        } else {
            done = 0;
        }
    }
    *flag = done;
    for (int i = 0; done && i < count; i++) {
        mpi_req_t *r = req_at(reqs, i);
        mpi_comm_t *c;

        if (r == NULL) {
            mpi_status_empty(status_at(statuses, i));
            continue;
        }
        c = r->comm;
        c->refs++;
        note_err(&errcomm, c, req_wait_one(&reqs[i], r, status_at(statuses, i)));
        mpi_comm_unref(c);
    }
    return raise_in_status(&errcomm, "MPI_Testall");
}

/* One pass over reqs: completes the first finished one (*index_p, 1) or none (0); *live_p:
 * whether any request was live. */
static int testany_pass(int count, MPI_Request reqs[], int *index_p, MPI_Status *status,
                        bool *live_p, int *err_p, mpi_comm_t **comm_p)
{
    *live_p = false;
    for (int i = 0; i < count; i++) {
        mpi_req_t *r = req_at(reqs, i);

        if (r == NULL) {
            continue;
        }
        *live_p = true;
        *comm_p = r->comm;
        r->comm->refs++;
        if (req_test_one(&reqs[i], r, status, err_p)) {
            *index_p = i;
            return 1;
        }
        mpi_comm_unref(*comm_p);
        *comm_p = NULL;
    }
    return 0;
}

static int any_common(const char *call, int count, MPI_Request reqs[], int *index, int *flag,
                      MPI_Status *status, bool block)
{
    int err, done;
    bool live;
    mpi_comm_t *c = NULL;

    MPI_CHECK_ACTIVE(call);
    err = reqs_check(count, reqs, call);
    if (err != MPI_SUCCESS) {
        return err;
    }
    if (index == NULL) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "NULL index");
    }
    do {
        mpi_progress();
        err = MPI_SUCCESS;
        done = testany_pass(count, reqs, index, status, &live, &err, &c);
    } while (block && !done && live && sched_yield() == 0); /* ranks may share cores */
    if (flag != NULL) {
        *flag = done || !live;
    }
    if (!live) {
        *index = MPI_UNDEFINED;
        mpi_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!done) {
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    err = raise_op(c, call, err);
    mpi_comm_unref(c);
    return err;
}

int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    return any_common("MPI_Waitany", count, reqs, index, NULL, status, true);
}

int MPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    if (flag == NULL) {
        return mpi_err(NULL, "MPI_Testany", MPI_ERR_ARG, "NULL flag");
    }
    return any_common("MPI_Testany", count, reqs, index, flag, status, false);
}

static int some_common(const char *call, int incount, MPI_Request reqs[], int *outcount,
                       int indices[], MPI_Status *statuses, bool block)
{
    mpi_comm_t *errcomm = NULL;
    int err, n;
    bool live;

    MPI_CHECK_ACTIVE(call);
    err = reqs_check(incount, reqs, call);
    if (err != MPI_SUCCESS) {
        return err;
    }
    if (outcount == NULL || (incount > 0 && indices == NULL)) {
        return mpi_err(NULL, call, MPI_ERR_ARG, "NULL %s",
                       outcount == NULL ? "outcount" : "indices");
    }
    do {
        mpi_progress();
        n = 0;
        live = false;
        for (int i = 0; i < incount; i++) {
            mpi_req_t *r = req_at(reqs, i);
            mpi_comm_t *c;

            if (r == NULL) {
                continue;
            }
            live = true;
            c = r->comm;
            c->refs++;
            if (req_test_one(&reqs[i], r, status_at(statuses, n), &err)) {
                indices[n++] = i;
                note_err(&errcomm, c, err);
            }
            mpi_comm_unref(c);
        }
    } while (block && n == 0 && live && sched_yield() == 0);
    *outcount = live ? n : MPI_UNDEFINED;
    return raise_in_status(&errcomm, call);
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                 MPI_Status *statuses)
{
    return some_common("MPI_Waitsome", incount, reqs, outcount, indices, statuses, true);
}

int MPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                 MPI_Status *statuses)
{
    return some_common("MPI_Testsome", incount, reqs, outcount, indices, statuses, false);
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    int err;
    mpi_req_t *r;

    MPI_CHECK_ACTIVE("MPI_Request_get_status");
    if (flag == NULL) {
        return mpi_err(NULL, "MPI_Request_get_status", MPI_ERR_ARG, "NULL flag");
    }
    mpi_progress();
    r = req_lookup(request, "MPI_Request_get_status", &err);
    if (!req_live(r)) {
        *flag = err == MPI_SUCCESS;
        mpi_status_empty(status);
        return err;
    }
    if (r->kind != MPI_REQ_DONE) {
        rcmsg_msg_status_t rst = {0};
        rcmsg_status_t s = req_poll(r, flag, &rst);

        if (!*flag) {
            return MPI_SUCCESS;
        }
        req_hold(r, s, &rst);
    }
    *flag = 1;
    if (status != MPI_STATUS_IGNORE) {
        *status = r->done;
    }
    return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *request)
{
    int err;
    mpi_req_t *r;

    MPI_CHECK_ACTIVE("MPI_Request_free");
    if (request == NULL) {
        return mpi_err(NULL, "MPI_Request_free", MPI_ERR_ARG, "NULL request");
    }
    r = req_lookup(*request, "MPI_Request_free", &err);
    if (r == NULL) {
        return err != MPI_SUCCESS ? err
                                  : mpi_err(NULL, "MPI_Request_free", MPI_ERR_REQUEST,
                                            "MPI_REQUEST_NULL cannot be freed");
    }
    if (r->kind == MPI_REQ_COLL) {
        return mpi_err(r->comm, "MPI_Request_free", MPI_ERR_REQUEST,
                       "the request of a nonblocking collective cannot be freed (MPI: erroneous); "
                       "complete it with a wait or a test");
    }
    mpi_handle_release(MPI_KIND_REQUEST_, r->handle);
    r->handle = MPI_REQUEST_NULL;
    *request = MPI_REQUEST_NULL;
    if (!req_live(r) || r->kind == MPI_REQ_DONE) {
        r->persistent = false;
        mpi_req_finish(r, RCMSG_OK, &(rcmsg_msg_status_t){0}, MPI_STATUS_IGNORE);
        return MPI_SUCCESS;
    }
    /* active: it completes in the background (its buffer stays the library's until then) */
    r->freed = true;
    r->next_bg = background;
    background = r;
    return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request *request)
{
    int err;
    mpi_req_t *r;
    rcmsg_status_t s;

    MPI_CHECK_ACTIVE("MPI_Cancel");
    if (request == NULL) {
        return mpi_err(NULL, "MPI_Cancel", MPI_ERR_ARG, "NULL request");
    }
    r = req_lookup(*request, "MPI_Cancel", &err);
    if (r == NULL) {
        return err != MPI_SUCCESS ? err
                                  : mpi_err(NULL, "MPI_Cancel", MPI_ERR_REQUEST,
                                            "MPI_REQUEST_NULL cannot be cancelled");
    }
    if (!req_live(r)) {
        return mpi_err(r->comm, "MPI_Cancel", MPI_ERR_REQUEST,
                       "the persistent request is not active");
    }
    if (r->kind == MPI_REQ_COLL) {
        return mpi_err(r->comm, "MPI_Cancel", MPI_ERR_REQUEST,
                       "a nonblocking collective cannot be cancelled (MPI: erroneous)");
    }
    /* complete when started (PROC_NULL; a buffered send, copied and on its way from the
     * attached buffer): the cancel fails, as MPI allows; Test_cancelled says false */
    if (r->kind == MPI_REQ_DONE) {
        return MPI_SUCCESS;
    }
    /* the request completes (Wait, Test) cancelled or, when matched already, normally */
    s = rcmsg_cancel(&r->rc);
    return s == RCMSG_OK ? MPI_SUCCESS : mpi_err_rcmsg(r->comm, "MPI_Cancel", s);
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (status == NULL || status == MPI_STATUS_IGNORE || flag == NULL) {
        return mpi_err(NULL, "MPI_Test_cancelled", MPI_ERR_ARG, "%s",
                       flag == NULL ? "NULL flag" : "no status");
    }
    *flag = status->count_hi_and_cancelled & 1;
    return MPI_SUCCESS;
}

/* ---- persistent requests ----------------------------------------------------------------- */
static int start_one(MPI_Request h, const char *call)
{
    int err;
    mpi_req_t *r = req_lookup(h, call, &err);

    if (r == NULL) {
        return err != MPI_SUCCESS ? err : mpi_err(NULL, call, MPI_ERR_REQUEST, "MPI_REQUEST_NULL");
    }
    if (!r->persistent) {
        return mpi_err(r->comm, call, MPI_ERR_REQUEST, "not a persistent request");
    }
    if (r->active) {
        return mpi_err(r->comm, call, MPI_ERR_REQUEST, "the request is active already");
    }
    r->kind = r->is_recv ? MPI_REQ_RECV : MPI_REQ_SEND;
    err = mpi_req_start(r, call);
    if (err == MPI_SUCCESS) {
        r->active = true;
    }
    return err;
}

int MPI_Start(MPI_Request *request)
{
    MPI_CHECK_ACTIVE("MPI_Start");
    if (request == NULL) {
        return mpi_err(NULL, "MPI_Start", MPI_ERR_ARG, "NULL request");
    }
    return start_one(*request, "MPI_Start");
}

int MPI_Startall(int count, MPI_Request reqs[])
{
    int err;

    MPI_CHECK_ACTIVE("MPI_Startall");
    err = reqs_check(count, reqs, "MPI_Startall");
    for (int i = 0; err == MPI_SUCCESS && i < count; i++) {
        err = start_one(reqs[i], "MPI_Startall");
    }
    return err;
}

mpi_req_t *mpi_req_p2p(const char *call, void *buf, int count, MPI_Datatype dt, int peer, int tag,
                       MPI_Comm comm, bool recv, mpi_send_mode_t mode, MPI_Request *request,
                       int *err_p)
{
    mpi_comm_t *c = mpi_comm_check(comm, call, err_p);
    mpi_req_t *r;
    mpi_type_t *t = NULL;

    if (c == NULL) {
        return NULL;
    }
    if ((*err_p = mpi_check_p2p_buf(c, call, buf, count, dt, &t)) != MPI_SUCCESS ||
        (*err_p = mpi_check_peer(c, call, peer, recv)) != MPI_SUCCESS ||
        (*err_p = mpi_check_tag(c, call, tag, recv)) != MPI_SUCCESS) {
        return NULL;
    }
    if (request == NULL) {
        *err_p = mpi_err(c, call, MPI_ERR_ARG, "NULL request");
        return NULL;
    }
    r = mpi_req_new(c, err_p);
    if (r == NULL) {
        *err_p = mpi_err(c, call, *err_p, "out of requests");
        return NULL;
    }
    r->kind = recv ? MPI_REQ_RECV : MPI_REQ_SEND;
    r->is_recv = recv;
    r->buf = buf;
    r->count = count;
    r->dt = dt;
    r->type = t;
    mpi_type_retain(r->type);
    r->peer = peer;
    r->tag = tag;
    r->mode = mode;
    return r;
}

static int init_common(const char *call, void *buf, int count, MPI_Datatype dt, int peer, int tag,
                       MPI_Comm comm, bool recv, mpi_send_mode_t mode, MPI_Request *request)
{
    int err;
    mpi_req_t *r;

    MPI_CHECK_ACTIVE(call);
    r = mpi_req_p2p(call, buf, count, dt, peer, tag, comm, recv, mode, request, &err);
    if (r == NULL) {
        return err;
    }
    r->persistent = true;
    *request = r->handle;
    return MPI_SUCCESS;
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return init_common("MPI_Send_init", (void *)buf, count, datatype, dest, tag, comm, false,
                       MPI_SEND_STANDARD, request);
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return init_common("MPI_Ssend_init", (void *)buf, count, datatype, dest, tag, comm, false,
                       MPI_SEND_SYNC, request);
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return init_common("MPI_Bsend_init", (void *)buf, count, datatype, dest, tag, comm, false,
                       MPI_SEND_BUFFERED, request);
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return init_common("MPI_Rsend_init", (void *)buf, count, datatype, dest, tag, comm, false,
                       MPI_SEND_READY, request);
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    return init_common("MPI_Recv_init", buf, count, datatype, source, tag, comm, true,
                       MPI_SEND_STANDARD, request);
}
