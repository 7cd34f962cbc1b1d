/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-sided by message (osc.h): what a target's transport cannot do itself (btl_sm's atomics,
 * its puts where CMA is not permitted, a device without atomics) goes as a request on the
 * window's private communicator; the target's progress hook (osc_win.c) receives it with
 * an ever-posted receive, applies it to its own memory (the CPU's atomics, as btl_self does)
 * and answers on a second private duplicate (am_comm: the replies' receives posted by the
 * origin do not lie in the queue the target's request receive walks); the origin's operation
 * completes with the answer. The target checks the access against its window again: a request
 * outside it is answered RCMSG_ERR_INVALID_PARAM.
 */
#include "config.h"

#include "osc.h"

#include "base/log.h"
#include "collectives/coll_op.h"
#include "progress/progress.h"

#include <stdlib.h>
#include <string.h>

#define OSC_TAG_REQ   1
#define OSC_TAG_REP   2
#define OSC_SERVE_MAX 16 /* requests served per window per progress round */

typedef struct {
    uint32_t kind; /* osc_am_kind_t */
    uint32_t len;
    uint64_t disp;
    uint64_t operand, compare;
} osc_am_req_t;

typedef struct {
    int32_t status;
    uint32_t len;
    uint64_t old;
} osc_am_rep_t;

/* An operation in flight (origin side). */
typedef struct {
    rcmsg_queue_link_t link;
    int target;
    rcmsg_request_t sreq, rreq;
    void *result; /* where the reply's bytes go (a get's origin buffer, ...) */
    size_t rlen;
    uint64_t *old_p;
    osc_am_rep_t *rep;  /* followed by a get's bytes */
    osc_am_req_t *req;  /* followed by a put's bytes */
    rcmsg_status_t err; /* the first error of its two requests */
} osc_am_op_t;

/* A reply being sent (target side). */
typedef struct {
    rcmsg_queue_link_t link;
    rcmsg_request_t req;
    osc_am_rep_t rep; /* followed by a get's bytes */
} osc_am_reply_t;

static rcmsg_status_t osc_am_post(rcmsg_win_t win)
{
    rcmsg_status_t s = rcmsg_irecv(win->am_buf, sizeof(osc_am_req_t) + OSC_AM_MAX, RCMSG_ANY_SOURCE,
                                   OSC_TAG_REQ, win->comm, &win->am_req);

    if (s != RCMSG_OK) {
        rcmsg_error("one-sided: posting the receive of requests failed: %s", rcmsg_strerror(s));
    }
    return s;
}

rcmsg_status_t osc_am_open(rcmsg_win_t win)
{
    rcmsg_status_t s = rcmsg_comm_dup(win->comm, &win->am_comm); /* collective: first */

    if (s != RCMSG_OK) {
        rcmsg_error("one-sided: duplicating the window's communicator failed: %s",
                    rcmsg_strerror(s));
        return s;
    }
    win->am_buf = malloc(sizeof(osc_am_req_t) + OSC_AM_MAX);
    win->am_origins = calloc((size_t)win->size, sizeof(*win->am_origins)); /* empty queues */
    s = win->am_buf == NULL || win->am_origins == NULL ? RCMSG_ERR_NO_MEMORY : osc_am_post(win);
    if (s != RCMSG_OK) {
        free(win->am_buf);
        win->am_buf = NULL;
        free(win->am_origins);
        win->am_origins = NULL;
        (void)rcmsg_comm_free(&win->am_comm);
    }
    return s;
}

void osc_am_close(rcmsg_win_t win)
{
    rcmsg_queue_link_t *l;

    if (win->am_req != RCMSG_REQUEST_NULL) {
        (void)rcmsg_cancel(&win->am_req);
        (void)rcmsg_wait(&win->am_req, NULL);
    }
    while ((l = rcmsg_queue_pop_head(&win->am_sending)) != NULL) {
        osc_am_origin_t *o = RCMSG_CONTAINER_OF(l, osc_am_origin_t, link);
        while ((l = rcmsg_queue_pop_head(&o->replies)) != NULL) {
            osc_am_reply_t *r = RCMSG_CONTAINER_OF(l, osc_am_reply_t, link);
            (void)rcmsg_wait(&r->req, NULL);
            free(r);
        }
    }
    free(win->am_buf);
    win->am_buf = NULL;
    free(win->am_origins);
    win->am_origins = NULL;
    (void)rcmsg_comm_free(&win->am_comm);
}

/* An operation on this process's own window completes before its call returns, as MPICH's
 * and Open MPI's do: this process serves it in its own progress rounds (the hook of
 * osc_win.c), a few of them. A program that reads or frees the result before the
 * synchronization (erroneous, but mpi4py's tests free a compare-and-swap's result before the
 * fence) finds it done. The operations to itself before it are served first (in order, as
 * MPI orders accumulates). Bounded: an operation still in flight after the rounds completes at
 * the synchronization, as any other. */
#define OSC_AM_SELF_ROUNDS 1000

static void osc_am_settle_self(rcmsg_win_t win)
{
    for (int i = 0; i < OSC_AM_SELF_ROUNDS && !rcmsg_queue_empty(&win->am_ops[win->rank]); i++) {
        (void)rcmsg_progress();
    }
}

rcmsg_status_t osc_am_start(rcmsg_win_t win, const osc_am_call_t *c)
{
    osc_am_op_t *op = calloc(1, sizeof(*op));
    rcmsg_status_t s;

    if (op == NULL || (op->req = malloc(sizeof(osc_am_req_t) + c->dlen)) == NULL ||
        (op->rep = malloc(sizeof(osc_am_rep_t) + c->rlen)) == NULL) {
        if (op != NULL) {
            free(op->req);
        }
        free(op);
        return RCMSG_ERR_NO_MEMORY;
    }
    *op->req = (osc_am_req_t){.kind = c->kind,
                              .len = (uint32_t)c->len,
                              .disp = c->disp,
                              .operand = c->operand,
                              .compare = c->compare};
    if (c->dlen > 0) {
        memcpy(op->req + 1, c->data, c->dlen);
    }
    op->target = c->target;
    op->result = c->result;
    op->rlen = c->rlen;
    op->old_p = c->old_p;
    s = rcmsg_irecv(op->rep, sizeof(osc_am_rep_t) + c->rlen, c->target, OSC_TAG_REP, win->am_comm,
                    &op->rreq);
    if (s == RCMSG_OK) {
        s = rcmsg_isend(op->req, sizeof(osc_am_req_t) + c->dlen, c->target, OSC_TAG_REQ, win->comm,
                        &op->sreq);
        if (s != RCMSG_OK) {
            (void)rcmsg_cancel(&op->rreq);
            (void)rcmsg_wait(&op->rreq, NULL);
        }
    }
    if (s != RCMSG_OK) {
        free(op->req);
        free(op->rep);
        free(op);
        return s;
    }
    win->pending[c->target]++;
    win->npending++;
    win->am_inflight++;
    rcmsg_queue_push_tail(&win->am_ops[c->target], &op->link);
    if (c->target == win->rank) {
        osc_am_settle_self(win);
    }
    return RCMSG_OK;
}

/* An accumulate (fetching or not) or its compare-and-swap, at: element-wise as the datatype
 * says, through an aligned copy (the window's bytes need not be aligned for it). */
static rcmsg_status_t osc_am_acc(const osc_am_req_t *q, char *at, osc_am_reply_t *r)
{
    rcmsg_datatype_t dtype = (rcmsg_datatype_t)q->compare;
    rcmsg_op_t op = (rcmsg_op_t)(int64_t)q->operand;
    size_t esize = (unsigned)dtype < RCMSG_DATATYPE_COUNT ? rcmsg_coll_dtype_size(dtype) : 0;
    const char *in = (const char *)(q + 1);
    uint64_t *tmp;
    rcmsg_status_t s = RCMSG_OK;

    if (esize == 0 || q->len % esize != 0) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (q->kind != OSC_AM_ACC) {
        memcpy(&r->rep + 1, at, q->len); /* the old value */
        r->rep.len = q->len;
    }
    if (q->kind == OSC_AM_ACAS) {
        if (memcmp(at, in, q->len) == 0) {
            memcpy(at, in + q->len, q->len);
        }
        return RCMSG_OK;
    }
    if (op == RCMSG_OP_NO_OP || op == RCMSG_OP_REPLACE) {
        if (op == RCMSG_OP_REPLACE) {
            memcpy(at, in, q->len);
        }
        return RCMSG_OK;
    }
    tmp = malloc(2 * (size_t)q->len + 16);
    if (tmp == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    memcpy(tmp, at, q->len);
    memcpy((char *)tmp + ((q->len + 7) & ~7u), in, q->len);
    s = rcmsg_coll_op_reduce(op, dtype, (char *)tmp + ((q->len + 7) & ~7u), tmp, q->len / esize);
    if (s == RCMSG_OK) {
        memcpy(at, tmp, q->len);
    }
    free(tmp);
    return s;
}

/* The request from origin (count bytes in am_buf), applied to this member's memory. */
static void osc_am_apply(rcmsg_win_t win, const osc_am_req_t *q, size_t count, osc_am_reply_t *r)
{
    char *at = win->dyn != NULL ? (char *)(uintptr_t)q->disp : (char *)win->base + q->disp;
    size_t data = count >= sizeof(*q) ? count - sizeof(*q) : 0;
    bool atomic = q->kind == OSC_AM_FADD || q->kind == OSC_AM_CSWAP;
    size_t want = q->kind == OSC_AM_PUT || q->kind == OSC_AM_ACC || q->kind == OSC_AM_GACC ? q->len
                  : q->kind == OSC_AM_ACAS ? 2 * (size_t)q->len
                                           : 0;

    bool in = win->dyn != NULL ? osc_dyn_mine(win, q->disp, q->len)
                               : q->len <= win->len && q->disp <= win->len - q->len;

    if (count < sizeof(*q) || q->kind > OSC_AM_ACAS || !in || data != want || q->len > OSC_AM_MAX ||
        (atomic && (q->len != 8 || (uintptr_t)at % 8 != 0))) {
        r->rep.status = RCMSG_ERR_INVALID_PARAM;
        return;
    }
    switch ((osc_am_kind_t)q->kind) {
    case OSC_AM_PUT:
        memcpy(at, q + 1, q->len);
        break;
    case OSC_AM_GET:
        memcpy(&r->rep + 1, at, q->len);
        r->rep.len = q->len;
        break;
    case OSC_AM_FADD:
        r->rep.old = __atomic_fetch_add((uint64_t *)(void *)at, q->operand, __ATOMIC_SEQ_CST);
        break;
    case OSC_AM_CSWAP:
        r->rep.old = q->compare;
        __atomic_compare_exchange_n((uint64_t *)(void *)at, &r->rep.old, q->operand, false,
                                    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        break;
    case OSC_AM_ACC:
    case OSC_AM_GACC:
    case OSC_AM_ACAS:
        r->rep.status = osc_am_acc(q, at, r);
        break;
    }
}

/* Serves the request that completed the posted receive, and posts it again. */
static rcmsg_status_t osc_am_serve(rcmsg_win_t win, const rcmsg_msg_status_t *st)
{
    const osc_am_req_t *q = (const osc_am_req_t *)(void *)win->am_buf;
    bool fetch = q->kind == OSC_AM_GET || q->kind == OSC_AM_GACC || q->kind == OSC_AM_ACAS;
    size_t get = st->count >= sizeof(*q) && fetch && q->len <= OSC_AM_MAX ? q->len : 0;
    osc_am_reply_t *r = calloc(1, sizeof(*r) + get);
    rcmsg_status_t s;

    if (r == NULL) {
        rcmsg_error("one-sided: no memory to answer a request of member %d", st->source);
        return RCMSG_ERR_NO_MEMORY;
    }
    osc_am_apply(win, q, st->count, r);
    if (r->rep.status != RCMSG_OK) {
        rcmsg_error("one-sided: member %d asked for an access outside this member's window of "
                    "%zu bytes, or a malformed one: refused (%s)",
                    st->source, win->len, rcmsg_status_name((rcmsg_status_t)r->rep.status));
        get = 0;
    }
    s = rcmsg_isend(&r->rep, sizeof(r->rep) + get, st->source, OSC_TAG_REP, win->am_comm, &r->req);
    if (s != RCMSG_OK) {
        free(r);
        return s;
    }
    if (rcmsg_queue_empty(&win->am_origins[st->source].replies)) {
        rcmsg_queue_push_tail(&win->am_sending, &win->am_origins[st->source].link);
    }
    rcmsg_queue_push_tail(&win->am_origins[st->source].replies, &r->link);
    return osc_am_post(win);
}

/* An origin's replies freed from the oldest up to the first still being sent (as osc_am_reap:
 * testing the head only). Per origin: a reply by rendezvous to an origin that does not enter
 * rcmsg holds back only its own later ones, not those to the other origins. */
static int osc_am_replies_free(osc_am_origin_t *o)
{
    rcmsg_queue_link_t *l;
    int n = 0, flag;

    while ((l = rcmsg_queue_first(&o->replies)) != NULL) {
        osc_am_reply_t *r = RCMSG_CONTAINER_OF(l, osc_am_reply_t, link);
        (void)rcmsg_test(&r->req, &flag, NULL);
        if (!flag) {
            break;
        }
        rcmsg_queue_remove(&o->replies, &r->link);
        free(r);
        n++;
    }
    return n;
}

/* Target side: requests received, replies sent. */
static int osc_am_target(rcmsg_win_t win)
{
    rcmsg_msg_status_t st;
    int n = 0, flag = 1;

    for (int i = 0; i < OSC_SERVE_MAX && flag && win->am_req != RCMSG_REQUEST_NULL; i++) {
        rcmsg_status_t s = rcmsg_test(&win->am_req, &flag, &st);
        if (!flag) {
            break;
        }
        if (s != RCMSG_OK || osc_am_serve(win, &st) != RCMSG_OK) {
            rcmsg_error("one-sided: this member no longer serves requests by message (%s)",
                        rcmsg_strerror(s != RCMSG_OK ? s : st.error));
            break;
        }
        n++;
    }
    /* Replies freed: per origin with replies being sent (not a walk of every member) */
    for (rcmsg_queue_link_t *l = rcmsg_queue_first(&win->am_sending), *next; l != NULL; l = next) {
        osc_am_origin_t *o = RCMSG_CONTAINER_OF(l, osc_am_origin_t, link);
        next = rcmsg_queue_next(l);
        n += osc_am_replies_free(o);
        if (rcmsg_queue_empty(&o->replies)) {
            rcmsg_queue_remove(&win->am_sending, &o->link);
        }
    }
    return n;
}

/* Origin side: an operation whose request and answer are through completes. */
static bool osc_am_finish(rcmsg_win_t win, osc_am_op_t *op)
{
    rcmsg_status_t e;
    int flag;

    if (op->sreq != RCMSG_REQUEST_NULL) {
        e = rcmsg_test(&op->sreq, &flag, NULL);
        op->err = flag && op->err == RCMSG_OK ? e : op->err;
    }
    if (op->rreq != RCMSG_REQUEST_NULL) {
        e = rcmsg_test(&op->rreq, &flag, NULL);
        op->err = flag && op->err == RCMSG_OK ? e : op->err;
    }
    if (op->sreq != RCMSG_REQUEST_NULL || op->rreq != RCMSG_REQUEST_NULL) {
        return false;
    }
    e = op->err != RCMSG_OK ? op->err : (rcmsg_status_t)op->rep->status;
    if (e == RCMSG_OK && op->rlen > 0) {
        memcpy(op->result, op->rep + 1, op->rlen);
    }
    if (e == RCMSG_OK && op->old_p != NULL) {
        *op->old_p = op->rep->old;
    }
    osc_done(win, op->target, e);
    return true;
}

/* The operations to target that are through, from the oldest up to the first that is not:
 * the target answers its requests in their order and the pml does not overtake between two
 * members on one tag, so they complete in that order (one that finished out of it is taken
 * with those before it). Testing only the head keeps a progress round O(1) per target however
 * many operations an epoch has in flight (testing all of them made an epoch quadratic). */
static int osc_am_reap(rcmsg_win_t win, rcmsg_queue_t *ops)
{
    rcmsg_queue_link_t *l;
    int n = 0;

    while ((l = rcmsg_queue_first(ops)) != NULL) {
        osc_am_op_t *op = RCMSG_CONTAINER_OF(l, osc_am_op_t, link);
        if (!osc_am_finish(win, op)) {
            break;
        }
        rcmsg_queue_remove(ops, &op->link);
        win->am_inflight--;
        free(op->req);
        free(op->rep);
        free(op);
        n++;
    }
    return n;
}

int osc_am_poll(rcmsg_win_t win)
{
    int n = osc_am_target(win);

    if (win->am_inflight == 0) { /* rc's and sm's own operations need no walk of size queues */
        return n;
    }
    for (int t = 0; t < win->size; t++) {
        n += osc_am_reap(win, &win->am_ops[t]);
    }
    return n;
}
