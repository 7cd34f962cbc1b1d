/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a peer sends, as the transports hand it over (their recv_cb): the header checked
 * (framing, sequence number, credits), then each message type to its handler: EAGER and RTS
 * matched, kept or refused (pml_recv.c), FIN, BREAK (pml_break.c), CANCEL and CANCEL_ACK
 * (pml_cancel.c), BYE.
 */
#include "config.h"

#include "pml_internal.h"

#include "base/status.h"

#include <stdlib.h>
#include <string.h>

pml_rx_t pml_rx;

rcmsg_status_t pml_rx_init(void)
{
    pml_rx.peers = calloc((size_t)pml.size, sizeof(*pml_rx.peers));
    return pml_rx.peers != NULL ? RCMSG_OK : RCMSG_ERR_NO_MEMORY;
}

void pml_rx_fini(void)
{
    free(pml_rx.peers);
    memset(&pml_rx, 0, sizeof(pml_rx));
}

static void on_fin(int peer, const rcmsg_pml_rts_t *h)
{
    uint32_t index = (uint32_t)h->sreq, gen = (uint32_t)(h->sreq >> 32);
    int32_t status = h->status;
    rcmsg_request_t r = NULL;

    if (index < (uint32_t)pml_reqs.nreq_chunks * PML_REQ_CHUNK) {
        r = pml_req_at(index);
    }
    if (r == NULL || r->gen != gen || !r->in_use || r->kind != PML_REQ_SEND || !r->rndv ||
        r->finished || r->queued || r->peer != peer) {
        pml_peer_bad(peer, "a FIN that names no rendezvous send of this rank to it (0x%llx)",
                     (unsigned long long)h->sreq);
        return;
    }
    if (status > 0 || !rcmsg_status_known(status) ||
        (h->addr == PML_FIN_REFUSED && status == RCMSG_OK)) {
        pml_peer_bad(peer, "a FIN with status %d, which is no rcmsg error%s", (int)status,
                     h->addr == PML_FIN_REFUSED ? " for a message it refused" : "");
        return; /* r failed with the peer */
    }
    r->refused = h->addr == PML_FIN_REFUSED;
    if (r->refused && r->cancel_asked && !r->cancel_wait) {
        r->finished = true; /* the CANCEL's answer came first: the cancel takes (pml_cancel.c) */
        pml_cancel_refused(r);
        return;
    }
    if (r->refused && !r->cancel_asked) {
        rcmsg_warn("rendezvous send of %zu bytes (tag %d) to rank %d was discarded there "
                   "unreceived: it fails with %s unless cancelled",
                   r->len, r->tag, peer, rcmsg_status_name(status));
    } else if (status != RCMSG_OK && !r->cancel_asked) {
        rcmsg_error("rendezvous send of %zu bytes (tag %d) to rank %d failed at the receiver: %s",
                    r->len, r->tag, peer, rcmsg_status_name(status));
    }
    pml_req_complete(r, status);
}

/* Checks a header's framing and sequence number; false when it must be dropped (the credits it
 * returns: pml_credits_back). */
static bool hdr_check(int peer, const rcmsg_pml_hdr_t *h, size_t len, size_t hlen)
{
    rcmsg_pml_seq_t seq;

    if (h->type >= RCMSG_PML_MSG_COUNT || len < hlen ||
        (h->type == RCMSG_PML_EAGER && len - hlen != h->len)) {
        pml_peer_bad(peer, "a malformed message: type %u, %zu bytes, length field %llu", h->type,
                     len, (unsigned long long)h->len);
        return false;
    }
    if (__builtin_expect(h->seq == pml_peer_rx_seq(peer), 1)) {
        return true; /* in order (rcmsg_pml_seq_check's first case, without the call) */
    }
    seq = rcmsg_pml_seq_check(pml_peer_rx_seq(peer), h->seq);
    if (seq == RCMSG_PML_SEQ_DUPLICATE) {
        rcmsg_error("%s message from rank %d has sequence number %u, expected %u: a duplicate "
                    "(dropped)",
                    rcmsg_pml_msg_name(h->type), peer, h->seq, pml_peer_rx_seq(peer));
        return false;
    }
    if (seq == RCMSG_PML_SEQ_GAP) {
        pml_peer_bad(peer,
                     "a %s message with sequence number %u where %u was expected: messages "
                     "are missing on a reliable connection",
                     rcmsg_pml_msg_name(h->type), h->seq, pml_peer_rx_seq(peer));
        return false;
    }
    return true;
}

