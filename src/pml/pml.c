/*
 * The point-to-point layer: requests, matching, eager and rendezvous protocols, flow control.
 *
 * Eager (len <= eager limit):   sender --EAGER(hdr+data)--> receiver
 *     one credit per message; the receiver returns the credit once the message is matched
 *     (piggybacked on any header, or in a CREDIT message when half the credits are owed).
 *     Without a credit the message goes by rendezvous instead (an RTS needs none), so at
 *     most EAGER_CREDITS unmatched eager payloads per peer ever sit in a receiver's
 *     unexpected queue, and no receive can starve waiting for credits.
 * Rendezvous (larger):          sender --RTS(addr,rkey,sreq)--> receiver
 *                               receiver ==RDMA_READ chunks==> its buffer
 *                               receiver --FIN(sreq)--> sender; both complete.
 *
 * Queues: posted receives and unexpected messages are single FIFO lists over all
 * communicators (entries carry the context), so a message for a communicator this rank has
 * not created yet simply waits as unexpected. Each peer has a FIFO of data sends (eager and
 * RTS, in order: non-overtaking) and separate control work (FIN, CREDIT) that never waits
 * behind data, so flow control cannot deadlock.
 */
#include "config.h"

#include "pml.h"
#include "rcache.h"

#include "base/config_table.h"
#include "base/log.h"
#include "progress/progress.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PML_REQ_CHUNK     256
#define PML_MAX_READS     8
#define PML_TAG_SPLIT     0x7ffffff0 /* internal tag in the collective space */
#define PML_CREDIT_ROUNDS 64         /* progress rounds a send out of credits waits for them */

typedef enum { REQ_SEND, REQ_RECV } req_kind_t;

struct rcmsg_request {
    struct rcmsg_request *next; /* free list, posted list or a peer's send queue */
    struct rcmsg_request *rndv_next;
    req_kind_t kind;
    bool complete;
    bool in_use;
    uint32_t gen;      /* bumped at every allocation: names the request in FINs */
    uint32_t index;    /* position in the request chunks */
    bool queued;       /* a send still in its peer's send queue */
    int credit_rounds; /* send: tries that found no eager credit */
    bool truncated;
    uint32_t ctx;
    int my_rank;   /* this rank in the request's communicator (kept: the comm may be freed) */
    int peer;      /* send: destination world rank; recv: matched sender's world rank */
    int src;       /* recv: requested source (comm rank or ANY) */
    int src_world; /* recv: requested source as a world rank, or -1 for ANY */
    int tag;
    void *buf;
    size_t len;
    rcmsg_msg_status_t st;
    /* rendezvous */
    bool rndv;
    rcmsg_rcache_entry_t *reg;
    const rcmsg_btl_mem_t *mem;
    uint64_t raddr;
    uint32_t rkey;
    uint64_t sreq;
    size_t msg_len, posted, done;
    int reads_out;
    rcmsg_btl_desc_t descs[PML_MAX_READS];
};

typedef struct pml_unexp {
    struct pml_unexp *next;
    rcmsg_pml_rts_t h; /* header (and RTS fields) */
    int peer;          /* world rank of the sender */
    char *data;        /* eager payload (h.hdr.len bytes) */
} pml_unexp_t;

typedef struct {
    rcmsg_btl_t *btl;
    uint32_t send_seq, recv_seq;
    int credits; /* eager sends still allowed to this peer */
    int owed;    /* credits to return to this peer */
    rcmsg_request_t sendq, sendq_tail;
    uint64_t *fins; /* FINs to send (request ids), a growable ring-less stack */
    int nfins, capfins;
    bool pending; /* in the pending-peers list */
    bool failed;
} pml_peer_t;

static struct {
    rcmsg_wireup_t *w;
    int rank, size;
    pml_peer_t *peers;
    int *pending_peers, npending;
    struct rcmsg_comm *world;
    struct rcmsg_comm *comms;
    size_t eager_limit;
    int credits;
    size_t chunk;
    int max_reads;
    rcmsg_request_t free_reqs;
    void **req_chunks;
    int nreq_chunks;
    long live_reqs;
    rcmsg_request_t posted, posted_tail;
    pml_unexp_t *unexp, *unexp_tail;
    long nunexp, unexp_peak;
    size_t unexp_bytes, unexp_bytes_peak; /* eager payload held as unexpected */
    rcmsg_request_t rndv_active;
    bool any_failed; /* a peer was lost: finalize must not wait for every rank */
} pml;

static const char *const pml_msg_names[] = {
#define RCMSG_PML_MSG_NAME(name) #name,
    RCMSG_PML_MSG_LIST(RCMSG_PML_MSG_NAME)
#undef RCMSG_PML_MSG_NAME
};

const char *rcmsg_pml_msg_name(unsigned type)
{
    return type < RCMSG_PML_MSG_COUNT ? pml_msg_names[type] : "UNKNOWN";
}

bool rcmsg_pml_peer_lost(void)
{
    return pml.any_failed;
}

int rcmsg_pml_seq_check(uint32_t expected, uint32_t got)
{
    if (got == expected) {
        return 0;
    }
    return (int32_t)(got - expected) < 0 ? 1 : 2;
}

/* ---- requests -------------------------------------------------------------------------- */

static rcmsg_request_t req_alloc(req_kind_t kind)
{
    rcmsg_request_t r;

    if (pml.free_reqs == NULL) {
        struct rcmsg_request *chunk = calloc(PML_REQ_CHUNK, sizeof(*chunk));
        void **chunks = realloc(pml.req_chunks, sizeof(void *) * (size_t)(pml.nreq_chunks + 1));
        if (chunk == NULL || chunks == NULL) {
            free(chunk);
            if (chunks != NULL) {
                pml.req_chunks = chunks;
            }
            return NULL;
        }
        pml.req_chunks = chunks;
        pml.req_chunks[pml.nreq_chunks] = chunk;
        for (int i = PML_REQ_CHUNK - 1; i >= 0; i--) {
            chunk[i].index = (uint32_t)(pml.nreq_chunks * PML_REQ_CHUNK + i);
            chunk[i].next = pml.free_reqs;
            pml.free_reqs = &chunk[i];
        }
        pml.nreq_chunks++;
    }
    r = pml.free_reqs;
    pml.free_reqs = r->next;
    {
        uint32_t index = r->index, gen = r->gen + 1;
        memset(r, 0, offsetof(struct rcmsg_request, descs));
        for (int i = 0; i < PML_MAX_READS; i++) {
            r->descs[i].arg = NULL;
        }
        r->index = index;
        r->gen = gen;
    }
    r->kind = kind;
    r->in_use = true;
    pml.live_reqs++;
    return r;
}

