/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Schedules: the engine under the nonblocking intercommunicator collectives (mpi_nbc_inter.c
 * builds them with mpi_nbc_eng.c's trees; the intracommunicator ones are rcmsg's, mpi_coll_req.c).
 *
 * A schedule is a list of steps cut into phases by fences:
 *
 *     [recv a, send b, copy] FENCE [reduce, send c] FENCE [copy out]
 *      \----- phase 0 ----/        \-- phase 1 --/        \ phase 2 /
 *
 * A phase starts its steps in order: a local step (copy, reduce) runs at once, a send or a
 * receive is posted (rcmsg_isend/irecv on the communicator's hidden duplicate, with the
 * schedule's own tag). The next phase starts once every send and receive of the phase has
 * completed. A typed send packs a noncontiguous buffer into a temporary one when it starts; a
 * typed receive into a noncontiguous buffer unpacks when it completes.
 *
 * Schedules advance when the MPI layer runs (mpi_sched_progress from mpi_progress, and a
 * request's own Test/Wait) and whenever rcmsg progresses (mpi_sched_progress is a progress hook
 * of rcmsg: mpi_env.c): no thread. The hook comes back into this file from the rcmsg_test of
 * a schedule being advanced: it then does nothing (depth). Once a step fails, no further phase
 * starts; the schedule completes, with the first error, when what was posted has completed.
 */
#include "mpi/mpi_engines.h"

#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    STEP_SEND,
    STEP_RECV,
    STEP_COPY,
    STEP_REDUCE,
    STEP_FENCE,
} step_kind_t;

typedef struct {
    step_kind_t kind;
    mpi_tbuf_t a, b; /* send/recv: a; copy: a to b */
    int peer;
    struct mpi_op *op; /* reduce: b.buf = a.buf op b.buf, a.count elements of dt; op and */
    mpi_type_t *t;     /* dt's type held until the schedule is freed (MPI_Op_free and */
    MPI_Datatype dt;   /* MPI_Type_free while it runs leave them working) */
    rcmsg_request_t rc;
    void *packed; /* a noncontiguous send or receive travels through it */
} step_t;

struct mpi_sched {
    rcmsg_comm_t rc;
    int tag;
    step_t *steps;
    size_t nsteps, cap;
    size_t first, next; /* the current phase: steps [first, next) */
    int err;            /* the first error (MPI code) */
    bool done, active, oom;
    void **allocs;
    size_t nallocs;
    mpi_sched_t *next_active;
};

static mpi_sched_t *active; /* started, not yet complete */
static int depth;           /* schedules are being advanced (the hook must not come back in) */
static bool hooked;         /* sched_hook is registered with rcmsg's progress */

/* ---- the progress hook ---------------------------------------------------------------------
 * rcmsg's progress runs the schedules (rcmsg_progress_register), so that a rank blocked inside
 * rcmsg (a blocking collective, Buffer_detach, a blocking receive) still forwards what its
 * nonblocking collectives owe. The hook is registered only while a schedule is active: an idle
 * one would still be called in every polling round of every blocking call (8 % of the samples
 * of an 8 B ping-pong, docs/performance.md). */
static int sched_hook(void *arg)
{
    (void)arg;
    return mpi_sched_progress();
}

/* registers or unregisters the hook as the active list says (called after it changed) */
static int sched_hook_sync(void)
{
    if (active != NULL && !hooked) {
        if (rcmsg_progress_register(sched_hook, NULL) != RCMSG_OK) {
            return MPI_ERR_OTHER; /* rcmsg logged why */
        }
        hooked = true;
    } else if (active == NULL && hooked) {
        rcmsg_progress_unregister(sched_hook, NULL); /* from inside the hook too: allowed */
        hooked = false;
    }
    return MPI_SUCCESS;
}

void mpi_sched_fini(void)
{
    active = NULL; /* what the program never waited for is abandoned (MPI: erroneous) */
    sched_hook_sync();
}