/* An EAGER or RTS: matched, kept as unexpected, or refused. */
static void on_msg(int peer, const rcmsg_pml_rts_t *h, size_t hlen, const void *payload)
{
    struct rcmsg_comm *c = pml_comm_of_ctx(h->hdr.ctx);
    rcmsg_match_recv_t *m;
    rcmsg_request_t r;

    if (c != NULL && !pml_src_check(peer, c, &h->hdr)) {
        return;
    }
    if (pml.finalizing) { /* (no receive is posted any more) */
        pml_msg_refuse(peer, h, "this rank is in rcmsg_finalize", RCMSG_LOG_DEBUG, RCMSG_ERR_STATE);
        return;
    }
    /* (receives of a freed communicator may still be posted) */
    m = rcmsg_match_take_recv(&pml_rcv.match, h->hdr.ctx, h->hdr.src, h->hdr.tag);
    if (m != NULL) {
        r = RCMSG_MATCH_ITEM(m, struct rcmsg_request, mrecv);
        pml_recv_matched(r, h, peer, payload);
    } else if (c == NULL && pml_ctx_dead(h->hdr.ctx)) { /* a live context is never dead */
        pml_msg_refuse(peer, h, "its communicator was freed", RCMSG_LOG_WARN, RCMSG_ERR_STATE);
    } else if (c != NULL && (h->hdr.ctx & 1u) && c->coll_lost != RCMSG_OK) {
        pml_msg_refuse(peer, h, "a member of the communicator is lost, so its collectives fail",
                       RCMSG_LOG_DEBUG, c->coll_lost);
    } else if (c == NULL && pml_recv_orphans(peer) >= PML_ORPHANS_MAX) {
        pml_peer_bad(peer, "more than %d messages for communicators this rank does not have",
                     PML_ORPHANS_MAX);
    } else {
        pml_unexp_push(h, hlen, peer, payload, c == NULL);
    }
}

/* A BREAK: a member that saw a rank of communicator c die broke c's collectives
 * (pml_comm_break). */
static void on_break(int peer, const rcmsg_pml_rts_t *h)
{
    struct rcmsg_comm *c = pml_comm_of_ctx(h->hdr.ctx);

    if (!(h->hdr.ctx & 1u)) {
        pml_peer_bad(peer, "a BREAK for the point-to-point space of communicator 0x%x", h->hdr.ctx);
        return;
    }
    if (c == NULL) { /* (the world's BREAK, sent too, says the same) */
        rcmsg_debug("a BREAK from rank %d for communicator 0x%x, which this rank does not have",
                    peer, h->hdr.ctx & ~1u);
        return;
    }
    if (!pml_src_check(peer, c, &h->hdr)) {
        return;
    }
    if (h->hdr.tag < 0 || h->hdr.tag >= c->size || h->hdr.tag == c->rank ||
        c->world[h->hdr.tag] == peer || h->status >= 0 || !rcmsg_status_known(h->status)) {
        pml_peer_bad(peer, "a BREAK of communicator 0x%x naming its rank %d with status %d", c->ctx,
                     (int)h->hdr.tag, (int)h->status);
        return;
    }
    if (pml_peer_gone(c->world[h->hdr.tag]) == RCMSG_OK) {
        pml.any_failed = true; /* a rank is lost: finalize skips its closing barrier */
        pml_comms_break(c->world[h->hdr.tag], (rcmsg_status_t)h->status, peer);
        pml_recv_fail_orphans();
    }
}

/* A message other than an EAGER, counted, and handled when it is a control message; true for an
 * RTS, which the caller matches as an EAGER. */
