/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The schedule engine (coll_sched.h): recording steps while an algorithm builds, running a
 * schedule to completion (blocking collectives), and advancing nonblocking ones from rcmsg's
 * progress (a hook registered only while one is active: an idle engine costs the
 * point-to-point path nothing).
 */
#include "config.h"

#include "coll.h"

#include "base/log.h"
#include "base/mt.h"
#include "pml/pml.h"
#include "progress/progress.h"

#include <string.h>

#define SCHED_STEPS_MIN 16

static rcmsg_coll_sched_t *active; /* nonblocking schedules under way, newest first */
static bool hooked;                /* sched_hook is registered with rcmsg's progress */

/* ---- building ---------------------------------------------------------------------------- */

void rcmsg_coll_sched_init(rcmsg_coll_sched_t *s, rcmsg_coll_args_t *a, rcmsg_coll_arena_t *ar)
{
    /* field by field: inline_steps is left as it is (every call of a blocking loop) */
    s->arena = ar;
    s->steps = s->inline_steps;
    s->cap = RCMSG_COLL_SCHED_INLINE;
    s->nsteps = s->cur = s->phase = s->pending = 0;
    s->err = RCMSG_OK;
    s->mismatch = RCMSG_OK;
    s->comm = a->comm;
    s->tag = a->tag;
    s->coll = (int)a->coll;
    s->op = a->op;
    s->dtype = a->dtype;
    s->own = (rcmsg_coll_arena_t){0};
    s->req = RCMSG_REQUEST_NULL;
    s->next = NULL;
    a->sched = s;
}