static void req_free(rcmsg_request_t r)
{
    r->in_use = false;
    r->next = pml.free_reqs;
    pml.free_reqs = r;
    pml.live_reqs--;
}

static void req_complete(rcmsg_request_t r, rcmsg_status_t error)
{
    if (r->reg != NULL) {
        rcmsg_rcache_put(r->reg);
        r->reg = NULL;
    }
    if (r->st.error == RCMSG_OK) {
        r->st.error = error;
    }
    r->complete = true;
}

/* ---- sending --------------------------------------------------------------------------- */

static void peer_mark_pending(int peer)
{
    if (!pml.peers[peer].pending) {
        pml.peers[peer].pending = true;
        pml.pending_peers[pml.npending++] = peer;
    }
}

/* Whether enough credits are owed to peer to return them (half of them, in one message). */
static bool credits_due(const pml_peer_t *p)
{
    return p->owed >= (pml.credits + 1) / 2;
}

/* Puts one message on the wire to peer: sequence number and owed credits go in the header. */
static rcmsg_status_t pml_xmit(int peer, rcmsg_pml_hdr_t *hdr, size_t hdr_len, const void *data,
                               size_t len)
{
    pml_peer_t *p = &pml.peers[peer];
    int give = p->owed > 65535 ? 65535 : p->owed;
    rcmsg_status_t s;

    if (p->failed) {
        return RCMSG_ERR_CONNECTION;
    }
    hdr->seq = p->send_seq;
    hdr->credits = (uint16_t)give;
    s = p->btl->ops->send(p->btl, peer, hdr, hdr_len, data, len);
    if (s == RCMSG_OK) {
        p->send_seq++;
        p->owed -= give;
    }
    return s;
}

/* Makes a send a rendezvous one: its buffer registered for remote reads (none when empty). */
static rcmsg_status_t rndv_prepare(rcmsg_request_t r)
{
    r->rndv = true;
    if (r->len == 0) {
        return RCMSG_OK;
    }
    return rcmsg_rcache_get(pml.peers[r->peer].btl, r->buf, r->len, true, &r->reg, &r->mem);
}

/* Tries to send the request now: OK when it went out (eager: complete), NO_RESOURCE when it
 * must wait (no credit, or the transport is full). */
static rcmsg_status_t send_start(rcmsg_request_t r)
{
    pml_peer_t *p = &pml.peers[r->peer];
    rcmsg_status_t s;

    if (!r->rndv && p->credits == 0) {
        /* No credit. The receiver's returned credits may already be on their way: wait in
         * the send queue for a few progress rounds. Past that, the receiver holds unmatched
         * eager messages of ours: send this one by rendezvous (an RTS needs no credit) so
         * that no payload piles up and a receive waiting for it can still be matched. */
        if (r->credit_rounds++ < PML_CREDIT_ROUNDS) {
            return RCMSG_ERR_NO_RESOURCE;
        }
        s = rndv_prepare(r);
        if (s != RCMSG_OK) {
            req_complete(r, s);
            return RCMSG_OK;
        }
    }
    if (!r->rndv) {
        rcmsg_pml_hdr_t h = {.type = RCMSG_PML_EAGER,
                             .ctx = r->ctx,
                             .src = r->my_rank,
                             .tag = r->tag,
                             .len = r->len};
        s = pml_xmit(r->peer, &h, sizeof(h), r->buf, r->len);
        if (s == RCMSG_OK) {
            p->credits--;
            req_complete(r, RCMSG_OK); /* the transport copied the data */
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
    if (s != RCMSG_OK && s != RCMSG_ERR_NO_RESOURCE) {
        req_complete(r, s);
        return RCMSG_OK; /* done, with an error */
    }
    return s;
}

static void sendq_push(pml_peer_t *p, rcmsg_request_t r)
{
    r->queued = true;
    r->next = NULL;
    if (p->sendq_tail != NULL) {
        p->sendq_tail->next = r;
    } else {
        p->sendq = r;
    }
    p->sendq_tail = r;
}

/* Control work of a peer (FINs, credits); returns the number of messages sent. */
static int peer_control(int peer)
{
    pml_peer_t *p = &pml.peers[peer];
    int n = 0;

    while (p->nfins > 0) {
        rcmsg_pml_rts_t h = {.hdr = {.type = RCMSG_PML_FIN}, .sreq = p->fins[p->nfins - 1]};
        if (pml_xmit(peer, &h.hdr, sizeof(h), NULL, 0) != RCMSG_OK) {
            return n;
        }
        p->nfins--;
        n++;
    }
    if (credits_due(p)) {
        rcmsg_pml_hdr_t h = {.type = RCMSG_PML_CREDIT};
        n += pml_xmit(peer, &h, sizeof(h), NULL, 0) == RCMSG_OK;
    }
    return n;
}

/* Sends what waits for peer; returns the number sent. Keeps the peer pending if work remains. */
static int peer_push(int peer)
{
    pml_peer_t *p = &pml.peers[peer];
    int n = peer_control(peer);

    while (p->sendq != NULL) {
        rcmsg_request_t r = p->sendq;
        if (p->failed) {
            req_complete(r, RCMSG_ERR_CONNECTION);
        } else if (send_start(r) != RCMSG_OK) {
            break;
        }
        p->sendq = r->next;
        if (p->sendq == NULL) {
            p->sendq_tail = NULL;
        }
        r->queued = false;
        n++;
    }
    return n;
}

static bool peer_has_work(const pml_peer_t *p)
{
    return p->nfins > 0 || p->sendq != NULL || credits_due(p);
}

static rcmsg_status_t queue_fin(int peer, uint64_t sreq)
{
    pml_peer_t *p = &pml.peers[peer];

    if (p->nfins == p->capfins) {
        int cap = p->capfins ? p->capfins * 2 : 16;
        uint64_t *f = realloc(p->fins, sizeof(*f) * (size_t)cap);
        if (f == NULL) {
            return RCMSG_ERR_NO_MEMORY;
        }
        p->fins = f;
        p->capfins = cap;
    }
    p->fins[p->nfins++] = sreq;
    peer_mark_pending(peer);
    return RCMSG_OK;
}

/* ---- matching -------------------------------------------------------------------------- */

static bool match(uint32_t ctx, int src, int tag, uint32_t mctx, int msrc, int mtag)
{
    return ctx == mctx && (src == RCMSG_ANY_SOURCE || src == msrc) &&
           (tag == RCMSG_ANY_TAG || tag == mtag);
}

/* Unlinks r (whose predecessor is prev, NULL for the head) from the posted list. */
static void posted_unlink(rcmsg_request_t prev, rcmsg_request_t r)
{
    if (prev != NULL) {
        prev->next = r->next;
    } else {
        pml.posted = r->next;
    }
    if (pml.posted_tail == r) {
        pml.posted_tail = prev;
    }
}

/* The first posted receive matching the header, unlinked from the list; or NULL. */
static rcmsg_request_t posted_take(const rcmsg_pml_hdr_t *h)
{
    rcmsg_request_t prev = NULL;

    for (rcmsg_request_t r = pml.posted; r != NULL; prev = r, r = r->next) {
        if (match(r->ctx, r->src, r->tag, h->ctx, h->src, h->tag)) {
            posted_unlink(prev, r);
            return r;
        }
    }
    return NULL;
}

static void rndv_activate(rcmsg_request_t r)
{
    r->rndv_next = pml.rndv_active;
    pml.rndv_active = r;
}

/* A receive matched: r takes the message (header h from world rank peer; payload for eager). */
static void recv_matched(rcmsg_request_t r, const rcmsg_pml_rts_t *h, int peer, const void *data)
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
        if (credits_due(&pml.peers[peer])) {
            peer_mark_pending(peer);
        }
        req_complete(r, n < h->hdr.len ? RCMSG_ERR_TRUNCATED : RCMSG_OK);
        return;
    }
    /* rendezvous: read what fits (a truncated receive gets the prefix, as with eager) */
    r->raddr = h->addr;
    r->rkey = h->rkey;
    r->sreq = h->sreq;
    r->msg_len = n;
    r->truncated = n < h->hdr.len;
    r->st.count = n;
    r->rndv = true;
    rndv_activate(r);
}