/* ---- building ---------------------------------------------------------------------------- */
mpi_sched_t *mpi_sched_new(mpi_comm_t *comm, const char *call, int *err_p)
{
    rcmsg_comm_t rc = mpi_coll_comm(comm, call, err_p);
    int tag = mpi_coll_tag(comm); /* taken even on failure: the sequence agrees everywhere */
    mpi_sched_t *s;

    if (rc == RCMSG_COMM_NULL) {
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (s == NULL) {
        *err_p = mpi_err(comm, call, MPI_ERR_NO_MEM, "out of memory for a schedule");
        return NULL;
    }
    s->rc = rc;
    s->tag = tag;
    return s;
}

static void tbuf_release(mpi_tbuf_t *b)
{
    if (b->type != NULL) {
        mpi_type_release(b->type);
        b->type = NULL;
    }
}

void mpi_sched_free(mpi_sched_t *s)
{
    for (size_t i = 0; i < s->nsteps; i++) {
        tbuf_release(&s->steps[i].a);
        tbuf_release(&s->steps[i].b);
        mpi_op_drop(s->steps[i].op);
        mpi_type_release(s->steps[i].t);
        free(s->steps[i].packed);
    }
    for (size_t i = 0; i < s->nallocs; i++) {
        free(s->allocs[i]);
    }
    free(s->allocs);
    free(s->steps);
    free(s);
}

void *mpi_sched_alloc(mpi_sched_t *s, size_t bytes)
{
    void **a = realloc(s->allocs, (s->nallocs + 1) * sizeof(*a));
    void *p = NULL;

    if (a != NULL) {
        s->allocs = a;
        p = malloc(bytes > 0 ? bytes : 1);
    }
    if (p == NULL) {
        s->oom = true;
        return NULL;
    }
    s->allocs[s->nallocs++] = p;
    return p;
}

void *mpi_sched_tmp(mpi_sched_t *s, size_t count, MPI_Datatype dt)
{
    mpi_type_t *t = mpi_type_get(dt);
    MPI_Aint tlb = mpi_type_true_lb(t), text = mpi_type_true_extent(t), ext = mpi_type_extent(t);
    MPI_Aint lo, hi;
    char *p;

    if (count == 0) {
        return mpi_sched_alloc(s, 1);
    }
    /* the span of count elements: element i's data is at i * ext + [tlb, tlb + text) */
    lo = tlb + (ext < 0 ? (MPI_Aint)(count - 1) * ext : 0);
    hi = tlb + text + (ext > 0 ? (MPI_Aint)(count - 1) * ext : 0);
    p = mpi_sched_alloc(s, (size_t)(hi - lo));
    return p != NULL ? p - lo : NULL;
}

static step_t *step_add(mpi_sched_t *s, step_kind_t kind)
{
    step_t *st;

    if (s->nsteps == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        step_t *n = realloc(s->steps, cap * sizeof(*n));

        if (n == NULL) {
            s->oom = true;
            return NULL;
        }
        s->steps = n;
        s->cap = cap;
    }
    st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof(*st));
    st->kind = kind;
    return st;
}

static mpi_tbuf_t tbuf_hold(mpi_tbuf_t b)
{
    if (b.type != NULL) {
        mpi_type_retain(b.type);
    }
    return b;
}

void mpi_sched_send(mpi_sched_t *s, mpi_tbuf_t b, int peer)
{
    step_t *st = step_add(s, STEP_SEND);

    if (st != NULL) {
        st->a = tbuf_hold(b);
        st->peer = peer;
    }
}

void mpi_sched_recv(mpi_sched_t *s, mpi_tbuf_t b, int peer)
{
    step_t *st = step_add(s, STEP_RECV);

    if (st != NULL) {
        st->a = tbuf_hold(b);
        st->peer = peer;
    }
}

void mpi_sched_copy(mpi_sched_t *s, mpi_tbuf_t from, mpi_tbuf_t to)
{
    step_t *st = step_add(s, STEP_COPY);

    if (st != NULL) {
        st->a = tbuf_hold(from);
        st->b = tbuf_hold(to);
    }
}

void mpi_sched_reduce(mpi_sched_t *s, MPI_Op op, const void *in, void *inout, size_t count,
                      MPI_Datatype dt)
{
    step_t *st = step_add(s, STEP_REDUCE);

    if (st != NULL) {
        st->a = (mpi_tbuf_t){(void *)in, count, NULL};
        st->b.buf = inout;
        st->op = mpi_op_hold(op);
        st->t = mpi_type_get(dt);
        st->dt = dt;
        if (st->t != NULL) {
            mpi_type_retain(st->t);
        }
    }
}

void mpi_sched_fence(mpi_sched_t *s)
{
    /* two fences in a row, or one at the start, are one */
    if (s->nsteps > 0 && s->steps[s->nsteps - 1].kind != STEP_FENCE) {
        step_add(s, STEP_FENCE);
    }
}

