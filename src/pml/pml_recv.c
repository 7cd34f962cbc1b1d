/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive side: a matched receive, unexpected messages, messages refused, receives that
 * can no longer be matched, and the rendezvous reads.
 */
#include "config.h"

#include "pml_internal.h"

#include "base/compiler.h"
#include "base/config_table.h"

#include "base/event.h"
#include "base/mt.h"

#include "base/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pml_recv_t pml_rcv;

rcmsg_status_t pml_recv_init(void)
{
    pml_rcv.chunk = rcmsg_config_size(RCMSG_CFG_RNDV_CHUNK);
    pml_rcv.max_reads = (int)rcmsg_config_int(RCMSG_CFG_RNDV_READS);
    rcmsg_match_init(&pml_rcv.match, pml.size);
    pml_rcv.peers = calloc((size_t)pml.size, sizeof(*pml_rcv.peers));
    return pml_rcv.peers != NULL ? RCMSG_OK : RCMSG_ERR_NO_MEMORY;
}

void pml_recv_fini(void)
{
    for (int i = 0; pml_rcv.peers != NULL && i < pml.size; i++) {
        free(pml_rcv.peers[i].dropped.v);
    }
    free(pml_rcv.peers);
    memset(&pml_rcv, 0, sizeof(pml_rcv));
}

bool pml_recv_dropped_take(int peer, uint32_t seq)
{
    return pml_seqs_take(&pml_rcv.peers[peer].dropped, seq);
}

pml_seqs_t pml_recv_dropped_give(int peer)
{
    pml_seqs_t d = pml_rcv.peers[peer].dropped;

    memset(&pml_rcv.peers[peer].dropped, 0, sizeof(d));
    return d;
}

static void rndv_activate(rcmsg_request_t r)
{
    rcmsg_queue_push_head(&pml_rcv.rndv_active, &r->rndv_link);
    rcmsg_mt_kick_work(); /* RCMSG_ASYNC_PROGRESS=full: its reads are the thread's to run */
}

