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

struct rcmsg_match_ctx {
    rcmsg_match_ctx_t *next; /* hash chain */
    uint32_t ctx;
    int nsrc;              /* length of the two per-source arrays */
    rcmsg_mq_t *posted;    /* [nsrc]: receives naming that source */
    rcmsg_mq_t *unexp;     /* [nsrc]: messages from that source */
    rcmsg_mq_t posted_any; /* ANY_SOURCE receives */
    rcmsg_mq_t unexp_all;  /* every message of the context */
    long nposted, nmsgs;
};

/* ---- intrusive queues ------------------------------------------------------------------ */

static void mq_append(rcmsg_mq_t *q, rcmsg_mq_link_t *l)
{
    l->next = NULL;
    l->prev = q->tail;
    if (q->tail != NULL) {
        q->tail->next = l;
    } else {
        q->head = l;
    }
    q->tail = l;
}

static void mq_unlink(rcmsg_mq_t *q, rcmsg_mq_link_t *l)
{
    if (l->prev != NULL) {
        l->prev->next = l->next;
    } else {
        q->head = l->next;
    }
    if (l->next != NULL) {
        l->next->prev = l->prev;
    } else {
        q->tail = l->prev;
    }
    l->prev = l->next = NULL;
}

static bool tag_match(int want, int tag)
{
    return want == RCMSG_ANY_TAG || want == tag;
}

/* ---- contexts -------------------------------------------------------------------------- */

static unsigned ctx_bucket(uint32_t ctx)
{
    return (unsigned)((ctx * 2654435761u) >> 26) % RCMSG_MATCH_BUCKETS;
}

static rcmsg_match_ctx_t *ctx_find(rcmsg_match_t *m, uint32_t ctx)
{
    if (m->last != NULL && m->last->ctx == ctx) {
        return m->last;
    }
    for (rcmsg_match_ctx_t *c = m->buckets[ctx_bucket(ctx)]; c != NULL; c = c->next) {
        if (c->ctx == ctx) {
            m->last = c;
            return c;
        }
    }
    return NULL;
}

static rcmsg_match_ctx_t *ctx_get(rcmsg_match_t *m, uint32_t ctx)
{
    rcmsg_match_ctx_t *c = ctx_find(m, ctx);
    unsigned b = ctx_bucket(ctx);

    if (c != NULL) {
        return c;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        rcmsg_error("out of memory for the matching queues of communicator context 0x%x", ctx);
        return NULL;
    }
    c->ctx = ctx;
    c->next = m->buckets[b];
    m->buckets[b] = c;
    m->last = c;
    return c;
}