/* ---- running ----------------------------------------------------------------------------- */
static size_t tbuf_bytes(const mpi_tbuf_t *b)
{
    return b->type != NULL ? mpi_type_size(b->type) * b->count : b->count;
}

/* where the data of b is one block (contiguous or bytes), or NULL */
static char *tbuf_block(const mpi_tbuf_t *b)
{
    if (b->type == NULL) {
        return b->buf;
    }
    if (mpi_type_is_contig(b->type)) {
        return (char *)b->buf + mpi_type_true_lb(b->type);
    }
    return NULL;
}

static int step_copy(step_t *st)
{
    size_t bytes = tbuf_bytes(&st->a);
    char *from = tbuf_block(&st->a), *to = tbuf_block(&st->b), *tmp = NULL;

    if (bytes != tbuf_bytes(&st->b)) {
        return MPI_ERR_TRUNCATE; /* the type signatures differ */
    }
    if (bytes == 0) {
        return MPI_SUCCESS;
    }
    if (from == NULL && to == NULL) {
        tmp = malloc(bytes);
        if (tmp == NULL) {
            return MPI_ERR_NO_MEM;
        }
    }
    if (from == NULL) {
        from = to != NULL ? to : tmp;
        mpi_type_pack(st->a.type, st->a.buf, st->a.count, from);
    } else if (to != NULL) {
        memmove(to, from, bytes);
    }
    if (to == NULL) {
        mpi_type_unpack(st->b.type, from, st->b.count, st->b.buf);
    }
    free(tmp);
    return MPI_SUCCESS;
}

static int step_post(mpi_sched_t *s, step_t *st)
{
    size_t bytes = tbuf_bytes(&st->a);
    char *where = tbuf_block(&st->a);
    rcmsg_status_t rs;

    if (where == NULL) {
        st->packed = malloc(bytes > 0 ? bytes : 1);
        if (st->packed == NULL) {
            return MPI_ERR_NO_MEM;
        }
        where = st->packed;
        if (st->kind == STEP_SEND) {
            mpi_type_pack(st->a.type, st->a.buf, st->a.count, where);
        }
    }
    if (st->kind == STEP_SEND) {
        rs = rcmsg_isend(where, bytes, st->peer, s->tag, s->rc, &st->rc);
    } else {
        rs = rcmsg_irecv(where, bytes, st->peer, s->tag, s->rc, &st->rc);
    }
    return rs == RCMSG_OK ? MPI_SUCCESS : mpi_err_code(mpi_err_class_of(rs), rs);
}

/* a posted send or receive completed with rs */
static int step_complete(step_t *st, rcmsg_status_t rs, const rcmsg_msg_status_t *rst)
{
    int err = MPI_SUCCESS;

    if (rs == RCMSG_ERR_TRUNCATED) {
        err = mpi_err_code(MPI_ERR_TRUNCATE, rs);
    } else if (rs != RCMSG_OK) {
        err = mpi_err_code(mpi_err_class_of(rs), rs);
    } else if (st->kind == STEP_RECV && rst->count != tbuf_bytes(&st->a)) {
        err = MPI_ERR_TRUNCATE; /* fewer bytes than the collective's arguments say */
    } else if (st->kind == STEP_RECV && st->packed != NULL) {
        mpi_type_unpack(st->a.type, st->packed, st->a.count, st->a.buf);
    }
    free(st->packed);
    st->packed = NULL;
    return err;
}

static int step_start(mpi_sched_t *s, step_t *st)
{
    switch (st->kind) {
    case STEP_SEND:
    case STEP_RECV:
        return step_post(s, st);
    case STEP_COPY:
        return step_copy(st);
    case STEP_REDUCE:
        return mpi_op_apply_held(st->op, st->t, st->dt, st->a.buf, st->b.buf, (int)st->a.count);
    case STEP_FENCE:
        break;
    }
    return MPI_SUCCESS;
}

static void sched_fail(mpi_sched_t *s, int err)
{
    if (err != MPI_SUCCESS && s->err == MPI_SUCCESS) {
        s->err = err;
    }
}

/* Tests the sends and receives of the current phase: true when none is outstanding. */
static bool phase_test(mpi_sched_t *s)
{
    bool idle = true;

    for (size_t i = s->first; i < s->next; i++) {
        step_t *st = &s->steps[i];
        rcmsg_msg_status_t rst = {0};
        rcmsg_status_t rs;
        int flag = 0;

        if (st->rc == RCMSG_REQUEST_NULL) {
            continue;
        }
        rs = rcmsg_test(&st->rc, &flag, &rst);
        if (!flag) {
            idle = false;
            continue;
        }
        st->rc = RCMSG_REQUEST_NULL;
        sched_fail(s, step_complete(st, rs, &rst));
    }
    return idle;
}