rcmsg_status_t rcmsg_coll_sched_grow(const rcmsg_coll_args_t *a, const rcmsg_coll_step_t *step)
{
    rcmsg_coll_sched_t *s = a->sched;
    /* the old array stays in the arena (or inline): it goes with the schedule */
    int cap = s->cap * 2 < SCHED_STEPS_MIN ? SCHED_STEPS_MIN : s->cap * 2;
    rcmsg_coll_step_t *steps = rcmsg_coll_arena_get(s->arena, sizeof(*steps) * (size_t)cap);

    if (steps == NULL) {
        s->err = RCMSG_ERR_NO_MEMORY; /* sticky: the schedule never runs */
        return RCMSG_ERR_NO_MEMORY;
    }
    memcpy(steps, s->steps, sizeof(*steps) * (size_t)s->nsteps);
    s->steps = steps;
    s->cap = cap;
    s->steps[s->nsteps++] = *step;
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_coll_copy_add(const rcmsg_coll_args_t *a, void *dst, const void *src,
                                   size_t len)
{
    rcmsg_coll_step_t st = {.kind = RCMSG_COLL_STEP_COPY, .dst = dst, .src = src, .len = len};

    return rcmsg_coll_sched_add(a, &st);
}

rcmsg_status_t rcmsg_coll_reduce_add(const rcmsg_coll_args_t *a, const void *x, const void *y,
                                     void *out, size_t count)
{
    rcmsg_coll_step_t st = {
        .kind = RCMSG_COLL_STEP_REDUCE, .dst = out, .src = x, .src2 = y, .len = count};

    return rcmsg_coll_sched_add(a, &st);
}

rcmsg_status_t rcmsg_coll_fence(const rcmsg_coll_args_t *a)
{
    rcmsg_coll_step_t st = {.kind = RCMSG_COLL_STEP_FENCE};

    return a->sched == NULL ? RCMSG_OK : rcmsg_coll_sched_add(a, &st); /* run: nothing pending */
}

/* ---- messages, and running a blocking call as it is built ---------------------------------- */

static bool is_msg(const rcmsg_coll_step_t *st)
{
    return st->kind == RCMSG_COLL_STEP_SEND || st->kind == RCMSG_COLL_STEP_RECV;
}

static void sched_fail(rcmsg_coll_sched_t *s, rcmsg_status_t err)
{
    if (s->err == RCMSG_OK) {
        s->err = err;
    }
}

/* Posts a message of collective coll in comm's collective space. checked: through the pml's
 * checked entries (a nonblocking schedule: a communicator freed under it, against rcmsg.h's
 * rule, is refused there, O(1)); else the unchecked ones (a blocking call: the public call
 * checked the communicator and the peers, and the communicator cannot be freed before it
 * returns). A failure is logged, naming the peer. */
static rcmsg_status_t msg_post(rcmsg_comm_t comm, int tag, int coll, bool checked, bool recv,
                               void *buf, size_t len, int peer, rcmsg_request_t *req)
{
    rcmsg_status_t r;

    if (!checked) {
        r = recv ? rcmsg_pml_irecv_unchecked(buf, len, peer, tag, comm, true, req)
                 : rcmsg_pml_isend_unchecked(buf, len, peer, tag, comm, true, req);
    } else {
        r = recv ? rcmsg_pml_irecv(buf, len, peer, tag, comm, true, req)
                 : rcmsg_pml_isend(buf, len, peer, tag, comm, true, req);
    }
    if (r != RCMSG_OK) {
        *req = RCMSG_REQUEST_NULL;
        rcmsg_error("%s: posting %s rank %d failed: %s", rcmsg_coll_name(coll),
                    recv ? "a receive from" : "a send to", peer, rcmsg_strerror(r));
    }
    return r;
}

/* Whether a message completed (r: what wait returned) with the wrong size: the ranks disagree
 * on the call's count, datatype or root (msg_done logs it). */
static inline bool msg_mismatch(bool recv, size_t len, rcmsg_status_t r,
                                const rcmsg_msg_status_t *ms)
{
    return recv && (r == RCMSG_ERR_TRUNCATED || (r == RCMSG_OK && ms->count != len));
}

/* The outcome of a message that completed (r: what wait returned), logged when it failed,
 * naming the rank: too much or too little data received is RCMSG_ERR_INVALID_PARAM, as
 * rcmsg.h promises. */
static rcmsg_status_t msg_done(rcmsg_comm_t comm, int coll, bool recv, int peer, size_t len,
                               rcmsg_status_t r, const rcmsg_msg_status_t *ms)
{
    const char *name;

    if (__builtin_expect(r == RCMSG_OK && (!recv || ms->count == len), 1)) {
        return RCMSG_OK; /* the usual case first */
    }
    name = rcmsg_coll_name(coll);
    if (r == RCMSG_ERR_TRUNCATED && recv) {
        rcmsg_log(rcmsg_pml_caller_level(comm),
                  "%s: rank %d sent more than the %zu bytes expected: do all ranks pass "
                  "the same count, datatype and root?",
                  name, peer, len);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (r != RCMSG_OK) {
        rcmsg_error("%s: %s rank %d failed: %s", name, recv ? "receiving from" : "sending to", peer,
                    rcmsg_strerror(r));
        return r;
    }
    rcmsg_log(rcmsg_pml_caller_level(comm),
              "%s: rank %d sent %zu bytes where %zu were expected: do all ranks pass the "
              "same count, datatype and root?",
              name, peer, ms->count, len);
    return RCMSG_ERR_INVALID_PARAM;
}

/* Posts the n messages of m, the receives first (a message may come back as soon as a send is
 * out). After a failure the receives posted are taken back (or, matched already, completed)
 * and the sends posted completed: the error. */
static rcmsg_status_t now_post(const rcmsg_coll_args_t *a, int n, const rcmsg_coll_msg_t *m,
                               rcmsg_request_t *reqs)
{
    rcmsg_status_t r = RCMSG_OK;

    for (int i = 0; i < n; i++) {
        reqs[i] = RCMSG_REQUEST_NULL;
    }
    for (int pass = 0; pass < 2 && r == RCMSG_OK; pass++) {
        for (int i = 0; i < n && r == RCMSG_OK; i++) {
            if (m[i].recv == (pass == 0)) {
                r = msg_post(a->comm, a->tag, a->coll, false, m[i].recv, m[i].buf, m[i].len,
                             m[i].peer + a->peer_off, &reqs[i]);
            }
        }
    }
    for (int i = 0; i < n && r != RCMSG_OK; i++) {
        if (reqs[i] != RCMSG_REQUEST_NULL &&
            (!m[i].recv || rcmsg_pml_cancel_recv(&reqs[i]) != RCMSG_OK)) {
            (void)rcmsg_wait(&reqs[i], NULL);
        }
    }
    return r;
}

/* Waits for the n messages posted: the first failure; a message of another length goes to
 * *a->mismatch, logged once per call, and the call runs on (NULL: it is the failure). */
static rcmsg_status_t now_wait(const rcmsg_coll_args_t *a, int n, const rcmsg_coll_msg_t *m,
                               rcmsg_request_t *reqs)
{
    rcmsg_status_t err = RCMSG_OK;

    for (int i = 0; i < n; i++) {
        rcmsg_msg_status_t ms;
        rcmsg_status_t r = rcmsg_wait(&reqs[i], &ms);

        if (__builtin_expect(r != RCMSG_OK || (m[i].recv && ms.count != m[i].len), 0) &&
            err == RCMSG_OK) {
            if (a->mismatch == NULL || !msg_mismatch(m[i].recv, m[i].len, r, &ms)) {
                err = msg_done(a->comm, a->coll, m[i].recv, m[i].peer, m[i].len, r, &ms);
            } else if (*a->mismatch == RCMSG_OK) { /* the call runs on */
                *a->mismatch = msg_done(a->comm, a->coll, m[i].recv, m[i].peer, m[i].len, r, &ms);
            }
        }
    }
    return err;
}

#define NOW_REQS 8 /* messages of a phase whose requests fit on the stack */

rcmsg_status_t rcmsg_coll_phase_now(const rcmsg_coll_args_t *a, int n, const rcmsg_coll_msg_t *m,
                                    const rcmsg_coll_copy_t *during, const rcmsg_coll_copy_t *after)
{
    rcmsg_request_t stack[NOW_REQS], *reqs = stack;
    rcmsg_status_t err;

    if (n > NOW_REQS && (reqs = rcmsg_coll_scratch_get(a, sizeof(*reqs) * (size_t)n)) == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    err = now_post(a, n, m, reqs);
    if (err != RCMSG_OK) {
        return err;
    }
    if (during != NULL) {
        memmove(during->dst, during->src, during->len); /* they may overlap each other */
    }
    err = now_wait(a, n, m, reqs);
    if (err == RCMSG_OK && after != NULL) {
        memmove(after->dst, after->src, after->len);
    }
    return err;
}

/* ---- running a nonblocking schedule ---------------------------------------------------- */

static rcmsg_status_t step_post(rcmsg_coll_sched_t *s, rcmsg_coll_step_t *st)
{
    bool recv = st->kind == RCMSG_COLL_STEP_RECV;

    return msg_post(s->comm, s->tag, s->coll, true, recv, recv ? st->dst : (void *)st->src, st->len,
                    st->peer, &st->req);
}

static rcmsg_status_t step_local(rcmsg_coll_sched_t *s, const rcmsg_coll_step_t *st)
{
    switch (st->kind) {
    case RCMSG_COLL_STEP_COPY:
        memmove(st->dst, st->src, st->len);
        return RCMSG_OK;
    case RCMSG_COLL_STEP_REDUCE:
        return rcmsg_coll_apply(s->coll, s->op, s->dtype, st->src, st->src2, st->dst, st->len);
    default:
        return RCMSG_OK;
    }
}

/* A message of the phase completed (r: what wait returned): the first failure kept. */
static void step_done(rcmsg_coll_sched_t *s, const rcmsg_coll_step_t *st, rcmsg_status_t r,
                      const rcmsg_msg_status_t *ms)
{
    bool recv = st->kind == RCMSG_COLL_STEP_RECV;

    if (s->err != RCMSG_OK || ms->cancelled) {
        return;
    }
    if (msg_mismatch(recv, st->len, r, ms)) { /* the schedule runs on (its `mismatch`) */
        if (s->mismatch == RCMSG_OK) {
            s->mismatch = msg_done(s->comm, s->coll, recv, st->peer, st->len, r, ms);
        }
        return;
    }
    s->err = msg_done(s->comm, s->coll, recv, st->peer, st->len, r, ms);
}

/* Starts the next phase: its local steps run, its messages posted, up to its fence (taken).
 * After a failure the receives posted are taken back (the sends must complete). */
static void phase_begin(rcmsg_coll_sched_t *s)
{
    s->phase = s->cur;
    s->pending = 0;
    while (s->cur < s->nsteps && s->err == RCMSG_OK) {
        rcmsg_coll_step_t *st = &s->steps[s->cur++];

        if (st->kind == RCMSG_COLL_STEP_FENCE) {
            break;
        }
        rcmsg_status_t r = is_msg(st) ? step_post(s, st) : step_local(s, st);

        if (r != RCMSG_OK) {
            sched_fail(s, r); /* e.g. the loss of a member, refused at the posting */
        } else if (is_msg(st)) {
            s->pending++;
        }
    }
    for (int i = s->phase; i < s->cur && s->err != RCMSG_OK; i++) {
        rcmsg_coll_step_t *st = &s->steps[i];
        if (st->kind == RCMSG_COLL_STEP_RECV && st->req != RCMSG_REQUEST_NULL &&
            rcmsg_pml_cancel_recv(&st->req) == RCMSG_OK) {
            s->pending--;
        }
    }
}

/* ---- nonblocking ------------------------------------------------------------------------- */

/* Completes what of the current phase has completed, and starts phases while nothing is
 * pending; whether the schedule is over. *n counts what it advanced. */
static bool sched_advance(rcmsg_coll_sched_t *s, int *n)
{
    for (;;) {
        for (int i = s->phase; i < s->cur && s->pending > 0; i++) {
            rcmsg_coll_step_t *st = &s->steps[i];
            rcmsg_msg_status_t ms;
            rcmsg_status_t r;

            if (!is_msg(st) || st->req == RCMSG_REQUEST_NULL || !rcmsg_pml_req_done(st->req)) {
                continue;
            }
            r = rcmsg_wait(&st->req, &ms);
            step_done(s, st, r, &ms);
            s->pending--;
            (*n)++;
        }
        if (s->pending > 0) {
            return false;
        }
        if (s->cur >= s->nsteps || s->err != RCMSG_OK) {
            return true;
        }
        phase_begin(s);
        (*n)++;
    }
}

static void sched_finish(rcmsg_coll_sched_t *s)
{
    rcmsg_coll_arena_t own = s->own; /* s lives in it */

    rcmsg_coll_user_unref(s->op, s->dtype);
    s->comm->nbc_active--;
    rcmsg_pml_req_owned_complete(s->req, s->err != RCMSG_OK ? s->err : s->mismatch);
    rcmsg_coll_arena_free(&own);
}

static int sched_hook(void *arg);

/* Unregisters the hook once no schedule is active (after the list changed). */
static void hook_sync(void)
{
    if (active == NULL && hooked) {
        rcmsg_progress_unregister(sched_hook, NULL); /* from inside the hook too: allowed */
        hooked = false;
    }
}

/* Registers the hook before a schedule starts: without it nothing would advance the schedule
 * (rcmsg_wait on its request only runs progress). */
static rcmsg_status_t hook_need(void)
{
    if (!hooked && rcmsg_progress_register_internal(sched_hook, NULL) != RCMSG_OK) {
        rcmsg_error("a nonblocking collective needs a progress hook, and all %d are taken "
                    "(RCMSG_PROGRESS_HOOK_MAX)",
                    RCMSG_PROGRESS_HOOK_MAX);
        return RCMSG_ERR_NO_RESOURCE;
    }
    hooked = true;
    return RCMSG_OK;
}

int rcmsg_coll_sched_progress(void)
{
    rcmsg_coll_sched_t **pp = &active;
    int n = 0;

    while (*pp != NULL) {
        rcmsg_coll_sched_t *s = *pp;

        if (sched_advance(s, &n)) {
            *pp = s->next;
            sched_finish(s);
        } else {
            pp = &s->next;
        }
    }
    hook_sync();
    return n;
}

static int sched_hook(void *arg)
{
    (void)arg;
    return rcmsg_coll_sched_progress();
}

rcmsg_coll_sched_t *rcmsg_coll_sched_new(rcmsg_coll_args_t *a)
{
    rcmsg_coll_arena_t own = {0};
    rcmsg_coll_sched_t *s = rcmsg_coll_arena_get(&own, sizeof(*s));

    if (s == NULL) {
        return NULL;
    }
    rcmsg_coll_sched_init(s, a, NULL);
    s->own = own;
    s->arena = &s->own;
    return s;
}

void rcmsg_coll_sched_drop(rcmsg_coll_sched_t *s)
{
    rcmsg_coll_arena_t own = s->own;

    rcmsg_coll_arena_free(&own);
}

rcmsg_status_t rcmsg_coll_sched_start(rcmsg_coll_sched_t *s, rcmsg_request_t *req_p)
{
    rcmsg_status_t r = hook_need();
    int n = 0;

    if (r == RCMSG_OK) {
        r = rcmsg_pml_req_owned(&s->req);
    }
    if (r != RCMSG_OK) {
        rcmsg_coll_sched_drop(s);
        return r;
    }
    *req_p = s->req;
    rcmsg_coll_user_ref(s->op, s->dtype);
    s->comm->nbc_active++;      /* rcmsg_comm_free refuses the communicator until it is over */
    if (sched_advance(s, &n)) { /* nothing to wait for: done at once */
        sched_finish(s);
        hook_sync();
        return RCMSG_OK;
    }
    s->next = active;
    active = s;
    hook_sync();
    rcmsg_mt_kick_work(); /* RCMSG_ASYNC_PROGRESS=full: the progress thread advances it */
    return RCMSG_OK;
}