static void on_peer_failed(void *arg, int peer, rcmsg_status_t status);

static void unexp_push(const rcmsg_pml_rts_t *h, size_t hlen, int peer, const void *data)
{
    pml_unexp_t *u = calloc(1, sizeof(*u));

    if (u == NULL || (h->hdr.type == RCMSG_PML_EAGER && h->hdr.len > 0 &&
                      (u->data = malloc(h->hdr.len)) == NULL)) {
        rcmsg_error("out of memory for an unexpected %s message of %llu bytes from rank %d: the "
                    "message cannot be kept, so rank %d is treated as lost",
                    rcmsg_pml_msg_name(h->hdr.type), (unsigned long long)h->hdr.len, peer, peer);
        free(u);
        on_peer_failed(NULL, peer, RCMSG_ERR_NO_MEMORY); /* its requests fail: nothing is lost
                                                            silently */
        return;
    }
    memcpy(&u->h, h, hlen);
    u->peer = peer;
    if (u->data != NULL) {
        memcpy(u->data, data, h->hdr.len);
    }
    if (pml.unexp_tail != NULL) {
        pml.unexp_tail->next = u;
    } else {
        pml.unexp = u;
    }
    pml.unexp_tail = u;
    if (++pml.nunexp > pml.unexp_peak) {
        pml.unexp_peak = pml.nunexp;
    }
    if (u->data != NULL) {
        pml.unexp_bytes += h->hdr.len;
        if (pml.unexp_bytes > pml.unexp_bytes_peak) {
            pml.unexp_bytes_peak = pml.unexp_bytes;
        }
    }
}

/* The first unexpected message matching (ctx, src, tag); unlinked when take is true. */
static pml_unexp_t *unexp_find(uint32_t ctx, int src, int tag, bool take)
{
    pml_unexp_t *prev = NULL;

    for (pml_unexp_t *u = pml.unexp; u != NULL; prev = u, u = u->next) {
        if (match(ctx, src, tag, u->h.hdr.ctx, u->h.hdr.src, u->h.hdr.tag)) {
            if (take) {
                if (prev != NULL) {
                    prev->next = u->next;
                } else {
                    pml.unexp = u->next;
                }
                if (pml.unexp_tail == u) {
                    pml.unexp_tail = prev;
                }
                pml.nunexp--;
                pml.unexp_bytes -= u->data != NULL ? u->h.hdr.len : 0;
            }
            return u;
        }
    }
    return NULL;
}

/* ---- receiving ------------------------------------------------------------------------- */

static void on_fin(int peer, uint64_t sreq)
{
    uint32_t index = (uint32_t)sreq, gen = (uint32_t)(sreq >> 32);
    rcmsg_request_t r = NULL;

    if (index < (uint32_t)pml.nreq_chunks * PML_REQ_CHUNK) {
        r = &((struct rcmsg_request *)pml.req_chunks[index / PML_REQ_CHUNK])[index % PML_REQ_CHUNK];
    }
    if (r == NULL || r->gen != gen || !r->in_use || r->kind != REQ_SEND || !r->rndv ||
        r->complete || r->queued || r->peer != peer) {
        rcmsg_error("FIN from rank %d names no rendezvous send of this rank (0x%llx): dropped",
                    peer, (unsigned long long)sreq);
        return;
    }
    req_complete(r, RCMSG_OK);
}

