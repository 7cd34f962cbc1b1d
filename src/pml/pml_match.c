/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI matching queues (see pml_match.h): per context, posted receives per source plus a
 * wildcard queue ordered by posting number, unexpected messages per source plus the
 * context's arrival queue.
 */
#include "config.h"

#include "pml_match.h"

#include "base/log.h"

#include <stdlib.h>
#include <string.h>

/* RCMSG_ANY_TAG matches the tags a user can send (>= 0), never an internal negative one. */
static bool tag_match(int want, int tag)
{
    return want == tag || (want == RCMSG_ANY_TAG && tag >= 0);
}

/* ---- contexts -------------------------------------------------------------------------- */

/* ctx_find's lookup of a context other than the last one. */
static __attribute__((noinline)) rcmsg_match_ctx_t *ctx_lookup(rcmsg_match_t *m, uint32_t ctx)
{
    rcmsg_hash_link_t *l = rcmsg_hash_find(&m->ctxs, ctx);

    if (l == NULL) {
        return NULL;
    }
    m->last = RCMSG_CONTAINER_OF(l, rcmsg_match_ctx_t, hash);
    return m->last;
}

/* The context's queues: the last one looked up inline (every message and receive asks; a
 * call cost 11 instructions a message: callgrind), else by the hash. */
static inline __attribute__((always_inline)) rcmsg_match_ctx_t *ctx_find(rcmsg_match_t *m,
                                                                         uint32_t ctx)
{
    if (m->last != NULL && m->last->ctx == ctx) {
        return m->last;
    }
    return ctx_lookup(m, ctx);
}

rcmsg_match_ctx_t *rcmsg_match_ctx_get(rcmsg_match_t *m, uint32_t ctx)
{
    rcmsg_match_ctx_t *c = ctx_find(m, ctx);

    if (c != NULL) {
        return c;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL || rcmsg_hash_insert(&m->ctxs, &c->hash, ctx) != RCMSG_OK) {
        rcmsg_error("out of memory for the matching queues of communicator context 0x%x", ctx);
        free(c);
        return NULL;
    }
    c->ctx = ctx;
    m->last = c;
    return c;
}

bool rcmsg_match_ctx_grow(rcmsg_match_t *m, rcmsg_match_ctx_t *c, int src)
{
    int n = c->nsrc ? c->nsrc : 8;
    rcmsg_queue_t *p, *u;

    while (n <= src) {
        n *= 2;
    }
    if (n > m->max_src) {
        n = m->max_src;
    }
    p = realloc(c->posted, sizeof(*p) * (size_t)n);
    if (p != NULL) {
        c->posted = p;
    }
    u = p != NULL ? realloc(c->unexp, sizeof(*u) * (size_t)n) : NULL;
    if (u == NULL) {
        rcmsg_error("out of memory for the per-source queues of communicator context 0x%x", c->ctx);
        return false;
    }
    c->unexp = u;
    memset(p + c->nsrc, 0, sizeof(*p) * (size_t)(n - c->nsrc));
    memset(u + c->nsrc, 0, sizeof(*u) * (size_t)(n - c->nsrc));
    c->nsrc = n;
    return true;
}

static void ctx_free(rcmsg_match_t *m, rcmsg_match_ctx_t *c)
{
    rcmsg_hash_remove(&m->ctxs, &c->hash);
    if (m->last == c) {
        m->last = NULL;
    }
    free(c->posted);
    free(c->unexp);
    free(c);
}

void rcmsg_match_init(rcmsg_match_t *m, int max_src)
{
    memset(m, 0, sizeof(*m));
    rcmsg_hash_init(&m->ctxs);
    m->max_src = max_src;
}

void rcmsg_match_fini(rcmsg_match_t *m, void (*drop)(rcmsg_match_msg_t *msg, void *arg), void *arg)
{
    for (rcmsg_hash_link_t *h = rcmsg_hash_first(&m->ctxs), *hnext; h != NULL; h = hnext) {
        rcmsg_match_ctx_t *c = RCMSG_CONTAINER_OF(h, rcmsg_match_ctx_t, hash);
        hnext = rcmsg_hash_next(&m->ctxs, h);
        for (rcmsg_queue_link_t *l = rcmsg_queue_first(&c->unexp_all), *next; l != NULL; l = next) {
            next = rcmsg_queue_next(l);
            if (drop != NULL) {
                drop(RCMSG_MATCH_ITEM(l, rcmsg_match_msg_t, by_ctx), arg);
            }
        }
        ctx_free(m, c);
    }
    rcmsg_hash_fini(&m->ctxs);
    memset(m, 0, sizeof(*m));
}

