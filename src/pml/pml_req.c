/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests: allocation in chunks, completion, the requests that a layer above owns (its
 * schedules). The calls that wait for or test them are above liveness (pml_wait.c).
 */
#include "config.h"

#include "pml_internal.h"

#include "progress/progress.h"

#include <stdlib.h>
#include <string.h>

pml_reqs_t pml_reqs;

void pml_reqs_fini(void)
{
    rcmsg_hash_fini(&pml_reqs.chunk_map);
    for (int i = 0; i < pml_reqs.nreq_chunks; i++) {
        free(pml_reqs.req_chunks[i]);
    }
    free(pml_reqs.req_chunks);
    memset(&pml_reqs, 0, sizeof(pml_reqs));
}

/* Adds a chunk of requests at the tail of the free list; the first of them, or NULL without
 * memory. */
rcmsg_request_t pml_req_grow(void)
{
    size_t bytes = (size_t)1 << PML_CHUNK_SHIFT;
    struct rcmsg_request *chunk = aligned_alloc(bytes, bytes); /* (pml_req.h: one block) */
    pml_chunk_tail_t *tail = (pml_chunk_tail_t *)(void *)(chunk + PML_REQ_CHUNK);
    void **chunks =
        realloc(pml_reqs.req_chunks, sizeof(void *) * (size_t)(pml_reqs.nreq_chunks + 1));

    if (chunks != NULL) {
        pml_reqs.req_chunks = chunks;
    }
    if (chunk == NULL || chunks == NULL ||
        rcmsg_hash_insert(&pml_reqs.chunk_map, &tail->link, (uintptr_t)chunk >> PML_CHUNK_SHIFT) !=
            RCMSG_OK) {
        free(chunk);
        return NULL;
    }
    memset(chunk, 0, PML_REQ_CHUNK * sizeof(*chunk));
    pml_reqs.req_chunks[pml_reqs.nreq_chunks] = chunk;
    for (int i = 0; i < PML_REQ_CHUNK; i++) {
        chunk[i].index = (uint32_t)(pml_reqs.nreq_chunks * PML_REQ_CHUNK + i);
        rcmsg_queue_push_tail(&pml_reqs.free_reqs, &chunk[i].link);
    }
    pml_reqs.nreq_chunks++;
    return chunk;
}

/* The request at an index of the chunks (index < nreq_chunks * PML_REQ_CHUNK). */
rcmsg_request_t pml_req_at(uint32_t index)
{
    return &(
        (struct rcmsg_request *)pml_reqs.req_chunks[index / PML_REQ_CHUNK])[index % PML_REQ_CHUNK];
}

rcmsg_status_t rcmsg_pml_req_owned(rcmsg_request_t *req_p)
{
    rcmsg_request_t r = pml_req_alloc(PML_REQ_OWNED);

    if (r == NULL) {
        rcmsg_error("out of memory for a request");
        return RCMSG_ERR_NO_MEMORY;
    }
    *req_p = r;
    return RCMSG_OK;
}

void rcmsg_pml_req_owned_complete(rcmsg_request_t r, rcmsg_status_t status)
{
    pml_req_complete(r, status);
}

bool rcmsg_pml_req_done(rcmsg_request_t r)
{
    return r->complete;
}