static void on_recv(void *arg, int peer, const void *data, size_t len)
{
    rcmsg_pml_rts_t h = {0};
    pml_peer_t *p = &pml.peers[peer];
    size_t hlen;
    int seq;

    (void)arg;
    if (p->failed) {
        rcmsg_debug("dropped a %zu-byte message from rank %d, which is treated as lost", len, peer);
        return;
    }
    if (len < sizeof(rcmsg_pml_hdr_t)) {
        rcmsg_error("dropped a %zu-byte message from rank %d: shorter than a header", len, peer);
        return;
    }
    memcpy(&h.hdr, data, sizeof(h.hdr));
    hlen =
        h.hdr.type == RCMSG_PML_EAGER || h.hdr.type == RCMSG_PML_CREDIT ? sizeof(h.hdr) : sizeof(h);
    if (h.hdr.type >= RCMSG_PML_MSG_COUNT || len < hlen ||
        (h.hdr.type == RCMSG_PML_EAGER && len - hlen != h.hdr.len)) {
        rcmsg_error("dropped a malformed message from rank %d: type %u, %zu bytes, length "
                    "field %llu",
                    peer, h.hdr.type, len, (unsigned long long)h.hdr.len);
        return;
    }
    seq = rcmsg_pml_seq_check(p->recv_seq, h.hdr.seq);
    if (seq != 0) {
        rcmsg_error("%s message from rank %d has sequence number %u, expected %u: %s",
                    rcmsg_pml_msg_name(h.hdr.type), peer, h.hdr.seq, p->recv_seq,
                    seq == 1 ? "a duplicate (dropped)" : "messages are missing before it");
        if (seq == 1) {
            return;
        }
    }
    p->recv_seq = h.hdr.seq + 1;
    if (h.hdr.credits > 0) {
        p->credits += h.hdr.credits;
        if (p->sendq != NULL) {
            peer_mark_pending(peer);
        }
    }
    if (hlen > sizeof(h.hdr)) {
        memcpy(&h, data, hlen);
    }
    switch ((rcmsg_pml_msg_t)h.hdr.type) {
    case RCMSG_PML_EAGER:
    case RCMSG_PML_RTS: {
        rcmsg_request_t r = posted_take(&h.hdr);
        if (r != NULL) {
            recv_matched(r, &h, peer, (const char *)data + hlen);
        } else {
            unexp_push(&h, hlen, peer, (const char *)data + hlen);
        }
        break;
    }
    case RCMSG_PML_FIN:
        on_fin(peer, h.sreq);
        break;
    case RCMSG_PML_CREDIT:
    case RCMSG_PML_MSG_COUNT:
        break;
    }
}

static void on_peer_failed(void *arg, int peer, rcmsg_status_t status)
{
    pml_peer_t *p = &pml.peers[peer];

    (void)arg;
    p->failed = true;
    pml.any_failed = true;
    /* receives posted for this peer fail (ANY_SOURCE ones stay: another rank may match) */
    for (rcmsg_request_t *pp = &pml.posted, prev = NULL; *pp != NULL;) {
        rcmsg_request_t r = *pp;
        if (r->src_world == peer) {
            *pp = r->next;
            if (pml.posted_tail == r) {
                pml.posted_tail = prev;
            }
            r->st.source = r->src;
            r->st.tag = r->tag;
            req_complete(r, status);
        } else {
            prev = r;
            pp = &r->next;
        }
    }
    /* rendezvous receives from peer: marked; they complete in rndv_step once no read of
     * theirs is in flight. Rendezvous sends to peer that wait for their FIN: complete now.
     * Queued sends fail when peer_push unlinks them. */
    for (rcmsg_request_t r = pml.rndv_active; r != NULL; r = r->rndv_next) {
        if (r->peer == peer && r->st.error == RCMSG_OK) {
            r->st.error = status;
        }
    }
    for (int c = 0; c < pml.nreq_chunks; c++) {
        for (int i = 0; i < PML_REQ_CHUNK; i++) {
            rcmsg_request_t r = &((struct rcmsg_request *)pml.req_chunks[c])[i];
            if (r->in_use && r->kind == REQ_SEND && r->rndv && !r->queued && !r->complete &&
                r->peer == peer) {
                req_complete(r, status);
            }
        }
    }
    peer_mark_pending(peer);
}

/* ---- rendezvous reads ------------------------------------------------------------------ */

static void read_done(rcmsg_btl_desc_t *desc, rcmsg_status_t status)
{
    rcmsg_request_t r = desc->arg;

    r->reads_out--;
    r->done += desc->len;
    desc->arg = NULL;
    if (status != RCMSG_OK && r->st.error == RCMSG_OK) {
        r->st.error = status;
    }
}

/* Issues reads for an active rendezvous; returns true when the request is finished. */
static bool rndv_step(rcmsg_request_t r)
{
    rcmsg_btl_t *btl = pml.peers[r->peer].btl;

    if (r->reg == NULL && r->st.error == RCMSG_OK && r->msg_len > 0) {
        rcmsg_status_t s = rcmsg_rcache_get(btl, r->buf, r->msg_len, false, &r->reg, &r->mem);
        if (s != RCMSG_OK) {
            r->st.error = s;
        }
    }
    int max_reads =
        pml.max_reads < (int)btl->caps.max_gets ? pml.max_reads : (int)btl->caps.max_gets;

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
    }
    if (r->reads_out > 0 || (r->st.error == RCMSG_OK && r->done < r->msg_len)) {
        return false;
    }
    if (!pml.peers[r->peer].failed) {
        queue_fin(r->peer, r->sreq);
    }
    req_complete(r, r->st.error != RCMSG_OK ? r->st.error
                    : r->truncated          ? RCMSG_ERR_TRUNCATED
                                            : RCMSG_OK);
    return true;
}

static int pml_progress(void *arg)
{
    int n = 0;

    (void)arg;
    for (rcmsg_request_t *pp = &pml.rndv_active; *pp != NULL;) {
        rcmsg_request_t r = *pp;
        if (rndv_step(r)) {
            *pp = r->rndv_next;
            n++;
        } else {
            pp = &r->rndv_next;
        }
    }
    for (int i = 0; i < pml.npending;) {
        int peer = pml.pending_peers[i];
        n += peer_push(peer);
        if (!peer_has_work(&pml.peers[peer]) || pml.peers[peer].failed) {
            pml.peers[peer].pending = false;
            pml.pending_peers[i] = pml.pending_peers[--pml.npending];
        } else {
            i++;
        }
    }
    return n;
}