/* Advances s as far as it goes without waiting; true once complete. */
static bool sched_advance(mpi_sched_t *s)
{
    depth++;
    while (!s->done) {
        if (!phase_test(s)) {
            depth--;
            return false;
        }
        if (s->next == s->nsteps || s->err != MPI_SUCCESS) {
            s->done = true;
            break;
        }
        if (s->steps[s->next].kind == STEP_FENCE) {
            s->next++;
        }
        s->first = s->next;
        while (s->next < s->nsteps && s->steps[s->next].kind != STEP_FENCE &&
               s->err == MPI_SUCCESS) {
            sched_fail(s, step_start(s, &s->steps[s->next]));
            s->next++;
        }
    }
    depth--;
    return true;
}

/* takes s off the active list */
static void sched_retire(mpi_sched_t *s)
{
    for (mpi_sched_t **pp = &active; *pp != NULL; pp = &(*pp)->next_active) {
        if (*pp == s) {
            *pp = s->next_active;
            s->active = false;
            return;
        }
    }
}

bool mpi_sched_test(mpi_sched_t *s, int *err_p)
{
    if (!sched_advance(s)) {
        return false;
    }
    if (s->active) {
        sched_retire(s);
        sched_hook_sync();
    }
    *err_p = s->err;
    return true;
}

int mpi_sched_progress(void)
{
    mpi_sched_t **pp = &active;
    int n = 0;

    if (depth > 0) {
        return 0;
    }
    depth++;
    while (*pp != NULL) {
        mpi_sched_t *s = *pp;
        size_t next = s->next;

        if (sched_advance(s)) {
            *pp = s->next_active;
            s->active = false;
            n++;
        } else {
            pp = &s->next_active;
            n += s->next != next; /* a phase started */
        }
    }
    depth--;
    sched_hook_sync();
    return n;
}

/* ---- the request kind of a schedule (mpi_req.c's engine) ------------------------------------ */
static bool sched_req_test(mpi_req_t *req)
{
    int err = MPI_SUCCESS;

    if (!mpi_sched_test(req->priv, &err)) {
        return false;
    }
    mpi_status_set(&req->done, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, err, false);
    return true;
}

/* no rcmsg request to block on: poll the schedule (and the others with it) */
static void sched_req_wait(mpi_req_t *req)
{
    while (!sched_req_test(req)) {
        (void)mpi_sched_progress();
        mpi_mt_pause(); /* rcmsg's own waits yield too (RCMSG_YIELD): ranks may share cores */
    }
}

static int sched_req_cancel(mpi_req_t *req, const char *call)
{
    return call == NULL ? MPI_ERR_REQUEST
                        : mpi_err(req->comm, call, MPI_ERR_REQUEST,
                                  "a nonblocking collective cannot be cancelled (MPI: erroneous)");
}

static void sched_req_free(mpi_req_t *req)
{
    if (req->priv != NULL) {
        mpi_sched_free(req->priv);
        req->priv = NULL;
    }
}

static void sched_req_progress(void)
{
    (void)mpi_sched_progress();
}

static const mpi_req_ops_t sched_req_ops = {
    .name = "nonblocking collective",
    .collective = true,
    .test = sched_req_test,
    .wait = sched_req_wait,
    .cancel = sched_req_cancel,
    .free = sched_req_free,
    .progress = sched_req_progress,
};

int mpi_sched_start(mpi_sched_t *s, mpi_comm_t *comm, MPI_Request *request_p)
{
    int err;
    mpi_req_t *r;

    if (s->oom) {
        mpi_sched_free(s);
        return MPI_ERR_NO_MEM;
    }
    r = mpi_req_new(comm, &sched_req_ops, &err);
    if (r == NULL) {
        mpi_sched_free(s);
        return err;
    }
    r->priv = s;
    s->active = true;
    s->next_active = active;
    active = s;
    /* the first phase goes out now: a peer waiting for it needs nothing more from us */
    if (sched_advance(s)) {
        sched_retire(s);
    }
    err = sched_hook_sync();
    if (err != MPI_SUCCESS) {
        return mpi_err(comm, "a nonblocking collective", err,
                       "cannot register the schedules with rcmsg's progress");
    }
    *request_p = r->handle;
    return MPI_SUCCESS;
}
