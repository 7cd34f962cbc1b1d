/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive side: a matched receive, unexpected messages, header and peer data checks,
 * FINs, a failed peer, and the rendezvous reads.
 */
#include "config.h"

#include "pml_internal.h"

#include "base/event.h"

#include "base/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void rndv_activate(rcmsg_request_t r)
{
    rcmsg_queue_push_head(&pml.rndv_active, &r->rndv_link);
}

/* A receive matched: r takes the message (header h from world rank peer; payload for eager). */
void pml_recv_matched(rcmsg_request_t r, const rcmsg_pml_rts_t *h, int peer, const void *data)
{
    size_t n = h->hdr.len <= r->len ? h->hdr.len : r->len;

    r->peer = peer;
    r->st.source = h->hdr.src;
    r->st.tag = h->hdr.tag;
    if (h->hdr.type == RCMSG_PML_EAGER) {
        if (n > 0) {
            memcpy(r->buf, data, n);
        }
        r->st.count = n;
        pml.peers[peer].owed++; /* the eager buffer is free again */
        if (pml_credits_due(&pml.peers[peer])) {
            pml_peer_mark_pending(peer);
        }
        pml_req_complete(r, n < h->hdr.len ? RCMSG_ERR_TRUNCATED : RCMSG_OK);
        return;
    }
    /* rendezvous: read what fits (a truncated receive gets the prefix, as with eager) */
    pml_req_rndv_begin(r);
    r->raddr = h->addr;
    r->rkey = h->rkey;
    r->sreq = h->sreq;
    r->msg_len = n;
    r->truncated = n < h->hdr.len;
    r->st.count = n;
    rndv_activate(r);
}

/* Keeps a message nothing matched (one allocation: entry and eager payload). */
static void unexp_push(const rcmsg_pml_rts_t *h, size_t hlen, int peer, const void *data,
                       bool orphan)
{
    size_t dlen = h->hdr.type == RCMSG_PML_EAGER ? h->hdr.len : 0;
    pml_unexp_t *u = calloc(1, sizeof(*u) + dlen);

    if (u == NULL) {
        rcmsg_error("out of memory for an unexpected %s message of %llu bytes from rank %d: the "
                    "message cannot be kept, so rank %d is treated as lost",
                    rcmsg_pml_msg_name(h->hdr.type), (unsigned long long)h->hdr.len, peer, peer);
        pml_on_peer_failed(NULL, peer, RCMSG_ERR_NO_MEMORY,
                           "out of memory for its unexpected message"); /* its requests fail:
                                                                nothing is lost silently */
        return;
    }
    memcpy(&u->h, h, hlen);
    u->peer = peer;
    u->m.ctx = h->hdr.ctx;
    u->m.src = h->hdr.src;
    u->m.tag = h->hdr.tag;
    if (rcmsg_match_push(&pml.match, &u->m) != RCMSG_OK) {
        free(u);
        pml_on_peer_failed(NULL, peer, RCMSG_ERR_NO_MEMORY,
                           "out of memory for its unexpected message"); /* (logged by the push) */
        return;
    }
    u->orphan = orphan;
    pml.peers[peer].orphans += orphan;
    if (dlen > 0) {
        u->data = (char *)(u + 1);
        memcpy(u->data, data, dlen);
    }
    if (pml.match.nmsgs > pml.unexp_peak) {
        pml.unexp_peak = pml.match.nmsgs;
        rcmsg_rstat_max(RCMSG_RSTAT_unexp_peak, (uint64_t)pml.unexp_peak);
    }
    if (u->data != NULL) {
        pml.unexp_bytes += h->hdr.len;
        if (pml.unexp_bytes > pml.unexp_bytes_peak) {
            pml.unexp_bytes_peak = pml.unexp_bytes;
            rcmsg_rstat_max(RCMSG_RSTAT_unexp_bytes_peak, pml.unexp_bytes_peak);
        }
    }
}

/* The first unexpected message matching (ctx, src, tag); unlinked when take is true. */
pml_unexp_t *pml_unexp_find(uint32_t ctx, int src, int tag, bool take)
{
    rcmsg_match_msg_t *m = rcmsg_match_find(&pml.match, ctx, src, tag, take);
    pml_unexp_t *u = m != NULL ? RCMSG_MATCH_ITEM(m, pml_unexp_t, m) : NULL;

    if (u != NULL && take) {
        pml.unexp_bytes -= u->data != NULL ? u->h.hdr.len : 0;
    }
    return u;
}