static bool recv_other(int peer, const rcmsg_pml_rts_t *h, uint64_t *stat)
{
    switch ((rcmsg_pml_msg_t)h->hdr.type) {
    case RCMSG_PML_EAGER: /* (the caller's) */
        break;
    case RCMSG_PML_RTS:
        stat[RCMSG_STAT_msgs_recv_rndv]++;
        stat[RCMSG_STAT_bytes_recv_rndv] += h->hdr.len;
        return true;
    case RCMSG_PML_FIN:
        stat[RCMSG_STAT_ctrl_recv]++;
        on_fin(peer, h);
        break;
    case RCMSG_PML_BREAK:
        stat[RCMSG_STAT_ctrl_recv]++;
        on_break(peer, h);
        break;
    case RCMSG_PML_CANCEL:
        stat[RCMSG_STAT_ctrl_recv]++;
        pml_on_cancel(peer, h);
        break;
    case RCMSG_PML_CANCEL_ACK:
        stat[RCMSG_STAT_ctrl_recv]++;
        pml_on_cancel_ack(peer, h);
        break;
    case RCMSG_PML_BYE:
        pml_rx.peers[peer].bye = true;
        stat[RCMSG_STAT_ctrl_recv]++;
        break;
    case RCMSG_PML_CREDIT:
    case RCMSG_PML_MSG_COUNT:
        stat[RCMSG_STAT_ctrl_recv]++;
        break;
    }
    return false;
}

static void recv_dispatch(int peer, const void *data, size_t len)
{
    rcmsg_pml_rts_t h = {0};
    uint64_t *stat; /* the peer's counters */
    size_t hlen;

    if (pml_peer_failed(peer)) {
        rcmsg_debug("dropped a %zu-byte message from rank %d, which is treated as lost", len, peer);
        return;
    }
    if (len < sizeof(rcmsg_pml_hdr_t)) {
        pml_peer_bad(peer, "a %zu-byte message, shorter than a header", len);
        return;
    }
    memcpy(&h.hdr, data, sizeof(h.hdr));
    hlen = h.hdr.type == RCMSG_PML_EAGER || h.hdr.type == RCMSG_PML_CREDIT ||
                   h.hdr.type == RCMSG_PML_BYE
               ? sizeof(h.hdr)
               : sizeof(h);
    if (!hdr_check(peer, &h.hdr, len, hlen)) {
        return;
    }
    if (h.hdr.credits > 0 && !pml_credits_back(peer, h.hdr.credits)) {
        pml_peer_bad(peer, "%u eager credits returned, but only %d are lent to it", h.hdr.credits,
                     pml_credits_lent(peer));
        return;
    }
    pml_peer_rx_took(peer, h.hdr.seq); /* (liveness: heard from) */
    stat = pml.peers[peer].stat;
    if (hlen > sizeof(h.hdr)) {
        memcpy(&h, data, hlen);
    }
    pml.activity++;
    /* an EAGER, the common case, is counted here without the switch of the others */
    if (__builtin_expect(h.hdr.type == RCMSG_PML_EAGER, 1)) {
        stat[RCMSG_STAT_msgs_recv_eager]++;
        stat[RCMSG_STAT_bytes_recv_eager] += h.hdr.len;
    } else if (!recv_other(peer, &h, stat)) {
        return;
    }
    on_msg(peer, &h, hlen, (const char *)data + hlen); /* one call: inlined here */
}

bool pml_on_recv(void *arg, int peer, const void *data, size_t len)
{
    (void)arg;
    recv_dispatch(peer, data, len);
    /* The request rcmsg_wait waits for is done and it is the only one alive: the caller leaves
     * the library next, so the transport takes no more messages now. Measured: a 2-rank bcast
     * receiver got 128 B 0.2 us later when its round went on to the cell the root was writing
     * for the next barrier. With other requests alive (a window of receives in a waitall) the
     * batch goes on: stopping after each message cost 128 B message rate 20%. */
    return pml_reqs.live_reqs == 1 && pml_wt.waiting != NULL && pml_wt.waiting->complete;
}