/* A receive matched: r takes the message (header h from world rank peer; payload for eager). */
void pml_recv_matched(rcmsg_request_t r, const rcmsg_pml_rts_t *h, int peer, const void *data)
{
    size_t n = h->hdr.len <= r->len ? h->hdr.len : r->len;

    r->peer = peer;
    r->st.source = h->hdr.src;
    r->st.tag = h->hdr.tag;
    if (h->hdr.type == RCMSG_PML_EAGER) {
        rcmsg_copy_short(r->buf, data, n); /* (a short one inline, without a call) */
        r->st.count = n;
        pml_credit_owe(peer, 1); /* the eager buffer is free again */
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
void pml_unexp_push(const rcmsg_pml_rts_t *h, size_t hlen, int peer, const void *data, bool orphan)
{
    size_t dlen = h->hdr.type == RCMSG_PML_EAGER ? h->hdr.len : 0;
    pml_unexp_t *u = calloc(1, sizeof(*u) + dlen);

    if (u == NULL) {
        rcmsg_error("out of memory for an unexpected %s message of %llu bytes from rank %d: the "
                    "message cannot be kept, so rank %d is treated as lost",
                    rcmsg_pml_msg_name(h->hdr.type), (unsigned long long)h->hdr.len, peer, peer);
        pml_peer_fail(peer, RCMSG_ERR_NO_MEMORY,
                      "out of memory for its unexpected message"); /* its requests fail:
                                                           nothing is lost silently */
        return;
    }
    memcpy(&u->h, h, hlen);
    u->peer = peer;
    u->m.ctx = h->hdr.ctx;
    u->m.src = h->hdr.src;
    u->m.tag = h->hdr.tag;
    if (rcmsg_match_push(&pml_rcv.match, &u->m) != RCMSG_OK) {
        free(u);
        pml_peer_fail(peer, RCMSG_ERR_NO_MEMORY,
                      "out of memory for its unexpected message"); /* (logged by the push) */
        return;
    }
    u->orphan = orphan;
    pml_rcv.peers[peer].orphans += orphan;
    if (dlen > 0) {
        u->data = (char *)(u + 1);
        memcpy(u->data, data, dlen);
    }
    if (pml_rcv.match.nmsgs > pml_rcv.unexp_peak) {
        pml_rcv.unexp_peak = pml_rcv.match.nmsgs;
        rcmsg_rstat_max(RCMSG_RSTAT_unexp_peak, (uint64_t)pml_rcv.unexp_peak);
    }
    if (u->data != NULL) {
        pml_rcv.unexp_bytes += h->hdr.len;
        if (pml_rcv.unexp_bytes > pml_rcv.unexp_bytes_peak) {
            pml_rcv.unexp_bytes_peak = pml_rcv.unexp_bytes;
            rcmsg_rstat_max(RCMSG_RSTAT_unexp_bytes_peak, pml_rcv.unexp_bytes_peak);
        }
    }
}

pml_unexp_t *pml_unexp_search(uint32_t ctx, int src, int tag, bool take)
{
    rcmsg_match_msg_t *m = rcmsg_match_find(&pml_rcv.match, ctx, src, tag, take);
    pml_unexp_t *u = m != NULL ? RCMSG_MATCH_ITEM(m, pml_unexp_t, m) : NULL;

    if (u != NULL && take) {
        pml_rcv.unexp_bytes -= u->data != NULL ? u->h.hdr.len : 0;
    }
    return u;
}

void pml_unexp_forget(pml_unexp_t *u)
{
    pml_rcv.unexp_bytes -= u->data != NULL ? u->h.hdr.len : 0;
    if (u->orphan) {
        pml_unexp_adopt(u);
    }
}

/* ---- receiving ------------------------------------------------------------------------- */

bool pml_src_bad(int peer, const struct rcmsg_comm *c, const rcmsg_pml_hdr_t *h)
{
    pml_peer_bad(peer,
                 "a %s message on communicator 0x%x claims to come from its rank %d, which is %s",
                 rcmsg_pml_msg_name(h->type), c->ctx, (int)h->src,
                 h->src < 0 || h->src >= c->size ? "out of range" : "another process");
    return false;
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
        pml_seqs_add(&pml_rcv.peers[peer].dropped, h->hdr.seq);
        pml_credit_owe(peer, !pml.finalizing);
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
    return pml_unexp_refuse_from(ctx, RCMSG_ANY_SOURCE, RCMSG_ANY_TAG, why, status);
}

long pml_unexp_refuse_from(uint32_t ctx, int src, int tag, const char *why, rcmsg_status_t status)
{
    long n = 0;

    for (pml_unexp_t *u; (u = pml_unexp_find(ctx, src, tag, true)) != NULL; n++) {
        pml_msg_refuse(u->peer, &u->h, why, RCMSG_LOG_DEBUG, status);
        free(u);
    }
    return n;
}

/* Whether no other rank of the communicator of context ctx is alive: an ANY_SOURCE receive
 * there can never be matched (by another process; see rcmsg.h). For a freed communicator,
 * whose members are unknown: whether every other rank of the job is lost. */
bool pml_ctx_all_lost(uint32_t ctx, int my_rank)
{
    const struct rcmsg_comm *c = pml_comm_of_ctx(ctx);

    if (c == NULL) { /* freed: its members are unknown, so every other rank of the job */
        for (int i = 0; i < pml.size; i++) {
            if (i != pml.rank && !pml_peer_failed(i)) {
                return false;
            }
        }
        return pml.size > 1;
    }
    for (int i = 0; i < c->size; i++) {
        if (i != my_rank && !pml_peer_failed(c->world[i])) {
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
    if (r->src_world >= 0 ? pml_peer_failed(r->src_world) : pml_ctx_all_lost(r->ctx, r->my_rank)) {
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
    return peer >= 0 ? pml_peer_why(peer) : RCMSG_ERR_CONNECTION;
}

/* A posted receive that can no longer be matched fails. */
static void fail_orphaned(rcmsg_match_recv_t *m, void *arg)
{
    rcmsg_request_t r = RCMSG_MATCH_ITEM(m, struct rcmsg_request, mrecv);
    rcmsg_status_t s = pml_recv_lost(r, NULL);

    (void)arg;
    if (s != RCMSG_OK) {
        rcmsg_match_cancel(&pml_rcv.match, m);
        r->st.source = r->src;
        r->st.tag = r->tag;
        pml_req_complete(r, s);
    }
}

void pml_recv_fail_orphans(void)
{
    rcmsg_match_recv_each(&pml_rcv.match, fail_orphaned, NULL);
}

void pml_on_peer_broke(void *arg, int peer)
{
    (void)arg;
    for (rcmsg_queue_link_t *l = rcmsg_queue_first(&pml_rcv.rndv_active); l != NULL;
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
        pml_rcv.max_reads < (int)btl->caps.max_gets ? pml_rcv.max_reads : (int)btl->caps.max_gets;

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
        if (btl->caps.chunked_gets && n > pml_rcv.chunk) {
            n = pml_rcv.chunk;
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
