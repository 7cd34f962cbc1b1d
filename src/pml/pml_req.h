/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests (pml_req.c): allocation in chunks, completion; pml_wait.c waits for them.
 */
#ifndef RCMSG_PML_REQ_H
#define RCMSG_PML_REQ_H

#include "pml_check.h"

typedef struct {
    rcmsg_queue_t free_reqs; /* FIFO (link): a stale handle stays stale longest */
    void **req_chunks;
    int nreq_chunks;
    long live_reqs;
} pml_reqs_t;

extern pml_reqs_t pml_reqs;

/* Releases the requests' memory (fini). */
void pml_reqs_fini(void);
rcmsg_request_t pml_req_grow(void);
rcmsg_request_t pml_req_at(uint32_t index);

/* A request off the free list (FIFO: a stale handle stays stale longest), its eager part
 * cleared; NULL without memory. Inline: every message takes one. */
static inline rcmsg_request_t pml_req_alloc(pml_req_kind_t kind)
{
    rcmsg_queue_link_t *l = rcmsg_queue_pop_head(&pml_reqs.free_reqs);
    rcmsg_request_t r;
    uint32_t index, gen;

    if (l == NULL) {
        if (pml_req_grow() == NULL) {
            return NULL;
        }
        l = rcmsg_queue_pop_head(&pml_reqs.free_reqs);
    }
    r = RCMSG_CONTAINER_OF(l, struct rcmsg_request, link);
    index = r->index;
    gen = r->gen + 1;
    memset(r, 0, offsetof(struct rcmsg_request, rndv_link));
    r->index = index;
    r->gen = gen;
    r->kind = kind;
    r->in_use = true;
    pml_reqs.live_reqs++;
    pml.activity++; /* a new request: a stall is counted from here */
    return r;
}

/* r is done with error (the first error kept): its registration released; complete unless a
 * cancel's answer is awaited (pml_cancel.c). Inline: every message completes one. */
static inline void pml_req_complete(rcmsg_request_t r, rcmsg_status_t error)
{
    if (r->reg != NULL) {
        rcmsg_rcache_put(r->reg);
        r->reg = NULL;
    }
    if (r->st.error == RCMSG_OK) {
        r->st.error = error;
    }
    r->finished = true;
    r->complete = !r->cancel_wait;
    pml.activity++;
}

/* Back to the free list (once: a request already free is left alone). */
static inline void pml_req_free(rcmsg_request_t r)
{
    if (!r->in_use) {
        return;
    }
    r->in_use = false;
    rcmsg_queue_push_tail(&pml_reqs.free_reqs, &r->link);
    pml_reqs.live_reqs--;
}

/* Makes r a rendezvous: its rendezvous fields cleared (pml_req_alloc leaves them). */
static inline void pml_req_rndv_begin(rcmsg_request_t r)
{
    memset(&r->rndv_link, 0, sizeof(*r) - offsetof(struct rcmsg_request, rndv_link));
    r->rndv = true;
}

#endif /* RCMSG_PML_REQ_H */
