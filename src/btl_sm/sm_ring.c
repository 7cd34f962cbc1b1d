/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_sm: the rings. A sender puts a cell into its ring in the receiver's segment; the
 * receiver's progress() takes the cells of each ring in order (layout: sm_internal.h).
 */
#include "config.h"

#include "sm_internal.h"

#include "base/log.h"

#include <string.h>

/* The sender asks for the lines of the next SM_PREFETCH_CELLS free cells for writing, each
 * once, ahead of its writes: their transfers from the receiver's cache (it read them last lap)
 * overlap instead of stalling each store in turn (bibw of 8 B: +22%, the message rate +25%).
 * Only cells the receiver gave back (by head_cache), so that none is taken from under its
 * reads. prefetchw by hand: GCC makes __builtin_prefetch(p, 1) a read prefetch unless -march
 * has PRFCHW, and x86 CPUs without it run prefetchw as a NOP. */
static inline void sm_prefetch_tx(const sm_btl_t *sm, sm_peer_t *p, sm_ring_t *ring, uint64_t tail)
{
    uint64_t from = p->tx_ahead > tail ? p->tx_ahead : tail + 1;
    uint64_t to = tail + SM_PREFETCH_CELLS + 1, free_to = p->head_cache + sm->cfg.ncells;

    if (to > free_to) {
        to = free_to;
    }
    for (uint64_t i = from; i < to; i++) {
#if defined(__x86_64__)
        __asm__ volatile("prefetchw %0" : : "m"(*(const char *)sm_cell(sm, ring, i)));
#else
        __builtin_prefetch(sm_cell(sm, ring, i), 1, 3);
#endif
    }
    if (to > from) {
        p->tx_ahead = to;
    }
}

rcmsg_status_t sm_put(sm_btl_t *sm, sm_peer_t *p, uint32_t type, const void *a, size_t alen,
                      const void *b, size_t blen)
{
    sm_ring_t *ring = sm_ring(sm, p->seg, sm->job.local_rank);
    uint64_t tail = p->tail, limit = sm->cfg.ncells - (type == SM_CELL_MSG ? SM_CTL_CELLS : 0);
    sm_cell_t *cell;

    /* the last SM_CTL_CELLS cells are kept for GETREQ/GETDONE (at most one of each is ever
     * outstanding per direction), so control never waits behind messages: no deadlock */
    if (tail - p->head_cache >= limit) {
        p->head_cache = atomic_load_explicit(&ring->head, memory_order_acquire);
        if (tail - p->head_cache >= limit) {
            p->full = true;
            return RCMSG_ERR_NO_RESOURCE;
        }
    }
    cell = sm_cell(sm, ring, tail);
    sm_prefetch_tx(sm, p, ring, tail);
    memcpy(cell->data, a, alen);
    if (blen > 0) {
        memcpy(cell->data + alen, b, blen);
    }
    atomic_store_explicit(&cell->len, (uint32_t)(alen + blen), memory_order_relaxed);
    atomic_store_explicit(&cell->type, type, memory_order_relaxed);
    atomic_store_explicit(&cell->seq, tail + 1, memory_order_release);
    p->tail = tail + 1;
    if (p->sleeps) {
        sm_wake(p, &((sm_seg_hdr_t *)p->seg)->sleeping);
    }
    return RCMSG_OK;
}

rcmsg_status_t sm_send(rcmsg_btl_t *btl, int peer, const void *hdr, size_t hdr_len,
                       const void *payload, size_t len)
{
    sm_btl_t *sm = sm_btl_of(btl);
    sm_peer_t *p;

    if (peer < 0 || peer >= sm->job.size || hdr_len + len > sm->cfg.cell_size) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    p = &sm->peers[peer];
    if (__builtin_expect(p->seg == NULL || p->failed, 0)) {
        return p->failed ? RCMSG_ERR_CONNECTION : RCMSG_ERR_STATE;
    }
    return sm_put(sm, p, SM_CELL_MSG, hdr, hdr_len, payload, len);
}

/* One published cell from peer p. Its type and length are read once, into local memory,
 * before they are checked and used: the peer can still write the shared cell. Returns recv_cb's
 * answer: whether to take no more cells in this progress call. */
