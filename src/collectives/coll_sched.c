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
#include "pml/pml.h"

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

rcmsg_status_t rcmsg_coll_copy(const rcmsg_coll_args_t *a, void *dst, const void *src, size_t len)
{
    rcmsg_coll_step_t st = {.kind = RCMSG_COLL_STEP_COPY, .dst = dst, .src = src, .len = len};

    return len == 0 || dst == src ? RCMSG_OK : rcmsg_coll_sched_add(a, &st);
}

rcmsg_status_t rcmsg_coll_call(const rcmsg_coll_args_t *a, rcmsg_coll_call_fn_t *fn, void *arg)
{
    rcmsg_coll_step_t st = {.kind = RCMSG_COLL_STEP_CALL, .fn = fn, .dst = arg};

    return rcmsg_coll_sched_add(a, &st);
}

rcmsg_status_t rcmsg_coll_reduce_local3(const rcmsg_coll_args_t *a, const void *x, const void *y,
                                        void *out, size_t count)
{
    rcmsg_coll_step_t st = {
        .kind = RCMSG_COLL_STEP_REDUCE, .dst = out, .src = x, .src2 = y, .len = count};

    return count == 0 ? RCMSG_OK : rcmsg_coll_sched_add(a, &st);
}

rcmsg_status_t rcmsg_coll_reduce_local(const rcmsg_coll_args_t *a, const void *in, void *inout,
                                       size_t count)
{
    return rcmsg_coll_reduce_local3(a, in, inout, inout, count);
}

rcmsg_status_t rcmsg_coll_fence(const rcmsg_coll_args_t *a)
{
    rcmsg_coll_step_t st = {.kind = RCMSG_COLL_STEP_FENCE};

    return rcmsg_coll_sched_add(a, &st);
}

/* ---- running ----------------------------------------------------------------------------- */

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

static rcmsg_status_t step_post(rcmsg_coll_sched_t *s, rcmsg_coll_step_t *st)
{
    bool recv = st->kind == RCMSG_COLL_STEP_RECV;
    rcmsg_status_t r;

    if (s->req == RCMSG_REQUEST_NULL) {
        /* blocking: the public call checked the communicator and the peers, and the
         * communicator cannot be freed before it returns */
        r = recv ? rcmsg_pml_irecv_unchecked(st->dst, st->len, st->peer, s->tag, s->comm, true,
                                             &st->req)
                 : rcmsg_pml_isend_unchecked(st->src, st->len, st->peer, s->tag, s->comm, true,
                                             &st->req);
    } else {
        /* nonblocking: a communicator freed under it (against rcmsg.h's rule) is refused here,
         * not read once freed (the handle table's check: O(1)) */
        r = recv ? rcmsg_pml_irecv(st->dst, st->len, st->peer, s->tag, s->comm, true, &st->req)
                 : rcmsg_pml_isend(st->src, st->len, st->peer, s->tag, s->comm, true, &st->req);
    }

    if (r != RCMSG_OK) {
        st->req = RCMSG_REQUEST_NULL;
        rcmsg_error("%s: posting %s rank %d failed: %s", rcmsg_coll_name(s->coll),
                    recv ? "a receive from" : "a send to", st->peer, rcmsg_strerror(r));
    }
    return r;
}

static rcmsg_status_t step_local(rcmsg_coll_sched_t *s, const rcmsg_coll_step_t *st)
{
    switch (st->kind) {
    case RCMSG_COLL_STEP_COPY:
        memmove(st->dst, st->src, st->len);
        return RCMSG_OK;
    case RCMSG_COLL_STEP_REDUCE:
        return rcmsg_coll_apply(s->coll, s->op, s->dtype, st->src, st->src2, st->dst, st->len);
    case RCMSG_COLL_STEP_CALL:
        st->fn(st->dst);
        return RCMSG_OK;
    default:
        return RCMSG_OK;
    }
}

/* A message of the phase completed (r: what wait returned): its outcome checked, the first
 * failure logged, naming the rank (too much or too little data received:
 * RCMSG_ERR_INVALID_PARAM, as rcmsg.h promises). */
static void step_done(rcmsg_coll_sched_t *s, const rcmsg_coll_step_t *st, rcmsg_status_t r,
                      const rcmsg_msg_status_t *ms)
{
    bool recv = st->kind == RCMSG_COLL_STEP_RECV;
    const char *name;

    if (__builtin_expect(r == RCMSG_OK && (!recv || ms->count == st->len), 1) ||
        s->err != RCMSG_OK || ms->cancelled) {
        return; /* the usual case first */
    }
    name = rcmsg_coll_name(s->coll);
    if (r == RCMSG_ERR_TRUNCATED && recv) {
        rcmsg_error("%s: rank %d sent more than the %zu bytes expected: do all ranks pass the "
                    "same count, datatype and root?",
                    name, st->peer, st->len);
        s->err = RCMSG_ERR_INVALID_PARAM;
    } else if (r != RCMSG_OK) {
        rcmsg_error("%s: %s rank %d failed: %s", name, recv ? "receiving from" : "sending to",
                    st->peer, rcmsg_strerror(r));
        s->err = r;
    } else if (recv && ms->count != st->len) {
        rcmsg_error("%s: rank %d sent %zu bytes where %zu were expected: do all ranks pass the "
                    "same count, datatype and root?",
                    name, st->peer, ms->count, st->len);
        s->err = RCMSG_ERR_INVALID_PARAM;
    }
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

rcmsg_status_t rcmsg_coll_sched_run(rcmsg_coll_sched_t *s)
{
    while (s->cur < s->nsteps && s->err == RCMSG_OK) {
        phase_begin(s);
        for (int i = s->phase; i < s->cur; i++) {
            rcmsg_coll_step_t *st = &s->steps[i];
            rcmsg_msg_status_t ms;
            rcmsg_status_t r;

            if (!is_msg(st) || st->req == RCMSG_REQUEST_NULL) {
                continue;
            }
            r = rcmsg_wait(&st->req, &ms);
            step_done(s, st, r, &ms);
        }
    }
    return s->err;
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
    rcmsg_pml_req_owned_complete(s->req, s->err);
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
    if (!hooked && rcmsg_progress_register(sched_hook, NULL) != RCMSG_OK) {
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
    return RCMSG_OK;
}