/* Makes the per-source arrays long enough for source src (0 <= src < max_src). */
static bool ctx_grow(rcmsg_match_t *m, rcmsg_match_ctx_t *c, int src)
{
    int n = c->nsrc ? c->nsrc : 8;
    rcmsg_mq_t *p, *u;

    if (src < c->nsrc) {
        return true;
    }
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
    for (rcmsg_match_ctx_t **pp = &m->buckets[ctx_bucket(c->ctx)]; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
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
    m->max_src = max_src;
}

void rcmsg_match_fini(rcmsg_match_t *m, void (*drop)(rcmsg_match_msg_t *msg, void *arg), void *arg)
{
    for (int b = 0; b < RCMSG_MATCH_BUCKETS; b++) {
        while (m->buckets[b] != NULL) {
            rcmsg_match_ctx_t *c = m->buckets[b];
            for (rcmsg_mq_link_t *l = c->unexp_all.head, *next; l != NULL; l = next) {
                next = l->next;
                if (drop != NULL) {
                    drop(RCMSG_MATCH_ITEM(l, rcmsg_match_msg_t, by_ctx), arg);
                }
            }
            ctx_free(m, c);
        }
    }
    memset(m, 0, sizeof(*m));
}

void rcmsg_match_ctx_release(rcmsg_match_t *m, uint32_t ctx)
{
    rcmsg_match_ctx_t *c = ctx_find(m, ctx);

    if (c != NULL && c->nposted == 0 && c->nmsgs == 0) {
        ctx_free(m, c);
    }
}

/* ---- posted receives ------------------------------------------------------------------- */

rcmsg_status_t rcmsg_match_post(rcmsg_match_t *m, rcmsg_match_recv_t *r)
{
    rcmsg_match_ctx_t *c;

    if (r->src != RCMSG_ANY_SOURCE && (r->src < 0 || r->src >= m->max_src)) {
        rcmsg_error("matching: a receive from rank %d, out of range (%d ranks)", r->src,
                    m->max_src);
        return RCMSG_ERR_INVALID_PARAM;
    }
    c = ctx_get(m, r->ctx);
    if (c == NULL || (r->src != RCMSG_ANY_SOURCE && !ctx_grow(m, c, r->src))) {
        return RCMSG_ERR_NO_MEMORY;
    }
    r->order = m->next_order++;
    r->posted = true;
    mq_append(r->src == RCMSG_ANY_SOURCE ? &c->posted_any : &c->posted[r->src], &r->link);
    c->nposted++;
    m->nposted++;
    return RCMSG_OK;
}

static rcmsg_match_recv_t *posted_first(const rcmsg_mq_t *q, int tag)
{
    for (rcmsg_mq_link_t *l = q->head; l != NULL; l = l->next) {
        rcmsg_match_recv_t *r = RCMSG_MATCH_ITEM(l, rcmsg_match_recv_t, link);
        if (tag_match(r->tag, tag)) {
            return r;
        }
    }
    return NULL;
}

static void posted_unlink(rcmsg_match_t *m, rcmsg_match_ctx_t *c, rcmsg_match_recv_t *r)
{
    mq_unlink(r->src == RCMSG_ANY_SOURCE ? &c->posted_any : &c->posted[r->src], &r->link);
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

static void recv_queue_each(rcmsg_mq_t *q, void (*fn)(rcmsg_match_recv_t *r, void *arg), void *arg)
{
    for (rcmsg_mq_link_t *l = q->head, *next; l != NULL; l = next) {
        next = l->next;
        fn(RCMSG_MATCH_ITEM(l, rcmsg_match_recv_t, link), arg);
    }
}

void rcmsg_match_recv_each(rcmsg_match_t *m, void (*fn)(rcmsg_match_recv_t *r, void *arg),
                           void *arg)
{
    for (int b = 0; b < RCMSG_MATCH_BUCKETS; b++) {
        for (rcmsg_match_ctx_t *c = m->buckets[b]; c != NULL; c = c->next) {
            if (c->nposted == 0) {
                continue;
            }
            for (int s = 0; s < c->nsrc; s++) {
                recv_queue_each(&c->posted[s], fn, arg);
            }
            recv_queue_each(&c->posted_any, fn, arg);
        }
    }
}

/* ---- unexpected messages --------------------------------------------------------------- */

rcmsg_status_t rcmsg_match_push(rcmsg_match_t *m, rcmsg_match_msg_t *msg)
{
    rcmsg_match_ctx_t *c = ctx_get(m, msg->ctx);

    if (c == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    msg->indexed = msg->src >= 0 && msg->src < m->max_src;
    if (msg->indexed && !ctx_grow(m, c, msg->src)) {
        return RCMSG_ERR_NO_MEMORY;
    }
    if (msg->indexed) {
        mq_append(&c->unexp[msg->src], &msg->by_src);
    }
    mq_append(&c->unexp_all, &msg->by_ctx);
    c->nmsgs++;
    m->nmsgs++;
    return RCMSG_OK;
}

static void msg_unlink(rcmsg_match_t *m, rcmsg_match_ctx_t *c, rcmsg_match_msg_t *msg)
{
    if (msg->indexed) {
        mq_unlink(&c->unexp[msg->src], &msg->by_src);
    }
    mq_unlink(&c->unexp_all, &msg->by_ctx);
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

rcmsg_match_msg_t *rcmsg_match_find(rcmsg_match_t *m, uint32_t ctx, int src, int tag, bool take)
{
    rcmsg_match_ctx_t *c = ctx_find(m, ctx);
    rcmsg_match_msg_t *found = NULL;

    if (c == NULL || c->nmsgs == 0) {
        return NULL;
    }
    if (src == RCMSG_ANY_SOURCE) {
        for (rcmsg_mq_link_t *l = c->unexp_all.head; l != NULL && found == NULL; l = l->next) {
            rcmsg_match_msg_t *msg = RCMSG_MATCH_ITEM(l, rcmsg_match_msg_t, by_ctx);
            found = tag_match(tag, msg->tag) ? msg : NULL;
        }
    } else if (src >= 0 && src < c->nsrc) {
        for (rcmsg_mq_link_t *l = c->unexp[src].head; l != NULL && found == NULL; l = l->next) {
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
    for (rcmsg_mq_link_t *l = c->unexp_all.head, *next; l != NULL; l = next) {
        next = l->next;
        fn(RCMSG_MATCH_ITEM(l, rcmsg_match_msg_t, by_ctx), arg);
    }
}