/* ---- communicators --------------------------------------------------------------------- */

static uint32_t ctx_derive(uint32_t parent, unsigned child, int color)
{
    uint32_t h = 2166136261u;
    uint32_t v[3] = {parent, child, (uint32_t)color};

    for (int i = 0; i < 3; i++) {
        for (int b = 0; b < 4; b++) {
            h = (h ^ ((v[i] >> (8 * b)) & 0xff)) * 16777619u;
        }
    }
    h &= ~1u;
    return h == 0 ? 2 : h;
}

static rcmsg_status_t comm_create(uint32_t ctx, int size, int rank, const int *world,
                                  rcmsg_comm_t *comm_p)
{
    struct rcmsg_comm *c = calloc(1, sizeof(*c));

    if (c == NULL || (c->world = malloc(sizeof(int) * (size_t)size)) == NULL) {
        free(c);
        return RCMSG_ERR_NO_MEMORY;
    }
    for (struct rcmsg_comm *o = pml.comms; o != NULL; o = o->next) {
        if (o->ctx == ctx) {
            rcmsg_error("communicator context 0x%x already in use (hash collision)", ctx);
            free(c->world);
            free(c);
            return RCMSG_ERR_STATE;
        }
    }
    memcpy(c->world, world, sizeof(int) * (size_t)size);
    c->ctx = ctx;
    c->size = size;
    c->rank = rank;
    c->next = pml.comms;
    pml.comms = c;
    *comm_p = c;
    rcmsg_debug("communicator 0x%x: rank %d of %d", ctx, rank, size);
    return RCMSG_OK;
}

