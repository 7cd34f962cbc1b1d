/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The send side: eager credits, the per-peer send queue (data in order) and control work
 * (FIN, CREDIT) that never waits behind data.
 */
#include "config.h"

#include "pml_internal.h"

#include <stdlib.h>
#include <string.h>

pml_send_t pml_snd;

rcmsg_status_t pml_send_init(void)
{
    pml_snd.peers = calloc((size_t)pml.size, sizeof(*pml_snd.peers));
    if (pml_snd.peers == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    return RCMSG_OK;
}

void pml_send_link(int peer)
{
    const rcmsg_btl_t *btl = pml.peers[peer].btl;
    int n = btl->caps.eager_credits > 0 ? btl->caps.eager_credits : pml.credits;

    pml_snd.peers[peer].credits = pml_snd.peers[peer].limit = n;
}

void pml_send_fini(void)
{
    for (int i = 0; pml_snd.peers != NULL && i < pml.size; i++) {
        free(pml_snd.peers[i].ctl);
    }
    free(pml_snd.peers);
    memset(&pml_snd, 0, sizeof(pml_snd));
}

/* Of the control messages queued, only those a peer waits for stay: FINs (its rendezvous
 * send) and CANCEL_ACKs (its cancel); credits and BREAKs are of no use any more (a peer told
 * a rank is lost after this one finalized may have exited: the send would wait for it). */
void pml_send_ctl_filter(void)
{
    for (int i = 0; i < pml.size; i++) {
        pml_send_peer_t *p = &pml_snd.peers[i];
        int n = 0;
        p->owed = 0;
        for (int k = 0; k < p->nctl; k++) {
            if (p->ctl[k].hdr.type == RCMSG_PML_FIN || p->ctl[k].hdr.type == RCMSG_PML_CANCEL_ACK) {
                p->ctl[n++] = p->ctl[k];
            }
        }
        p->nctl = n;
    }
}

/* The counters of a message put on the wire (total: header and payload bytes). */
static inline void xmit_count(const pml_peer_t *p, const rcmsg_pml_hdr_t *hdr, size_t total)
{
    switch ((rcmsg_pml_msg_t)hdr->type) {
    case RCMSG_PML_EAGER:
        if (total <= p->max_inline) {
            p->stat[RCMSG_STAT_msgs_sent_inline]++;
            p->stat[RCMSG_STAT_bytes_sent_inline] += hdr->len;
        } else {
            p->stat[RCMSG_STAT_msgs_sent_eager]++;
            p->stat[RCMSG_STAT_bytes_sent_eager] += hdr->len;
        }
        break;
    case RCMSG_PML_RTS:
        p->stat[RCMSG_STAT_msgs_sent_rndv]++;
        p->stat[RCMSG_STAT_bytes_sent_rndv] += hdr->len;
        break;
    case RCMSG_PML_FIN:
    case RCMSG_PML_CREDIT:
    case RCMSG_PML_BREAK:
    case RCMSG_PML_CANCEL:
    case RCMSG_PML_CANCEL_ACK:
    case RCMSG_PML_BYE:
    case RCMSG_PML_MSG_COUNT:
        p->stat[RCMSG_STAT_ctrl_sent]++;
        break;
    }
}

/* Puts one message on the wire to peer: sequence number and owed credits go in the header
 * (inlined into the eager send: a call less per message; pml_xmit for the others). */
static inline __attribute__((always_inline)) rcmsg_status_t
pml_xmit_inl(int peer, rcmsg_pml_hdr_t *hdr, size_t hdr_len, const void *data, size_t len)
{
    const pml_peer_t *p = &pml.peers[peer];
    pml_send_peer_t *q = &pml_snd.peers[peer];
    int give = q->owed > 65535 ? 65535 : q->owed;
    rcmsg_status_t s;

    if (pml_peer_failed(peer)) {
        return RCMSG_ERR_CONNECTION;
    }
    hdr->seq = q->seq;
    hdr->credits = (uint16_t)give;
    s = p->btl->ops->send(p->btl, peer, hdr, hdr_len, data, len);
    if (s == RCMSG_OK) {
        q->seq++;
        q->owed -= hdr->credits; /* (give) */
        xmit_count(p, hdr, hdr_len + len);
    }
    return s;
}

static rcmsg_status_t pml_xmit(int peer, rcmsg_pml_hdr_t *hdr, size_t hdr_len, const void *data,
                               size_t len)
{
    return pml_xmit_inl(peer, hdr, hdr_len, data, len);
}

/* Finalize after a loss: tells peer that this rank's sends are flushed (pml.h). */
rcmsg_status_t pml_bye_xmit(int peer)
{
    rcmsg_pml_hdr_t h = {.type = RCMSG_PML_BYE};

    return pml_xmit(peer, &h, sizeof(h), NULL, 0);
}

/* Puts an eager message on the wire to peer and takes its credit (the caller saw one). */
static inline __attribute__((always_inline)) rcmsg_status_t
eager_xmit(int peer, uint32_t ctx, int src, int tag, const void *buf, size_t len)
{
    rcmsg_pml_hdr_t h = {.type = RCMSG_PML_EAGER, .ctx = ctx, .src = src, .tag = tag, .len = len};
    rcmsg_status_t s = pml_xmit_inl(peer, &h, sizeof(h), buf, len);

    if (s == RCMSG_OK) {
        pml_snd.peers[peer].credits--;
    }
    return s;
}

/* A blocking send without a request (rcmsg_send): an eager message to a peer that has credit
 * and nothing queued goes out now, the transport copying it, as pml_send_start would send it.
 * NO_RESOURCE when it cannot (rendezvous, no credit, queue, transport full): the caller takes
 * the request path, which waits. */
rcmsg_status_t pml_send_now(int peer, uint32_t ctx, int src, int tag, const void *buf, size_t len)
{
    const pml_send_peer_t *q = &pml_snd.peers[peer];
    rcmsg_status_t s;

    if (len > pml.peers[peer].eager_limit || q->credits == 0 || !rcmsg_queue_empty(&q->sendq)) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    s = eager_xmit(peer, ctx, src, tag, buf, len);
    if (s != RCMSG_ERR_NO_RESOURCE) {
        pml.activity++; /* a send done, as a request's completion would count it */
    }
    return s;
}

/* Makes a send a rendezvous one: its buffer registered for remote reads (none when empty). */
rcmsg_status_t pml_rndv_prepare(rcmsg_request_t r)
{
    pml_req_rndv_begin(r);
    if (r->len == 0) {
        return RCMSG_OK;
    }
    return pml_mem_get(pml.peers[r->peer].btl, r, r->buf, r->len, true);
}

/* Tries to send the request now: OK when it went out (eager: complete), NO_RESOURCE when it
 * must wait (no credit, or the transport is full). */
rcmsg_status_t pml_send_start(rcmsg_request_t r)
{
    const pml_send_peer_t *q = &pml_snd.peers[r->peer];
    rcmsg_status_t s;

    if (!r->rndv && q->credits == 0) {
        /* No credit. The receiver's returned credits may already be on their way: wait in
         * the send queue for a few progress rounds. Past that, the receiver holds unmatched
         * eager messages of ours: send this one by rendezvous (an RTS needs no credit) so
         * that no payload piles up and a receive waiting for it can still be matched. */
        if (r->credit_rounds == 0) {
            rcmsg_stat_add(r->peer, RCMSG_STAT_credit_waits, 1);
        }
        if (r->credit_rounds++ < PML_CREDIT_ROUNDS) {
            pml_snd.credit_wait = true; /* work for progress: a wait must not sleep on it */
            return RCMSG_ERR_NO_RESOURCE;
        }
        rcmsg_stat_add(r->peer, RCMSG_STAT_rndv_fallbacks, 1);
        s = pml_rndv_prepare(r);
        if (s != RCMSG_OK) {
            pml_req_complete(r, s);
            return RCMSG_OK;
        }
    }
    r->seq = q->seq; /* its number on the wire, for a cancel (pml_xmit takes it) */
    if (!r->rndv) {
        s = eager_xmit(r->peer, r->ctx, r->my_rank, r->tag, r->buf, r->len);
        if (s == RCMSG_OK) {
            pml_req_complete(r, RCMSG_OK); /* the transport copied the data */
        }
    } else {
        rcmsg_pml_rts_t h = {.hdr = {.type = RCMSG_PML_RTS,
                                     .ctx = r->ctx,
                                     .src = r->my_rank,
                                     .tag = r->tag,
                                     .len = r->len},
                             .addr = (uintptr_t)r->buf,
                             .sreq = ((uint64_t)r->gen << 32) | r->index,
                             .rkey = r->mem != NULL ? r->mem->rkey : 0};
        s = pml_xmit(r->peer, &h.hdr, sizeof(h), NULL, 0);
        /* the request completes when the FIN comes back */
    }
    r->sent = s == RCMSG_OK;
    if (s != RCMSG_OK && s != RCMSG_ERR_NO_RESOURCE) {
        pml_req_complete(r, s);
        return RCMSG_OK; /* done, with an error */
    }
    return s;
}

void pml_sendq_push(int peer, rcmsg_request_t r)
{
    r->queued = true;
    rcmsg_queue_push_tail(&pml_snd.peers[peer].sendq, &r->link);
}

void pml_sendq_remove(int peer, rcmsg_request_t r)
{
    rcmsg_queue_remove(&pml_snd.peers[peer].sendq, &r->link);
    r->queued = false;
}

/* Control work of a peer (FINs, BREAKs, credits); returns the number of messages sent. */
static int peer_control(int peer)
{
    pml_send_peer_t *p = &pml_snd.peers[peer];
    int n = 0;

    while (p->nctl > 0) {
        rcmsg_pml_rts_t h = p->ctl[p->nctl - 1];
        if (pml_xmit(peer, &h.hdr, sizeof(h), NULL, 0) != RCMSG_OK) {
            return n;
        }
        p->nctl--;
        n++;
    }
    if (pml_credits_due(peer)) {
        rcmsg_pml_hdr_t h = {.type = RCMSG_PML_CREDIT};
        n += pml_xmit(peer, &h, sizeof(h), NULL, 0) == RCMSG_OK;
    }
    return n;
}

/* Sends what waits for peer; returns the number sent. Keeps the peer pending if work remains. */
int pml_peer_push(int peer)
{
    pml_send_peer_t *p = &pml_snd.peers[peer];
    int n = peer_control(peer);

    while (!rcmsg_queue_empty(&p->sendq)) {
        rcmsg_request_t r =
            RCMSG_CONTAINER_OF(rcmsg_queue_first(&p->sendq), struct rcmsg_request, link);
        if (pml_peer_failed(peer)) {
            pml_req_complete(r, RCMSG_ERR_CONNECTION);
        } else if (pml_send_start(r) != RCMSG_OK) {
            break;
        }
        pml_sendq_remove(peer, r);
        n++;
    }
    return n;
}

bool pml_peer_has_work(int peer)
{
    return pml_send_busy(peer) || pml_credits_due(peer);
}

rcmsg_status_t pml_queue_ctl(int peer, const rcmsg_pml_rts_t *h)
{
    pml_send_peer_t *p = &pml_snd.peers[peer];

    if (pml_peer_failed(peer)) {
        return RCMSG_ERR_CONNECTION; /* nobody waits for it */
    }
    if (p->nctl == p->capctl) {
        int cap = p->capctl ? p->capctl * 2 : 16;
        rcmsg_pml_rts_t *c = realloc(p->ctl, sizeof(*c) * (size_t)cap);
        if (c == NULL) {
            rcmsg_error("out of memory for a %s to rank %d", rcmsg_pml_msg_name(h->hdr.type), peer);
            return RCMSG_ERR_NO_MEMORY;
        }
        p->ctl = c;
        p->capctl = cap;
    }
    p->ctl[p->nctl++] = *h;
    pml_peer_mark_pending(peer);
    return RCMSG_OK;
}

/* Queues a FIN for peer's rendezvous send sreq, reporting status (RCMSG_OK: data taken). */
rcmsg_status_t pml_queue_fin(int peer, uint64_t sreq, rcmsg_status_t status)
{
    rcmsg_pml_rts_t h = {.hdr = {.type = RCMSG_PML_FIN}, .sreq = sreq, .status = status};

    return pml_queue_ctl(peer, &h);
}