static bool sm_cell_handle(sm_btl_t *sm, sm_peer_t *p, sm_cell_t *cell)
{
    uint32_t type = atomic_load_explicit(&cell->type, memory_order_relaxed);
    uint32_t len = atomic_load_explicit(&cell->len, memory_order_relaxed);
    sm_getreq_t req;

    if (type == SM_CELL_MSG && len <= sm->cfg.cell_size) {
        return sm->super.recv_cb(sm->super.cb_arg, p->world, cell->data, len);
    }
    if ((type == SM_CELL_GETREQ || type == SM_CELL_GETDONE) && len == sizeof(req)) {
        memcpy(&req, cell->data, sizeof(req));
        if (req.len > sm->cfg.staging) {
            rcmsg_error("sm: dropped a copy %s of %llu bytes from peer %d (the staging area holds "
                        "%zu)",
                        type == SM_CELL_GETREQ ? "request" : "reply", (unsigned long long)req.len,
                        p->world, sm->cfg.staging);
        } else if (type == SM_CELL_GETREQ) {
            sm_on_getreq(sm, p, &req);
        } else {
            sm_on_getdone(sm, p, &req);
        }
        return false;
    }
    rcmsg_error("sm: dropped a malformed cell from peer %d (type %u, %u bytes)", p->world, type,
                len);
    return false;
}

/* A small message was found published at head: the lines of the next SM_PREFETCH_CELLS cells
 * are asked for now, each once, so that their misses (lines the sender wrote, in its cache)
 * overlap instead of coming one after the other. A window of 8-byte messages took 125 cycles
 * per cell here, most of it that miss, 45 with 16 cells ahead (bibw of 8 B: +20%). Not after a
 * message of more than two lines (SM_PREFETCH_LEN): with 512 B the message rate and bw lost
 * 13-33% (cells read ahead before the sender wrote them cost it a transfer more each). The
 * length read here only steers the prefetch: sm_cell_handle reads it again, once, for use. */
static inline void sm_prefetch(const sm_btl_t *sm, sm_peer_t *p, sm_ring_t *ring, sm_cell_t *cell,
                               uint64_t head)
{
    uint64_t from = p->rx_ahead > head ? p->rx_ahead : head + 1;

    if (atomic_load_explicit(&cell->len, memory_order_relaxed) > SM_PREFETCH_LEN) {
        return;
    }
    p->rx_ahead = head + SM_PREFETCH_CELLS + 1;
    for (uint64_t i = from; i < p->rx_ahead; i++) {
        __builtin_prefetch(sm_cell(sm, ring, i), 0, 3);
    }
}

int sm_ring_poll(sm_btl_t *sm, int s)
{
    int world = sm->local_to_world[s];
    sm_ring_t *ring = sm_ring(sm, sm->seg, s);
    uint64_t head;
    sm_peer_t *p;
    int n = 0;

    if (world < 0) {
        return 0;
    }
    p = &sm->peers[world];
    if (p->failed) {
        return 0;
    }
    if (p->owe_done) {
        sm_getreq_t done = {.len = p->done_len, .token = p->done_token};
        p->owe_done = sm_put(sm, p, SM_CELL_GETDONE, &done, sizeof(done), NULL, 0) != RCMSG_OK;
    }
    if (p->staged_req_pending && p->staged != NULL) {
        sm_staged_request(sm, p);
    }
    head = atomic_load_explicit(&ring->head, memory_order_relaxed);
    for (unsigned k = 0; k < sm->cfg.batch; k++, head++) {
        sm_cell_t *cell = sm_cell(sm, ring, head);
        bool stop;

        if (atomic_load_explicit(&cell->seq, memory_order_acquire) != head + 1) {
            break; /* not written yet */
        }
        sm_prefetch(sm, p, ring, cell, head);
        stop = sm_cell_handle(sm, p, cell);
        n++;
        if (__builtin_expect(stop, 0)) {
            sm->stop = true; /* the waiter's request is done: the rest wait for the next call */
            head++;
            break;
        }
    }
    if (n == 0) {
        return 0;
    }
    /* The cells go back once per call, not once per cell: head's line is what a sender whose
     * ring is full reads, and a store per cell moved that line between the two cores for every
     * message while the sender waited for room. */
    atomic_store_explicit(&ring->head, head, memory_order_release);
    if (p->sleeps) {
        sm_wake(p, &ring->sender_sleeping); /* it may wait for room */
    }
    return n;
}