static void comm_destroy(rcmsg_comm_t c)
{
    for (struct rcmsg_comm **pp = &pml.comms; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    free(c->world);
    free(c);
}

static bool comm_valid(rcmsg_comm_t comm)
{
    if (comm == pml.world) {
        return comm != NULL; /* the common case, without a walk of the list */
    }
    for (struct rcmsg_comm *c = pml.comms; c != NULL; c = c->next) {
        if (c == comm) {
            return true;
        }
    }
    return false;
}

/* ---- init and fini --------------------------------------------------------------------- */

rcmsg_status_t rcmsg_pml_init(rcmsg_wireup_t *w)
{
    size_t max_send = SIZE_MAX;
    rcmsg_btl_t *btls[3] = {w->self, w->sm, w->rc};
    int *ids;
    rcmsg_status_t s;

    memset(&pml, 0, sizeof(pml));
    pml.w = w;
    pml.rank = w->job.rank;
    pml.size = w->job.size;
    pml.peers = calloc((size_t)pml.size, sizeof(*pml.peers));
    pml.pending_peers = calloc((size_t)pml.size, sizeof(int));
    ids = malloc(sizeof(int) * (size_t)pml.size);
    if (pml.peers == NULL || pml.pending_peers == NULL || ids == NULL) {
        free(ids);
        return RCMSG_ERR_NO_MEMORY;
    }
    pml.credits = (int)rcmsg_config_int(RCMSG_CFG_EAGER_CREDITS);
    for (int i = 0; i < pml.size; i++) {
        rcmsg_btl_t *btl = w->peer_btl[i];
        pml.peers[i].btl = btl;
        pml.peers[i].credits = pml.credits;
        btl->recv_cb = on_recv;
        btl->fail_cb = on_peer_failed;
        if (btl->caps.max_send < max_send) {
            max_send = btl->caps.max_send;
        }
        ids[i] = i;
    }
    pml.eager_limit = rcmsg_config_size(RCMSG_CFG_EAGER_LIMIT);
    if (pml.eager_limit > max_send - sizeof(rcmsg_pml_hdr_t)) {
        pml.eager_limit = max_send - sizeof(rcmsg_pml_hdr_t);
        rcmsg_info("eager limit capped to %zu bytes by the transport's %zu-byte buffers",
                   pml.eager_limit, max_send);
    }
    pml.chunk = rcmsg_config_size(RCMSG_CFG_RNDV_CHUNK);
    pml.max_reads = (int)rcmsg_config_int(RCMSG_CFG_RNDV_READS);
    rcmsg_rcache_init();
    s = comm_create(0, pml.size, pml.rank, ids, &pml.world);
    free(ids);
    if (s != RCMSG_OK) {
        return s;
    }
    rcmsg_info("point-to-point: eager up to %zu bytes, %d credits per peer, rendezvous reads of "
               "%zu bytes, %d in flight",
               pml.eager_limit, pml.credits, pml.chunk, pml.max_reads);
    return rcmsg_progress_init(btls, 3, pml_progress, NULL, w->job.local_size);
}

static void drop_recv(void *arg, int peer, const void *data, size_t len)
{
    (void)arg;
    (void)data;
    rcmsg_debug("finalize: dropped a %zu-byte message from rank %d", len, peer);
}

static void drop_fail(void *arg, int peer, rcmsg_status_t status)
{
    (void)arg;
    rcmsg_debug("finalize: rank %d lost (%s)", peer, rcmsg_status_name(status));
}

static bool fins_pending(void)
{
    for (int i = 0; i < pml.npending; i++) {
        const pml_peer_t *p = &pml.peers[pml.pending_peers[i]];
        if (p->nfins > 0 && !p->failed) {
            return true;
        }
    }
    return false;
}

rcmsg_status_t rcmsg_pml_fini(void)
{
    uint64_t deadline;
    struct timespec ts;

    if (pml.peers == NULL) {
        memset(&pml, 0, sizeof(pml));
        return RCMSG_OK; /* init failed early */
    }
    if (pml.live_reqs > 0) {
        rcmsg_error("rcmsg_finalize refused: %ld request(s) not completed by wait or test",
                    pml.live_reqs);
        return RCMSG_ERR_PENDING;
    }
    /* credits are of no use any more; FINs are: a peer's rendezvous send waits for them */
    for (int i = 0; i < pml.size; i++) {
        pml.peers[i].owed = 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    deadline = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000 +
               rcmsg_config_time_us(RCMSG_CFG_DRAIN_TIMEOUT);
    while (fins_pending()) {
        rcmsg_progress();
        clock_gettime(CLOCK_MONOTONIC, &ts);
        if ((uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000 > deadline) {
            rcmsg_error("finalize: rendezvous FINs could not be sent within RCMSG_DRAIN_TIMEOUT; "
                        "peers waiting for them will not complete");
            break;
        }
    }
    /* from here on the transports may still deliver (their flush polls): drop it */
    for (int i = 0; i < pml.size; i++) {
        pml.peers[i].btl->recv_cb = drop_recv;
        pml.peers[i].btl->fail_cb = drop_fail;
    }
    rcmsg_info("unexpected queue peaked at %ld message(s) holding %zu payload bytes (bounded by "
               "%d eager credits per peer)",
               pml.unexp_peak, pml.unexp_bytes_peak, pml.credits);
    if (pml.nunexp > 0) {
        rcmsg_info("%ld unexpected message(s) were never received", pml.nunexp);
    }
    while (pml.unexp != NULL) {
        pml_unexp_t *u = pml.unexp;
        pml.unexp = u->next;
        free(u->data);
        free(u);
    }
    while (pml.comms != NULL) {
        comm_destroy(pml.comms);
    }
    rcmsg_rcache_fini();
    rcmsg_progress_fini();
    for (int i = 0; i < pml.size; i++) {
        free(pml.peers[i].fins);
    }
    for (int i = 0; i < pml.nreq_chunks; i++) {
        free(pml.req_chunks[i]);
    }
    free(pml.req_chunks);
    free(pml.peers);
    free(pml.pending_peers);
    memset(&pml, 0, sizeof(pml));
    return RCMSG_OK;
}

/* ---- the public calls ------------------------------------------------------------------ */

#define PML_CHECK_INIT()                                                                           \
    do {                                                                                           \
        if (pml.world == NULL) {                                                                   \
            return RCMSG_ERR_NOT_INITIALIZED;                                                      \
        }                                                                                          \
    } while (0)

static rcmsg_status_t check_args(const void *buf, size_t len, rcmsg_comm_t comm, int peer,
                                 bool any_ok, int tag, const char *what)
{
    if (comm == NULL || !comm_valid(comm)) {
        rcmsg_error("%s: invalid communicator", what);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (buf == NULL && len > 0) {
        rcmsg_error("%s: NULL buffer with a length of %zu", what, len);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if ((peer < 0 || peer >= comm->size) && !(any_ok && peer == RCMSG_ANY_SOURCE)) {
        rcmsg_error("%s: rank %d out of range (communicator of %d)", what, peer, comm->size);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (tag < 0 && !(any_ok && tag == RCMSG_ANY_TAG)) {
        rcmsg_error("%s: negative tag %d", what, tag);
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_pml_isend(const void *buf, size_t len, int dest, int tag, rcmsg_comm_t comm,
                               bool coll, rcmsg_request_t *req_p)
{
    rcmsg_request_t r;
    pml_peer_t *p;
    rcmsg_status_t s;

    PML_CHECK_INIT();
    if (req_p == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    s = check_args(buf, len, comm, dest, false, tag, "rcmsg_isend");
    if (s != RCMSG_OK) {
        return s;
    }
    r = req_alloc(REQ_SEND);
    if (r == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    r->my_rank = comm->rank;
    r->ctx = comm->ctx | (coll ? 1u : 0u);
    r->peer = comm->world[dest];
    r->tag = tag;
    r->buf = (void *)buf;
    r->len = len;
    p = &pml.peers[r->peer];
    if (len > pml.eager_limit) {
        s = rndv_prepare(r);
        if (s != RCMSG_OK) {
            req_free(r);
            return s;
        }
    }
    if (p->sendq != NULL || send_start(r) == RCMSG_ERR_NO_RESOURCE) {
        sendq_push(p, r);
        peer_mark_pending(r->peer);
    }
    *req_p = r;
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_pml_irecv(void *buf, size_t len, int source, int tag, rcmsg_comm_t comm,
                               bool coll, rcmsg_request_t *req_p)
{
    rcmsg_request_t r;
    pml_unexp_t *u;
    rcmsg_status_t s;

    PML_CHECK_INIT();
    if (req_p == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    s = check_args(buf, len, comm, source, true, tag, "rcmsg_irecv");
    if (s != RCMSG_OK) {
        return s;
    }
    r = req_alloc(REQ_RECV);
    if (r == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    r->my_rank = comm->rank;
    r->ctx = comm->ctx | (coll ? 1u : 0u);
    r->src = source;
    r->src_world = source == RCMSG_ANY_SOURCE ? -1 : comm->world[source];
    r->tag = tag;
    r->buf = buf;
    r->len = len;
    r->peer = -1;
    u = unexp_find(r->ctx, source, tag, true);
    if (u != NULL) {
        recv_matched(r, &u->h, u->peer, u->data);
        free(u->data);
        free(u);
    } else if (r->src_world >= 0 && pml.peers[r->src_world].failed) {
        /* from a rank already lost: nothing more can come (what it sent before is matched
         * above), so this fails now instead of waiting forever */
        r->st.source = source;
        r->st.tag = tag;
        req_complete(r, RCMSG_ERR_CONNECTION);
    } else {
        r->next = NULL;
        if (pml.posted_tail != NULL) {
            pml.posted_tail->next = r;
        } else {
            pml.posted = r;
        }
        pml.posted_tail = r;
    }
    *req_p = r;
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_pml_cancel_recv(rcmsg_request_t *req_p)
{
    rcmsg_request_t prev = NULL;

    for (rcmsg_request_t r = pml.posted; r != NULL; prev = r, r = r->next) {
        if (r != *req_p) {
            continue;
        }
        posted_unlink(prev, r);
        req_free(r);
        *req_p = RCMSG_REQUEST_NULL;
        return RCMSG_OK;
    }
    return RCMSG_ERR_STATE; /* matched already (or not a posted receive): wait for it */
}

rcmsg_status_t rcmsg_isend(const void *buf, size_t len, int dest, int tag, rcmsg_comm_t comm,
                           rcmsg_request_t *req_p)
{
    return rcmsg_pml_isend(buf, len, dest, tag, comm, false, req_p);
}

rcmsg_status_t rcmsg_irecv(void *buf, size_t len, int source, int tag, rcmsg_comm_t comm,
                           rcmsg_request_t *req_p)
{
    return rcmsg_pml_irecv(buf, len, source, tag, comm, false, req_p);
}

/* Completes a finished request: status out, request released, *req_p cleared. */
static rcmsg_status_t req_finish(rcmsg_request_t *req_p, rcmsg_msg_status_t *status)
{
    rcmsg_request_t r = *req_p;
    rcmsg_status_t err = r->st.error;

    if (status != NULL) {
        *status = r->st;
        if (r->kind == REQ_SEND) {
            status->source = r->my_rank;
            status->tag = r->tag;
            status->count = r->len;
        }
    }
    req_free(r);
    *req_p = RCMSG_REQUEST_NULL;
    return err;
}

static void empty_status(rcmsg_msg_status_t *status)
{
    if (status != NULL) {
        *status = (rcmsg_msg_status_t){.source = RCMSG_ANY_SOURCE, .tag = RCMSG_ANY_TAG};
    }
}

rcmsg_status_t rcmsg_wait(rcmsg_request_t *req_p, rcmsg_msg_status_t *status)
{
    unsigned idle = 0;

    PML_CHECK_INIT();
    if (req_p == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (*req_p == RCMSG_REQUEST_NULL) {
        empty_status(status);
        return RCMSG_OK;
    }
    while (!(*req_p)->complete) {
        if (rcmsg_progress() == 0) {
            rcmsg_progress_idle(&idle);
        } else {
            idle = 0;
        }
    }
    return req_finish(req_p, status);
}

rcmsg_status_t rcmsg_test(rcmsg_request_t *req_p, int *flag_p, rcmsg_msg_status_t *status)
{
    PML_CHECK_INIT();
    if (req_p == NULL || flag_p == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (*req_p == RCMSG_REQUEST_NULL) {
        *flag_p = 1;
        empty_status(status);
        return RCMSG_OK;
    }
    if (!(*req_p)->complete) {
        rcmsg_progress();
    }
    *flag_p = (*req_p)->complete;
    return *flag_p ? req_finish(req_p, status) : RCMSG_OK;
}

rcmsg_status_t rcmsg_testall(size_t n, rcmsg_request_t reqs[], int *flag_p,
                             rcmsg_msg_status_t statuses[])
{
    rcmsg_status_t first = RCMSG_OK;

    PML_CHECK_INIT();
    if ((reqs == NULL && n > 0) || flag_p == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    rcmsg_progress();
    for (size_t i = 0; i < n; i++) {
        if (reqs[i] != RCMSG_REQUEST_NULL && !reqs[i]->complete) {
            *flag_p = 0;
            return RCMSG_OK;
        }
    }
    for (size_t i = 0; i < n; i++) {
        rcmsg_status_t s = RCMSG_OK;
        if (reqs[i] != RCMSG_REQUEST_NULL) {
            s = req_finish(&reqs[i], statuses ? &statuses[i] : NULL);
        } else {
            empty_status(statuses ? &statuses[i] : NULL);
        }
        if (first == RCMSG_OK) {
            first = s;
        }
    }
    *flag_p = 1;
    return first;
}

rcmsg_status_t rcmsg_waitall(size_t n, rcmsg_request_t reqs[], rcmsg_msg_status_t statuses[])
{
    rcmsg_status_t first = RCMSG_OK;

    PML_CHECK_INIT();
    if (reqs == NULL && n > 0) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    for (size_t i = 0; i < n; i++) {
        rcmsg_status_t s = rcmsg_wait(&reqs[i], statuses ? &statuses[i] : NULL);
        if (first == RCMSG_OK) {
            first = s;
        }
    }
    return first;
}

rcmsg_status_t rcmsg_waitany(size_t n, rcmsg_request_t reqs[], size_t *index_p,
                             rcmsg_msg_status_t *status)
{
    unsigned idle = 0;

    PML_CHECK_INIT();
    if ((reqs == NULL && n > 0) || index_p == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    for (;;) {
        size_t live = 0;
        for (size_t i = 0; i < n; i++) {
            if (reqs[i] == RCMSG_REQUEST_NULL) {
                continue;
            }
            live++;
            if (reqs[i]->complete) {
                *index_p = i;
                return req_finish(&reqs[i], status);
            }
        }
        if (live == 0) {
            *index_p = n;
            empty_status(status);
            return RCMSG_OK;
        }
        if (rcmsg_progress() == 0) {
            rcmsg_progress_idle(&idle);
        } else {
            idle = 0;
        }
    }
}

rcmsg_status_t rcmsg_iprobe(int source, int tag, rcmsg_comm_t comm, int *flag_p,
                            rcmsg_msg_status_t *status)
{
    pml_unexp_t *u;
    rcmsg_status_t s;

    PML_CHECK_INIT();
    if (flag_p == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    s = check_args(NULL, 0, comm, source, true, tag, "rcmsg_iprobe");
    if (s != RCMSG_OK) {
        return s;
    }
    rcmsg_progress();
    u = unexp_find(comm->ctx, source, tag, false);
    *flag_p = u != NULL;
    if (u != NULL && status != NULL) {
        *status = (rcmsg_msg_status_t){
            .source = u->h.hdr.src, .tag = u->h.hdr.tag, .count = u->h.hdr.len};
    }
    if (u == NULL && source != RCMSG_ANY_SOURCE && pml.peers[comm->world[source]].failed) {
        return RCMSG_ERR_CONNECTION; /* a lost rank: nothing more will come (probe returns) */
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_probe(int source, int tag, rcmsg_comm_t comm, rcmsg_msg_status_t *status)
{
    unsigned idle = 0;
    int flag = 0;
    rcmsg_status_t s;

    while ((s = rcmsg_iprobe(source, tag, comm, &flag, status)) == RCMSG_OK && !flag) {
        rcmsg_progress_idle(&idle);
    }
    return s;
}

rcmsg_status_t rcmsg_send(const void *buf, size_t len, int dest, int tag, rcmsg_comm_t comm)
{
    rcmsg_request_t r;
    rcmsg_status_t s = rcmsg_isend(buf, len, dest, tag, comm, &r);

    return s == RCMSG_OK ? rcmsg_wait(&r, NULL) : s;
}

rcmsg_status_t rcmsg_recv(void *buf, size_t len, int source, int tag, rcmsg_comm_t comm,
                          rcmsg_msg_status_t *status)
{
    rcmsg_request_t r;
    rcmsg_status_t s = rcmsg_irecv(buf, len, source, tag, comm, &r);

    return s == RCMSG_OK ? rcmsg_wait(&r, status) : s;
}

rcmsg_status_t rcmsg_sendrecv(const void *sendbuf, size_t sendlen, int dest, int sendtag,
                              void *recvbuf, size_t recvlen, int source, int recvtag,
                              rcmsg_comm_t comm, rcmsg_msg_status_t *status)
{
    rcmsg_request_t r[2];
    rcmsg_msg_status_t st[2];
    rcmsg_status_t s;

    PML_CHECK_INIT();
    s = check_args(sendbuf, sendlen, comm, dest, false, sendtag, "rcmsg_sendrecv");
    if (s != RCMSG_OK) {
        return s; /* checked before the receive is posted, which could not be taken back */
    }
    s = rcmsg_irecv(recvbuf, recvlen, source, recvtag, comm, &r[0]);
    if (s != RCMSG_OK) {
        return s;
    }
    s = rcmsg_isend(sendbuf, sendlen, dest, sendtag, comm, &r[1]);
    if (s != RCMSG_OK) {
        if (rcmsg_pml_cancel_recv(&r[0]) != RCMSG_OK) {
            rcmsg_wait(&r[0], NULL); /* matched already: it completes */
        }
        return s;
    }
    s = rcmsg_waitall(2, r, st);
    if (status != NULL) {
        *status = st[0];
    }
    return s;
}

/* ---- communicator calls ---------------------------------------------------------------- */

rcmsg_comm_t rcmsg_comm_world(void)
{
    return pml.world;
}

int rcmsg_comm_rank(rcmsg_comm_t comm)
{
    return comm != NULL && comm_valid(comm) ? comm->rank : -1;
}

int rcmsg_comm_size(rcmsg_comm_t comm)
{
    return comm != NULL && comm_valid(comm) ? comm->size : -1;
}

rcmsg_status_t rcmsg_comm_dup(rcmsg_comm_t comm, rcmsg_comm_t *newcomm_p)
{
    PML_CHECK_INIT();
    if (comm == NULL || !comm_valid(comm) || newcomm_p == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    /* every member dups in the same order, so the derived context agrees everywhere */
    return comm_create(ctx_derive(comm->ctx, comm->nchildren++, 0), comm->size, comm->rank,
                       comm->world, newcomm_p);
}

typedef struct {
    int color, key, rank;
} split_entry_t;

static int split_cmp(const void *a, const void *b)
{
    const split_entry_t *x = a, *y = b;
    if (x->key != y->key) {
        return x->key < y->key ? -1 : 1;
    }
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

rcmsg_status_t rcmsg_comm_split(rcmsg_comm_t comm, int color, int key, rcmsg_comm_t *newcomm_p)
{
    split_entry_t *all, mine = {color, key, 0};
    rcmsg_request_t *reqs;
    int *world, n = 0, me = -1;
    rcmsg_status_t s = RCMSG_OK;
    unsigned child;

    PML_CHECK_INIT();
    if (comm == NULL || !comm_valid(comm) || newcomm_p == NULL ||
        (color < 0 && color != RCMSG_UNDEFINED)) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    child = comm->nchildren++;
    all = calloc((size_t)comm->size, sizeof(*all));
    reqs = calloc((size_t)comm->size * 2, sizeof(*reqs));
    world = calloc((size_t)comm->size, sizeof(int));
    if (all == NULL || reqs == NULL || world == NULL) {
        s = RCMSG_ERR_NO_MEMORY;
        goto out;
    }
    /* everyone learns everyone's (color, key): an allgather in the collective space */
    mine.rank = comm->rank;
    for (int i = 0; i < comm->size && s == RCMSG_OK; i++) {
        s = rcmsg_pml_irecv(&all[i], sizeof(all[i]), i, PML_TAG_SPLIT, comm, true, &reqs[i]);
        if (s == RCMSG_OK) {
            s = rcmsg_pml_isend(&mine, sizeof(mine), i, PML_TAG_SPLIT, comm, true,
                                &reqs[comm->size + i]);
        }
    }
    /* always wait for what was posted: the buffers must outlive the requests */
    {
        rcmsg_status_t w = rcmsg_waitall((size_t)comm->size * 2, reqs, NULL);
        if (s == RCMSG_OK) {
            s = w;
        }
    }
    if (s != RCMSG_OK) {
        goto out;
    }
    *newcomm_p = RCMSG_COMM_NULL;
    if (color == RCMSG_UNDEFINED) {
        goto out;
    }
    for (int i = 0; i < comm->size; i++) {
        if (all[i].rank != i) {
            rcmsg_error("rcmsg_comm_split: rank %d sent a malformed entry", i);
            s = RCMSG_ERR_PEER_DATA;
            goto out;
        }
        if (all[i].color == color) {
            all[n++] = all[i];
        }
    }
    qsort(all, (size_t)n, sizeof(*all), split_cmp);
    for (int i = 0; i < n; i++) {
        world[i] = comm->world[all[i].rank];
        if (all[i].rank == comm->rank) {
            me = i;
        }
    }
    s = comm_create(ctx_derive(comm->ctx, child, color), n, me, world, newcomm_p);
out:
    free(all);
    free(reqs);
    free(world);
    return s;
}

rcmsg_status_t rcmsg_comm_free(rcmsg_comm_t *comm_p)
{
    PML_CHECK_INIT();
    if (comm_p == NULL || *comm_p == NULL || !comm_valid(*comm_p) || *comm_p == pml.world) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    comm_destroy(*comm_p);
    *comm_p = RCMSG_COMM_NULL;
    return RCMSG_OK;
}
