/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI matching queues, alone: posted receives and unexpected messages, with no transport and
 * no wireup behind them (unit-tested by test/unit/check_match.c).
 *
 * Per communicator context (base/hash.h), every queue (base/queue.h) keeps its order:
 *   posted receives:      one queue per named source, one wildcard queue (ANY_SOURCE);
 *                         each receive carries a global posting number, so that a message
 *                         takes the EARLIEST posted receive among its source's queue and the
 *                         wildcard one (MPI order);
 *   unexpected messages:  one queue per source and one of the whole context, both in arrival
 *                         order: a named receive looks at its source's messages only, an
 *                         ANY_SOURCE one at the context's.
 * Per-source arrays grow on demand up to max_src (the job size). A message whose source is
 * out of that range (only possible for a context this rank does not know yet, where the
 * sender is not checked) sits on the context's queue only. A context with nothing queued
 * still exists until rcmsg_match_ctx_release. The owner embeds the items in its own structs
 * (container_of) and owns their memory.
 */
#ifndef RCMSG_PML_MATCH_H
#define RCMSG_PML_MATCH_H

#include "base/hash.h"
#include "base/queue.h"

#include <rcmsg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A posted receive (src: a rank or RCMSG_ANY_SOURCE; tag: a tag or RCMSG_ANY_TAG, which
 * matches every tag >= 0: negative ones are internal). */
typedef struct {
    rcmsg_queue_link_t link;
    uint64_t order; /* posting number */
    uint32_t ctx;
    int src, tag;
    bool posted; /* in a queue */
} rcmsg_match_recv_t;

/* An unexpected message (src and tag as the sender named them). */
typedef struct {
    rcmsg_queue_link_t by_src, by_ctx;
    uint32_t ctx;
    int src, tag;
    bool indexed; /* in its source's queue (src within max_src) */
} rcmsg_match_msg_t;

/* One context's queues. In this header for the inline fast paths below; the fields are
 * pml_match.c's alone. */
typedef struct rcmsg_match_ctx {
    rcmsg_hash_link_t hash; /* in rcmsg_match_t.ctxs, keyed by ctx */
    uint32_t ctx;
    int nsrc;                 /* length of the two per-source arrays */
    rcmsg_queue_t *posted;    /* [nsrc]: receives naming that source */
    rcmsg_queue_t *unexp;     /* [nsrc]: messages from that source */
    rcmsg_queue_t posted_any; /* ANY_SOURCE receives */
    rcmsg_queue_t unexp_all;  /* every message of the context */
    long nposted, nmsgs;
} rcmsg_match_ctx_t;

typedef struct {
    rcmsg_hash_t ctxs;       /* rcmsg_match_ctx_t by context */
    rcmsg_match_ctx_t *last; /* the last context looked up */
    int max_src;
    uint64_t next_order;
    long nposted, nmsgs;
} rcmsg_match_t;

/* The struct holding a queue item (the owner's request or message). */
#define RCMSG_MATCH_ITEM(ptr, type, member) RCMSG_CONTAINER_OF(ptr, type, member)

void rcmsg_match_init(rcmsg_match_t *m, int max_src);
/* Releases every context; drop (may be NULL) sees each unexpected message still queued. */
void rcmsg_match_fini(rcmsg_match_t *m, void (*drop)(rcmsg_match_msg_t *msg, void *arg), void *arg);

/* rcmsg_match_post(m, r) (inline, below) queues a receive (fields ctx, src, tag set);
 * NO_MEMORY, or INVALID_PARAM for a source out of range. */
/* The earliest posted receive matching a message, unlinked; or NULL. */
rcmsg_match_recv_t *rcmsg_match_take_recv(rcmsg_match_t *m, uint32_t ctx, int src, int tag);
/* Unlinks a posted receive; false when it is not posted (matched already). */
bool rcmsg_match_cancel(rcmsg_match_t *m, rcmsg_match_recv_t *r);
/* Calls fn on every posted receive (any order); fn may cancel the one it is given. */
void rcmsg_match_recv_each(rcmsg_match_t *m, void (*fn)(rcmsg_match_recv_t *r, void *arg),
                           void *arg);

/* Queues an unexpected message (fields ctx, src, tag set); NO_MEMORY. */
rcmsg_status_t rcmsg_match_push(rcmsg_match_t *m, rcmsg_match_msg_t *msg);
/* The earliest-arrived message matching a receive (probe); unlinked when take is true. */
rcmsg_match_msg_t *rcmsg_match_find(rcmsg_match_t *m, uint32_t ctx, int src, int tag, bool take);
void rcmsg_match_remove(rcmsg_match_t *m, rcmsg_match_msg_t *msg);
/* The earliest-arrived message of context ctx from src (as its sender named it) for which
 * is(msg, arg) is true, unlinked; or NULL. Tag and order of the others do not matter: this is
 * a sender taking back one message of its own (a cancelled send), not a receive. */
rcmsg_match_msg_t *rcmsg_match_take_msg(rcmsg_match_t *m, uint32_t ctx, int src,
                                        bool (*is)(const rcmsg_match_msg_t *msg, void *arg),
                                        void *arg);
/* Calls fn on every unexpected message of a context in arrival order; fn may remove the one
 * it is given (and only that one). */
void rcmsg_match_msg_each(rcmsg_match_t *m, uint32_t ctx,
                          void (*fn)(rcmsg_match_msg_t *msg, void *arg), void *arg);
/* Whether a receive is posted on a context. */
bool rcmsg_match_ctx_posted(rcmsg_match_t *m, uint32_t ctx);
/* Frees a context's queues when nothing is queued there (a freed communicator). */
void rcmsg_match_ctx_release(rcmsg_match_t *m, uint32_t ctx);

/* ---- inline fast paths (every receive posts) -------------------------------------------- */

/* The context's queues, created on first use; NULL without memory (logged). */
rcmsg_match_ctx_t *rcmsg_match_ctx_get(rcmsg_match_t *m, uint32_t ctx);
/* Grows c's per-source arrays to hold src (0 <= src < max_src); false without memory. */
bool rcmsg_match_ctx_grow(rcmsg_match_t *m, rcmsg_match_ctx_t *c, int src);
/* Why a post failed: a source out of range (logged), else no memory. */
rcmsg_status_t rcmsg_match_post_refused(const rcmsg_match_t *m, const rcmsg_match_recv_t *r);

static inline bool rcmsg_match_ctx_fits(rcmsg_match_t *m, rcmsg_match_ctx_t *c, int src)
{
    return src < c->nsrc || rcmsg_match_ctx_grow(m, c, src);
}

/* Queues a receive: see above. */
static inline rcmsg_status_t rcmsg_match_post(rcmsg_match_t *m, rcmsg_match_recv_t *r)
{
    bool any = r->src == RCMSG_ANY_SOURCE;
    rcmsg_match_ctx_t *c;

    if (!any && (r->src < 0 || r->src >= m->max_src)) {
        return rcmsg_match_post_refused(m, r);
    }
    c = m->last != NULL && m->last->ctx == r->ctx ? m->last : rcmsg_match_ctx_get(m, r->ctx);
    if (c == NULL || (!any && !rcmsg_match_ctx_fits(m, c, r->src))) {
        return rcmsg_match_post_refused(m, r);
    }
    r->order = m->next_order++;
    r->posted = true;
    rcmsg_queue_push_tail(any ? &c->posted_any : &c->posted[r->src], &r->link);
    c->nposted++;
    m->nposted++;
    return RCMSG_OK;
}

#endif /* RCMSG_PML_MATCH_H */