bool rcmsg_match_ctx_posted(rcmsg_match_t *m, uint32_t ctx)
{
    rcmsg_match_ctx_t *c = ctx_find(m, ctx);

    return c != NULL && c->nposted > 0;
}

void rcmsg_match_ctx_release(rcmsg_match_t *m, uint32_t ctx)
{
    rcmsg_match_ctx_t *c = ctx_find(m, ctx);

    if (c != NULL && c->nposted == 0 && c->nmsgs == 0) {
        ctx_free(m, c);
    }
}

/* ---- posted receives ------------------------------------------------------------------- */

rcmsg_status_t rcmsg_match_post_refused(const rcmsg_match_t *m, const rcmsg_match_recv_t *r)
{
    if (r->src != RCMSG_ANY_SOURCE && (r->src < 0 || r->src >= m->max_src)) {
        rcmsg_error("matching: a receive from rank %d, out of range (%d ranks)", r->src,
                    m->max_src);
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_ERR_NO_MEMORY;
}

static rcmsg_match_recv_t *posted_first(const rcmsg_queue_t *q, int tag)
{
    for (rcmsg_queue_link_t *l = rcmsg_queue_first(q); l != NULL; l = rcmsg_queue_next(l)) {
        rcmsg_match_recv_t *r = RCMSG_MATCH_ITEM(l, rcmsg_match_recv_t, link);
        if (tag_match(r->tag, tag)) {
            return r;
        }
    }
    return NULL;
}

static void posted_unlink(rcmsg_match_t *m, rcmsg_match_ctx_t *c, rcmsg_match_recv_t *r)
{
    rcmsg_queue_remove(r->src == RCMSG_ANY_SOURCE ? &c->posted_any : &c->posted[r->src], &r->link);
    r->posted = false;
    c->nposted--;
    m->nposted--;
}

rcmsg_match_recv_t *rcmsg_match_take_recv(rcmsg_match_t *m, uint32_t ctx, int src, int tag)
{
    rcmsg_match_ctx_t *c = ctx_find(m, ctx);
    rcmsg_match_recv_t *named = NULL, *any;

    if (c == NULL || c->nposted == 0) {
        return NULL;
    }
    if (src >= 0 && src < c->nsrc) {
        named = posted_first(&c->posted[src], tag);
    }
    any = posted_first(&c->posted_any, tag);
    if (any != NULL && (named == NULL || any->order < named->order)) {
        named = any;
    }
    if (named != NULL) {
        posted_unlink(m, c, named);
    }
    return named;
}

bool rcmsg_match_cancel(rcmsg_match_t *m, rcmsg_match_recv_t *r)
{
    rcmsg_match_ctx_t *c;

    if (!r->posted || (c = ctx_find(m, r->ctx)) == NULL) {
        return false;
    }
    posted_unlink(m, c, r);
    return true;
}

static void recv_queue_each(rcmsg_queue_t *q, void (*fn)(rcmsg_match_recv_t *r, void *arg),
                            void *arg)
{
    for (rcmsg_queue_link_t *l = rcmsg_queue_first(q), *next; l != NULL; l = next) {
        next = rcmsg_queue_next(l);
        fn(RCMSG_MATCH_ITEM(l, rcmsg_match_recv_t, link), arg);
    }
}

void rcmsg_match_recv_each(rcmsg_match_t *m, void (*fn)(rcmsg_match_recv_t *r, void *arg),
                           void *arg)
{
    for (rcmsg_hash_link_t *h = rcmsg_hash_first(&m->ctxs); h != NULL;
         h = rcmsg_hash_next(&m->ctxs, h)) {
        rcmsg_match_ctx_t *c = RCMSG_CONTAINER_OF(h, rcmsg_match_ctx_t, hash);
        if (c->nposted == 0) {
            continue;
        }
        for (int s = 0; s < c->nsrc; s++) {
            recv_queue_each(&c->posted[s], fn, arg);
        }
        recv_queue_each(&c->posted_any, fn, arg);
    }
}

/* ---- unexpected messages --------------------------------------------------------------- */

rcmsg_status_t rcmsg_match_push(rcmsg_match_t *m, rcmsg_match_msg_t *msg)
{
    rcmsg_match_ctx_t *c = rcmsg_match_ctx_get(m, msg->ctx);

    if (c == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    msg->indexed = msg->src >= 0 && msg->src < m->max_src;
    if (msg->indexed && !rcmsg_match_ctx_fits(m, c, msg->src)) {
        return RCMSG_ERR_NO_MEMORY;
    }
    if (msg->indexed) {
        rcmsg_queue_push_tail(&c->unexp[msg->src], &msg->by_src);
    }
    rcmsg_queue_push_tail(&c->unexp_all, &msg->by_ctx);
    c->nmsgs++;
    m->nmsgs++;
    return RCMSG_OK;
}

static void msg_unlink(rcmsg_match_t *m, rcmsg_match_ctx_t *c, rcmsg_match_msg_t *msg)
{
    if (msg->indexed) {
        rcmsg_queue_remove(&c->unexp[msg->src], &msg->by_src);
    }
    rcmsg_queue_remove(&c->unexp_all, &msg->by_ctx);
    c->nmsgs--;
    m->nmsgs--;
}

void rcmsg_match_remove(rcmsg_match_t *m, rcmsg_match_msg_t *msg)
{
    rcmsg_match_ctx_t *c = ctx_find(m, msg->ctx);

    if (c != NULL) {
        msg_unlink(m, c, msg);
    }
}

rcmsg_match_msg_t *rcmsg_match_take_msg(rcmsg_match_t *m, uint32_t ctx, int src,
                                        bool (*is)(const rcmsg_match_msg_t *msg, void *arg),
                                        void *arg)
{
    rcmsg_match_ctx_t *c = ctx_find(m, ctx);
    bool indexed = src >= 0 && src < m->max_src;
    const rcmsg_queue_t *q;

    if (c == NULL || c->nmsgs == 0 || (indexed && src >= c->nsrc)) {
        return NULL;
    }
    /* a source out of range sits on the context's queue only (see pml_match.h) */
    q = indexed ? &c->unexp[src] : &c->unexp_all;
    for (rcmsg_queue_link_t *l = rcmsg_queue_first(q); l != NULL; l = rcmsg_queue_next(l)) {
        rcmsg_match_msg_t *msg = indexed ? RCMSG_MATCH_ITEM(l, rcmsg_match_msg_t, by_src)
                                         : RCMSG_MATCH_ITEM(l, rcmsg_match_msg_t, by_ctx);
        if (msg->src == src && is(msg, arg)) {
            msg_unlink(m, c, msg);
            return msg;
        }
    }
    return NULL;
}

rcmsg_match_msg_t *rcmsg_match_find(rcmsg_match_t *m, uint32_t ctx, int src, int tag, bool take)
{
    rcmsg_match_ctx_t *c = ctx_find(m, ctx);
    rcmsg_match_msg_t *found = NULL;

    if (c == NULL || c->nmsgs == 0) {
        return NULL;
    }
    if (src == RCMSG_ANY_SOURCE) {
        for (rcmsg_queue_link_t *l = rcmsg_queue_first(&c->unexp_all); l != NULL && found == NULL;
             l = rcmsg_queue_next(l)) {
            rcmsg_match_msg_t *msg = RCMSG_MATCH_ITEM(l, rcmsg_match_msg_t, by_ctx);
            found = tag_match(tag, msg->tag) ? msg : NULL;
        }
    } else if (src >= 0 && src < c->nsrc) {
        for (rcmsg_queue_link_t *l = rcmsg_queue_first(&c->unexp[src]); l != NULL && found == NULL;
             l = rcmsg_queue_next(l)) {
            rcmsg_match_msg_t *msg = RCMSG_MATCH_ITEM(l, rcmsg_match_msg_t, by_src);
            found = tag_match(tag, msg->tag) ? msg : NULL;
        }
    }
    if (found != NULL && take) {
        msg_unlink(m, c, found);
    }
    return found;
}

void rcmsg_match_msg_each(rcmsg_match_t *m, uint32_t ctx,
                          void (*fn)(rcmsg_match_msg_t *msg, void *arg), void *arg)
{
    rcmsg_match_ctx_t *c = ctx_find(m, ctx);

    if (c == NULL) {
        return;
    }
    for (rcmsg_queue_link_t *l = rcmsg_queue_first(&c->unexp_all), *next; l != NULL; l = next) {
        next = rcmsg_queue_next(l);
        fn(RCMSG_MATCH_ITEM(l, rcmsg_match_msg_t, by_ctx), arg);
    }
}