void pml_unexp_forget(pml_unexp_t *u)
{
    pml.unexp_bytes -= u->data != NULL ? u->h.hdr.len : 0;
    if (u->orphan) {
        pml.peers[u->peer].orphans--;
        u->orphan = false;
    }
}

/* ---- receiving ------------------------------------------------------------------------- */

static void on_fin(int peer, const rcmsg_pml_rts_t *h)
{
    uint32_t index = (uint32_t)h->sreq, gen = (uint32_t)(h->sreq >> 32);
    int32_t status = h->status;
    rcmsg_request_t r = NULL;

    if (index < (uint32_t)pml.nreq_chunks * PML_REQ_CHUNK) {
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

/* A peer sent what no correct rank sends: it is treated as lost (its requests fail with
 * RCMSG_ERR_PEER_DATA), and nothing more of its is taken. */
void pml_peer_bad(int peer, const char *fmt, ...)
{
    char why[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    rcmsg_error("rank %d sent bad data: %s; rank %d is treated as lost", peer, why, peer);
    pml_on_peer_failed(NULL, peer, RCMSG_ERR_PEER_DATA, why);
}

/* Checks a header's framing, sequence number and credits; false when it must be dropped. */
static bool hdr_check(int peer, const rcmsg_pml_hdr_t *h, size_t len, size_t hlen)
{
    pml_peer_t *p = &pml.peers[peer];
    rcmsg_pml_seq_t seq;

    if (h->type >= RCMSG_PML_MSG_COUNT || len < hlen ||
        (h->type == RCMSG_PML_EAGER && len - hlen != h->len)) {
        pml_peer_bad(peer, "a malformed message: type %u, %zu bytes, length field %llu", h->type,
                     len, (unsigned long long)h->len);
        return false;
    }
    seq = rcmsg_pml_seq_check(p->recv_seq, h->seq);
    if (seq == RCMSG_PML_SEQ_DUPLICATE) {
        rcmsg_error("%s message from rank %d has sequence number %u, expected %u: a duplicate "
                    "(dropped)",
                    rcmsg_pml_msg_name(h->type), peer, h->seq, p->recv_seq);
        return false;
    }
    if (seq == RCMSG_PML_SEQ_GAP) {
        pml_peer_bad(peer,
                     "a %s message with sequence number %u where %u was expected: messages "
                     "are missing on a reliable connection",
                     rcmsg_pml_msg_name(h->type), h->seq, p->recv_seq);
        return false;
    }
    if (h->credits > pml.credits - p->credits) {
        pml_peer_bad(peer, "%u eager credits returned, but only %d are lent to it", h->credits,
                     pml.credits - p->credits);
        return false;
    }
    return true;
}

/* Whether the sender rank a header names is the peer it came from. */
bool pml_src_check(int peer, const struct rcmsg_comm *c, const rcmsg_pml_hdr_t *h)
{
    if (h->src < 0 || h->src >= c->size || c->world[h->src] != peer) {
        pml_peer_bad(peer,
                     "a %s message on communicator 0x%x claims to come from its rank %d, "
                     "which is %s",
                     rcmsg_pml_msg_name(h->type), c->ctx, (int)h->src,
                     h->src < 0 || h->src >= c->size ? "out of range" : "another process");
        return false;
    }
    return true;
}

/* A message that no posted receive takes and that will never be received (its communicator
 * was freed, its collectives broke, this rank is finalizing): refused, never kept. Its eager
 * credit goes back (not at finalize: the sender may have left) and its sequence number is
 * remembered for a CANCEL of it; a rendezvous sender is released by a FIN with status, marked
 * refused (a cancel of it takes). */
void pml_msg_refuse(int peer, const rcmsg_pml_rts_t *h, const char *why, rcmsg_log_level_t level,
                    rcmsg_status_t status)
{
    rcmsg_log(level,
              "a %llu-byte message from rank %d (tag %d) on communicator 0x%x was discarded "
              "unreceived: %s",
              (unsigned long long)h->hdr.len, peer, (int)h->hdr.tag, h->hdr.ctx & ~1u, why);
    if (h->hdr.type == RCMSG_PML_EAGER) {
        pml_seqs_add(&pml.peers[peer].dropped, h->hdr.seq);
        pml.peers[peer].owed += !pml.finalizing;
        if (pml_credits_due(&pml.peers[peer])) {
            pml_peer_mark_pending(peer);
        }
    } else {
        rcmsg_pml_rts_t fin = {.hdr = {.type = RCMSG_PML_FIN},
                               .addr = PML_FIN_REFUSED,
                               .sreq = h->sreq,
                               .status = status};
        pml_queue_ctl(peer, &fin);
    }
}

long pml_unexp_refuse(uint32_t ctx, const char *why, rcmsg_status_t status)
{
    long n = 0;

    for (pml_unexp_t *u; (u = pml_unexp_find(ctx, RCMSG_ANY_SOURCE, RCMSG_ANY_TAG, true)) != NULL;
         n++) {
        pml_msg_refuse(u->peer, &u->h, why, RCMSG_LOG_DEBUG, status);
        free(u);
    }
    return n;
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
    m = rcmsg_match_take_recv(&pml.match, h->hdr.ctx, h->hdr.src, h->hdr.tag);
    if (m != NULL) {
        r = RCMSG_MATCH_ITEM(m, struct rcmsg_request, mrecv);
        pml_recv_matched(r, h, peer, payload);
    } else if (c == NULL && pml_ctx_dead(h->hdr.ctx)) { /* a live context is never dead */
        pml_msg_refuse(peer, h, "its communicator was freed", RCMSG_LOG_WARN, RCMSG_ERR_STATE);
    } else if (c != NULL && (h->hdr.ctx & 1u) && c->coll_lost != RCMSG_OK) {
        pml_msg_refuse(peer, h, "a member of the communicator is lost, so its collectives fail",
                       RCMSG_LOG_DEBUG, c->coll_lost);
    } else if (c == NULL && pml.peers[peer].orphans >= PML_ORPHANS_MAX) {
        pml_peer_bad(peer, "more than %d messages for communicators this rank does not have",
                     PML_ORPHANS_MAX);
    } else {
        unexp_push(h, hlen, peer, payload, c == NULL);
    }
}

/* A BREAK: a member that saw a rank of communicator c die broke c's collectives (comm_break). */
static void fail_orphaned(rcmsg_match_recv_t *m, void *arg);

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
    if (pml.peers[c->world[h->hdr.tag]].gone == RCMSG_OK) {
        pml.any_failed = true; /* a rank is lost: finalize skips its closing barrier */
        pml_comms_break(c->world[h->hdr.tag], (rcmsg_status_t)h->status, peer);
        rcmsg_match_recv_each(&pml.match, fail_orphaned, NULL);
    }
}

static void recv_dispatch(int peer, const void *data, size_t len)
{
    rcmsg_pml_rts_t h = {0};
    pml_peer_t *p = &pml.peers[peer];
    size_t hlen;

    if (p->failed) {
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
    p->recv_seq = h.hdr.seq + 1;
    p->heard++;
    if (h.hdr.credits > 0) {
        p->credits += h.hdr.credits;
        if (!rcmsg_queue_empty(&p->sendq)) {
            pml_peer_mark_pending(peer);
        }
    }
    if (hlen > sizeof(h.hdr)) {
        memcpy(&h, data, hlen);
    }
    pml.activity++;
    switch ((rcmsg_pml_msg_t)h.hdr.type) {
    case RCMSG_PML_EAGER:
        p->stat[RCMSG_STAT_msgs_recv_eager]++;
        p->stat[RCMSG_STAT_bytes_recv_eager] += h.hdr.len;
        on_msg(peer, &h, hlen, (const char *)data + hlen);
        break;
    case RCMSG_PML_RTS:
        p->stat[RCMSG_STAT_msgs_recv_rndv]++;
        p->stat[RCMSG_STAT_bytes_recv_rndv] += h.hdr.len;
        on_msg(peer, &h, hlen, (const char *)data + hlen);
        break;
    case RCMSG_PML_FIN:
        p->stat[RCMSG_STAT_ctrl_recv]++;
        on_fin(peer, &h);
        break;
    case RCMSG_PML_BREAK:
        p->stat[RCMSG_STAT_ctrl_recv]++;
        on_break(peer, &h);
        break;
    case RCMSG_PML_CANCEL:
        p->stat[RCMSG_STAT_ctrl_recv]++;
        pml_on_cancel(peer, &h);
        break;
    case RCMSG_PML_CANCEL_ACK:
        p->stat[RCMSG_STAT_ctrl_recv]++;
        pml_on_cancel_ack(peer, &h);
        break;
    case RCMSG_PML_BYE:
        p->bye = true;
        p->stat[RCMSG_STAT_ctrl_recv]++;
        break;
    case RCMSG_PML_CREDIT:
    case RCMSG_PML_MSG_COUNT:
        p->stat[RCMSG_STAT_ctrl_recv]++;
        break;
    }
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
    return pml.live_reqs == 1 && pml.waiting != NULL && pml.waiting->complete;
}

/* Whether no other rank of the communicator of context ctx is alive: an ANY_SOURCE receive
 * there can never be matched (by another process; see rcmsg.h). For a freed communicator,
 * whose members are unknown: whether every other rank of the job is lost. */
bool pml_ctx_all_lost(uint32_t ctx, int my_rank)
{
    const struct rcmsg_comm *c = pml_comm_of_ctx(ctx);

    if (c == NULL) { /* freed: its members are unknown, so every other rank of the job */
        for (int i = 0; i < pml.size; i++) {
            if (i != pml.rank && !pml.peers[i].failed) {
                return false;
            }
        }
        return pml.size > 1;
    }
    for (int i = 0; i < c->size; i++) {
        if (i != my_rank && !pml.peers[c->world[i]].failed) {
            return false;
        }
    }
    return c->size > 1;
}

/* What a posted receive fails with now that it can no longer be matched, or RCMSG_OK while
 * it can be: its source (for ANY_SOURCE, every other rank of its communicator) is lost, or,
 * in a collective space, a member of the communicator is (comm_break). c: the receive's
 * communicator, or NULL to look it up. */
rcmsg_status_t pml_recv_lost(const struct rcmsg_request *r, const struct rcmsg_comm *c)
{
    if (pml.lost_launcher != RCMSG_OK) {
        return pml.lost_launcher;
    }
    if (r->src_world >= 0 ? pml.peers[r->src_world].failed : pml_ctx_all_lost(r->ctx, r->my_rank)) {
        return pml_lost_status(r->src_world);
    }
    if ((r->ctx & 1u) && (c != NULL || (c = pml_comm_of_ctx(r->ctx)) != NULL)) {
        return c->coll_lost;
    }
    return RCMSG_OK;
}

/* What a request from a lost peer (-1: ANY_SOURCE, every other rank lost) fails with. */
rcmsg_status_t pml_lost_status(int peer)
{
    if (pml.lost_launcher != RCMSG_OK) {
        return pml.lost_launcher;
    }
    return peer >= 0 ? pml.peers[peer].why : RCMSG_ERR_CONNECTION;
}

/* A posted receive that can no longer be matched fails. */
static void fail_orphaned(rcmsg_match_recv_t *m, void *arg)
{
    rcmsg_request_t r = RCMSG_MATCH_ITEM(m, struct rcmsg_request, mrecv);
    rcmsg_status_t s = pml_recv_lost(r, NULL);

    (void)arg;
    if (s != RCMSG_OK) {
        rcmsg_match_cancel(&pml.match, m);
        r->st.source = r->src;
        r->st.tag = r->tag;
        pml_req_complete(r, s);
    }
}

void pml_on_peer_failed(void *arg, int peer, rcmsg_status_t status, const char *cause)
{
    pml_peer_t *p = &pml.peers[peer];

    (void)arg;
    if (p->failed) {
        return;
    }
    if (status == RCMSG_ERR_CONNECTION && pml.lost_launcher == RCMSG_OK &&
        rcmsg_wireup_poll(pml.w, pml_on_rank_lost, NULL) != RCMSG_OK) {
        pml_launcher_lost(RCMSG_ERR_LAUNCHER); /* the job is over: that is why the peer is gone */
        return;
    }
    p->failed = true;
    p->why = status;
    pml.any_failed = true;
    if (peer != pml.rank) {
        rcmsg_event_post(RCMSG_EVENT_PEER_FAILED, peer, p->btl->name, status, "%s",
                         cause != NULL ? cause : rcmsg_strerror(status));
    }
    pml_comms_break(peer, pml_lost_status(peer), -1);
    /* receives posted for this peer fail; ANY_SOURCE ones once no other rank can match them;
     * those of the collectives of a communicator with peer among its members */
    rcmsg_match_recv_each(&pml.match, fail_orphaned, NULL);
    /* rendezvous receives from peer: marked; they complete in pml_rndv_step once no read of
     * theirs is in flight. Rendezvous sends to peer that wait for their FIN, and sends that
     * wait for a cancel's answer: complete now.
     * Queued sends fail when pml_peer_push unlinks them. */
    for (rcmsg_queue_link_t *l = rcmsg_queue_first(&pml.rndv_active); l != NULL;
         l = rcmsg_queue_next(l)) {
        rcmsg_request_t r = RCMSG_CONTAINER_OF(l, struct rcmsg_request, rndv_link);
        if (r->peer == peer && r->st.error == RCMSG_OK) {
            r->st.error = status;
        }
    }
    for (uint32_t i = 0; i < (uint32_t)pml.nreq_chunks * PML_REQ_CHUNK; i++) {
        rcmsg_request_t r = pml_req_at(i);
        if (r->in_use && r->kind == PML_REQ_SEND && r->rndv && !r->queued && !r->finished &&
            r->peer == peer) {
            pml_req_complete(r, status);
        }
    }
    pml_cancel_peer_failed(peer, status); /* sends whose cancel awaits its answer */
    pml_peer_mark_pending(peer);
}

void pml_on_peer_broke(void *arg, int peer)
{
    (void)arg;
    for (rcmsg_queue_link_t *l = rcmsg_queue_first(&pml.rndv_active); l != NULL;
         l = rcmsg_queue_next(l)) {
        rcmsg_request_t r = RCMSG_CONTAINER_OF(l, struct rcmsg_request, rndv_link);
        if (r->peer == peer && r->st.error == RCMSG_OK) {
            r->reread = true;
        }
    }
}

/* ---- rendezvous reads ------------------------------------------------------------------ */

/* A message whose connection broke while it was read: once no read of it is in flight, it is
 * read again from its first byte (the sender keeps its buffer until our FIN). */
static void rndv_reread(rcmsg_request_t r)
{
    if (!r->reread || r->reads_out > 0 || r->st.error != RCMSG_OK || r->done < r->msg_len) {
        return;
    }
    rcmsg_debug("rendezvous of %zu bytes from rank %d (tag %d): its connection broke while it "
                "was read; reading it again from its first byte",
                r->msg_len, r->peer, r->st.tag);
    r->reread = false;
    r->rereads++;
    r->posted = r->done = 0;
    rcmsg_stat_add(r->peer, RCMSG_STAT_rereads, 1);
}

static void read_done(rcmsg_btl_desc_t *desc, rcmsg_status_t status)
{
    rcmsg_request_t r = desc->arg;

    r->reads_out--;
    pml.activity++;
    r->done += desc->len;
    desc->arg = NULL;
    if (status != RCMSG_OK && r->st.error == RCMSG_OK) {
        r->st.error = status;
    }
}

/* Issues reads for an active rendezvous; returns true when the request is finished. */
bool pml_rndv_step(rcmsg_request_t r)
{
    rcmsg_btl_t *btl = pml.peers[r->peer].btl;

    if (r->reg == NULL && r->st.error == RCMSG_OK && r->msg_len > 0) {
        rcmsg_status_t s = pml_mem_get(btl, r, r->buf, r->msg_len, false);
        if (s != RCMSG_OK) {
            r->st.error = s;
        }
    }
    int max_reads =
        pml.max_reads < (int)btl->caps.max_gets ? pml.max_reads : (int)btl->caps.max_gets;

    rndv_reread(r);

    while (r->st.error == RCMSG_OK && r->posted < r->msg_len && r->reads_out < max_reads) {
        rcmsg_btl_desc_t *d = NULL;
        size_t n = r->msg_len - r->posted;

        for (int i = 0; i < max_reads; i++) {
            if (r->descs[i].arg == NULL) {
                d = &r->descs[i];
                break;
            }
        }
        if (btl->caps.chunked_gets && n > pml.chunk) {
            n = pml.chunk;
        }
        if (n > btl->caps.max_get) {
            n = btl->caps.max_get;
        }
        if (d == NULL) {
            break;
        }
        d->complete = read_done;
        d->arg = r;
        rcmsg_status_t s = btl->ops->get(btl, r->peer, (char *)r->buf + r->posted, r->mem,
                                         r->raddr + r->posted, r->rkey, n, d);
        if (s == RCMSG_ERR_NO_RESOURCE) {
            d->arg = NULL;
            break;
        }
        if (s != RCMSG_OK) {
            d->arg = NULL;
            r->st.error = s;
            break;
        }
        r->posted += n;
        r->reads_out++;
        rcmsg_stat_add(r->peer, RCMSG_STAT_reads, 1);
        rcmsg_stat_add(r->peer, RCMSG_STAT_reads_bytes, n);
    }
    if (r->reads_out > 0 || (r->st.error == RCMSG_OK && r->done < r->msg_len)) {
        return false;
    }
    /* the sender learns the outcome: a read that failed fails its send too */
    pml_queue_fin(r->peer, r->sreq, r->st.error);
    if (r->st.error != RCMSG_OK) {
        r->st.count = 0; /* reads finish out of order: no byte is known to have arrived */
    }
    pml_req_complete(r, r->st.error != RCMSG_OK ? r->st.error
                        : r->truncated          ? RCMSG_ERR_TRUNCATED
                                                : RCMSG_OK);
    return true;
}
