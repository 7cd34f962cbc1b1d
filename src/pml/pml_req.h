/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests (pml_req.c): allocation in chunks, completion; pml_wait.c waits for them.
 */
#ifndef RCMSG_PML_REQ_H
#define RCMSG_PML_REQ_H

#include "pml_check.h"

#include "base/compiler.h"
#include "base/hash.h"

/* A chunk of requests is one block of 1 << PML_CHUNK_SHIFT bytes at an address aligned to its
 * size: PML_REQ_CHUNK requests, then this tail. So the block of any address is the address
 * >> PML_CHUNK_SHIFT, looked up in pml_reqs.chunk_map (O(1): a handle is checked without a
 * walk of the chunks, and without following a pointer that may be no request). */
typedef struct {
    rcmsg_hash_link_t link; /* in pml_reqs.chunk_map, keyed by the block's address >> shift */
} pml_chunk_tail_t;
#define PML_CHUNK_BYTES (PML_REQ_CHUNK * sizeof(struct rcmsg_request) + sizeof(pml_chunk_tail_t))
#define PML_CHUNK_SHIFT                                                                            \
    (PML_CHUNK_BYTES <= (1u << 16)   ? 16                                                          \
     : PML_CHUNK_BYTES <= (1u << 17) ? 17                                                          \
     : PML_CHUNK_BYTES <= (1u << 18) ? 18                                                          \
                                     : 19)
RCMSG_STATIC_ASSERT(PML_CHUNK_BYTES <= (1u << 19), "a chunk of requests fits its block");

typedef struct {
    rcmsg_queue_t free_reqs; /* FIFO (link): a stale handle stays stale longest */
    void **req_chunks;
    int nreq_chunks;
    long live_reqs;
    rcmsg_hash_t chunk_map; /* the chunks' blocks (pml_chunk_tail_t), by address >> shift */
} pml_reqs_t;

extern pml_reqs_t pml_reqs;

/* Releases the requests' memory (fini). */
void pml_reqs_fini(void);
rcmsg_request_t pml_req_grow(void);
rcmsg_request_t pml_req_at(uint32_t index);

/* Whether p is the address of a request of the chunks (in use or free), found in O(1) without
 * reading *p: a handle that is no request at all is told apart from one that is. */
static inline bool pml_req_slot(const void *p)
{
    uintptr_t a = (uintptr_t)p, off = a & (((uintptr_t)1 << PML_CHUNK_SHIFT) - 1);

    return off < PML_REQ_CHUNK * sizeof(struct rcmsg_request) &&
           off % sizeof(struct rcmsg_request) == 0 &&
           rcmsg_hash_find(&pml_reqs.chunk_map, a >> PML_CHUNK_SHIFT) != NULL;
}

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
    rcmsg_zero_fixed(r, offsetof(struct rcmsg_request, rndv_link)); /* (no rep stos) */
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
