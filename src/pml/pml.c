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
 * Queues: posted receives and unexpected messages are kept per context and per source by the
 * matching object (pml_match.h), so a message for a communicator this rank has not created
 * yet simply waits as unexpected. Each peer has a FIFO of data sends (eager and
 * RTS, in order: non-overtaking) and separate control work (FIN, CREDIT) that never waits
 * behind data, so flow control cannot deadlock.
 */
#include "config.h"

#include "pml.h"
#include "pml_match.h"
#include "rcache.h"

#include "base/clock.h"
#include "base/config_table.h"
#include "base/log.h"
#include "progress/progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PML_REQ_CHUNK     256
#define PML_MAX_READS     8
#define PML_TAG_SPLIT     0x7ffffff0 /* internal tag in the collective space */
#define PML_CREDIT_ROUNDS 64         /* progress rounds a send out of credits waits for them */
#define PML_WATCH_CALLS   256        /* progress calls between two looks at the liveness clock */
#define PML_ORPHANS_MAX   65536      /* unexpected headers a peer may leave for unknown contexts */

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
    rcmsg_match_recv_t mrecv; /* recv: in the matching queues until matched */
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
    rcmsg_match_msg_t m;
    rcmsg_pml_rts_t h; /* header (and RTS fields) */
    int peer;          /* world rank of the sender */
    bool orphan;       /* for a context with no communicator yet: sender not yet checked */
    char *data;        /* eager payload (h.hdr.len bytes) */
} pml_unexp_t;

typedef struct {
    uint64_t sreq;  /* the sender's request id */
    int32_t status; /* the outcome the FIN reports */
} pml_fin_t;

typedef struct {
    rcmsg_btl_t *btl;
    uint32_t send_seq, recv_seq;
    int credits; /* eager sends still allowed to this peer */
    int owed;    /* credits to return to this peer */
    rcmsg_request_t sendq, sendq_tail;
    pml_fin_t *fins; /* FINs to send, a growable stack */
    int nfins, capfins;
    bool pending; /* in the pending-peers list */
    bool failed;
    rcmsg_status_t why;   /* failed: the status its requests fail with */
    long orphans;         /* unexpected headers held for contexts with no communicator */
    uint32_t heard;       /* messages received (liveness: changed since the last look?) */
    uint32_t heard_seen;  /* heard at the last liveness look */
    uint64_t probe_epoch; /* liveness round in which this peer was last probed */
} pml_peer_t;

static struct {
    rcmsg_wireup_t *w;
    int rank, size;
    pml_peer_t *peers;
    int *pending_peers, npending;
    struct rcmsg_comm *world;
    struct rcmsg_comm *comms;
    struct rcmsg_comm *last_comm; /* comm_of_ctx's last find */
    size_t eager_limit;
    int credits;
    size_t chunk;
    int max_reads;
    rcmsg_request_t free_reqs, free_tail; /* FIFO: a stale handle stays stale longest */
    void **req_chunks;
    int nreq_chunks;
    long live_reqs;
    rcmsg_match_t match; /* posted receives and unexpected messages */
    long unexp_peak;
    size_t unexp_bytes, unexp_bytes_peak; /* eager payload held as unexpected */
    rcmsg_request_t rndv_active;
    bool any_failed;    /* a peer was lost: finalize must not wait for every rank */
    size_t max_len;     /* the node's memory: no buffer is longer */
    uint32_t *dead_ctx; /* contexts of freed communicators (late messages are refused) */
    int ndead, capdead;
    rcmsg_status_t lost_launcher; /* RCMSG_ERR_LAUNCHER once the launcher is gone */
    bool credit_wait; /* a send waits a few rounds for credits (progress counts it as work) */
    unsigned watch_calls;
    uint64_t watch_next_us, watch_interval_us, watch_epoch;
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
        pml.free_tail = &chunk[PML_REQ_CHUNK - 1];
        pml.nreq_chunks++;
    }
    r = pml.free_reqs;
    pml.free_reqs = r->next;
    if (pml.free_reqs == NULL) {
        pml.free_tail = NULL;
    }
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

/* The request at an index of the chunks (index < nreq_chunks * PML_REQ_CHUNK). */
static rcmsg_request_t req_at(uint32_t index)
{
    return &((struct rcmsg_request *)pml.req_chunks[index / PML_REQ_CHUNK])[index % PML_REQ_CHUNK];
}

static void req_free(rcmsg_request_t r)
{
    if (!r->in_use) {
        return; /* never twice on the free list */
    }
    r->in_use = false;
    r->next = NULL;
    if (pml.free_tail != NULL) {
        pml.free_tail->next = r;
    } else {
        pml.free_reqs = r;
    }
    pml.free_tail = r;
    pml.live_reqs--;
}

/* Whether r is a live request of this library: a stale copy of a completed (freed) handle,
 * or a pointer that is no request at all, is refused instead of corrupting the free list. */
static bool req_valid(rcmsg_request_t r, const char *what)
{
    for (int c = 0; c < pml.nreq_chunks; c++) {
        uintptr_t off = (uintptr_t)r - (uintptr_t)pml.req_chunks[c];
        if (off < PML_REQ_CHUNK * sizeof(*r) && off % sizeof(*r) == 0) {
            if (r->in_use) {
                return true;
            }
            rcmsg_error("%s: request %p was completed already (a stale copy of a handle that "
                        "wait or test set to RCMSG_REQUEST_NULL)",
                        what, (void *)r);
            return false;
        }
    }
    rcmsg_error("%s: %p is not a request of rcmsg", what, (void *)r);
    return false;
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
            pml.credit_wait = true; /* work for progress: a wait must not sleep on it */
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
        rcmsg_pml_rts_t h = {.hdr = {.type = RCMSG_PML_FIN},
                             .sreq = p->fins[p->nfins - 1].sreq,
                             .status = p->fins[p->nfins - 1].status};
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

/* Queues a FIN for peer's rendezvous send sreq, reporting status (RCMSG_OK: data taken). */
static rcmsg_status_t queue_fin(int peer, uint64_t sreq, rcmsg_status_t status)
{
    pml_peer_t *p = &pml.peers[peer];

    if (p->failed) {
        return RCMSG_ERR_CONNECTION; /* nobody waits for it */
    }
    if (p->nfins == p->capfins) {
        int cap = p->capfins ? p->capfins * 2 : 16;
        pml_fin_t *f = realloc(p->fins, sizeof(*f) * (size_t)cap);
        if (f == NULL) {
            rcmsg_error("out of memory for a FIN to rank %d: its send cannot complete", peer);
            return RCMSG_ERR_NO_MEMORY;
        }
        p->fins = f;
        p->capfins = cap;
    }
    p->fins[p->nfins++] = (pml_fin_t){.sreq = sreq, .status = status};
    peer_mark_pending(peer);
    return RCMSG_OK;
}

/* ---- matching -------------------------------------------------------------------------- */

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
        free(u);
        on_peer_failed(NULL, peer, RCMSG_ERR_NO_MEMORY); /* its requests fail: nothing is lost
                                                            silently */
        return;
    }
    memcpy(&u->h, h, hlen);
    u->peer = peer;
    u->m.ctx = h->hdr.ctx;
    u->m.src = h->hdr.src;
    u->m.tag = h->hdr.tag;
    if (rcmsg_match_push(&pml.match, &u->m) != RCMSG_OK) {
        free(u);
        on_peer_failed(NULL, peer, RCMSG_ERR_NO_MEMORY); /* (logged by the push) */
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
    rcmsg_match_msg_t *m = rcmsg_match_find(&pml.match, ctx, src, tag, take);
    pml_unexp_t *u = m != NULL ? RCMSG_MATCH_ITEM(m, pml_unexp_t, m) : NULL;

    if (u != NULL && take) {
        pml.unexp_bytes -= u->data != NULL ? u->h.hdr.len : 0;
    }
    return u;
}

/* ---- receiving ------------------------------------------------------------------------- */

static void peer_bad(int peer, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* RCMSG_OK when a FIN's status is an rcmsg error (or success), else RCMSG_ERR_PEER_DATA. */
static rcmsg_status_t fin_status(int32_t status)
{
    if (status > 0 ||
        strcmp(rcmsg_status_name((rcmsg_status_t)status), "RCMSG_STATUS_UNKNOWN") == 0) {
        return RCMSG_ERR_PEER_DATA;
    }
    return RCMSG_OK;
}

static void on_fin(int peer, uint64_t sreq, int32_t status)
{
    uint32_t index = (uint32_t)sreq, gen = (uint32_t)(sreq >> 32);
    rcmsg_request_t r = NULL;

    if (index < (uint32_t)pml.nreq_chunks * PML_REQ_CHUNK) {
        r = req_at(index);
    }
    if (r == NULL || r->gen != gen || !r->in_use || r->kind != REQ_SEND || !r->rndv ||
        r->complete || r->queued || r->peer != peer) {
        peer_bad(peer, "a FIN that names no rendezvous send of this rank to it (0x%llx)",
                 (unsigned long long)sreq);
        return;
    }
    if (status != RCMSG_OK && fin_status(status) != RCMSG_OK) {
        peer_bad(peer, "a FIN with status %d, which is no rcmsg error", (int)status);
        return; /* r failed with the peer */
    }
    if (status != RCMSG_OK) {
        rcmsg_error("rendezvous send of %zu bytes (tag %d) to rank %d failed at the receiver: %s",
                    r->len, r->tag, peer, rcmsg_status_name(status));
    }
    req_complete(r, status);
}

/* A peer sent what no correct rank sends: it is treated as lost (its requests fail with
 * RCMSG_ERR_PEER_DATA), and nothing more of its is taken. */
static void peer_bad(int peer, const char *fmt, ...)
{
    char why[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    rcmsg_error("rank %d sent bad data: %s; rank %d is treated as lost", peer, why, peer);
    on_peer_failed(NULL, peer, RCMSG_ERR_PEER_DATA);
}

/* Checks a header's framing, sequence number and credits; false when it must be dropped. */
static bool hdr_check(int peer, const rcmsg_pml_hdr_t *h, size_t len, size_t hlen)
{
    pml_peer_t *p = &pml.peers[peer];
    int seq;

    if (h->type >= RCMSG_PML_MSG_COUNT || len < hlen ||
        (h->type == RCMSG_PML_EAGER && len - hlen != h->len)) {
        peer_bad(peer, "a malformed message: type %u, %zu bytes, length field %llu", h->type, len,
                 (unsigned long long)h->len);
        return false;
    }
    seq = rcmsg_pml_seq_check(p->recv_seq, h->seq);
    if (seq == 1) {
        rcmsg_error("%s message from rank %d has sequence number %u, expected %u: a duplicate "
                    "(dropped)",
                    rcmsg_pml_msg_name(h->type), peer, h->seq, p->recv_seq);
        return false;
    }
    if (seq == 2) {
        peer_bad(peer,
                 "a %s message with sequence number %u where %u was expected: messages "
                 "are missing on a reliable connection",
                 rcmsg_pml_msg_name(h->type), h->seq, p->recv_seq);
        return false;
    }
    if (h->credits > pml.credits - p->credits) {
        peer_bad(peer, "%u eager credits returned, but only %d are lent to it", h->credits,
                 pml.credits - p->credits);
        return false;
    }
    return true;
}

/* The communicator of a context (either space), or NULL when this rank has none. */
static struct rcmsg_comm *comm_of_ctx(uint32_t ctx)
{
    if ((ctx & ~1u) == 0) {
        return pml.world; /* the common case, without a walk */
    }
    if (pml.last_comm != NULL && pml.last_comm->ctx == (ctx & ~1u)) {
        return pml.last_comm; /* the next most common: the communicator of the last message */
    }
    for (struct rcmsg_comm *c = pml.comms; c != NULL; c = c->next) {
        if (c->ctx == (ctx & ~1u)) {
            pml.last_comm = c;
            return c;
        }
    }
    return NULL;
}

static bool ctx_dead(uint32_t ctx)
{
    for (int i = 0; i < pml.ndead; i++) {
        if (pml.dead_ctx[i] == (ctx & ~1u)) {
            return true;
        }
    }
    return false;
}

/* Whether the sender rank a header names is the peer it came from. */
static bool src_check(int peer, const struct rcmsg_comm *c, const rcmsg_pml_hdr_t *h)
{
    if (h->src < 0 || h->src >= c->size || c->world[h->src] != peer) {
        peer_bad(peer,
                 "a %s message on communicator 0x%x claims to come from its rank %d, "
                 "which is %s",
                 rcmsg_pml_msg_name(h->type), c->ctx, (int)h->src,
                 h->src < 0 || h->src >= c->size ? "out of range" : "another process");
        return false;
    }
    return true;
}

/* A message for a freed communicator that no posted receive takes: refused (the credit goes
 * back; a rendezvous sender is told by a failing FIN), never kept. */
static void msg_refuse(int peer, const rcmsg_pml_rts_t *h, const char *why, rcmsg_log_level_t level)
{
    rcmsg_log(level,
              "a %llu-byte message from rank %d (tag %d) on communicator 0x%x was discarded "
              "unreceived: %s",
              (unsigned long long)h->hdr.len, peer, (int)h->hdr.tag, h->hdr.ctx & ~1u, why);
    if (h->hdr.type == RCMSG_PML_EAGER) {
        pml.peers[peer].owed++;
        if (credits_due(&pml.peers[peer])) {
            peer_mark_pending(peer);
        }
    } else {
        queue_fin(peer, h->sreq, RCMSG_ERR_STATE);
    }
}

/* An EAGER or RTS: matched, kept as unexpected, or refused. */
static void on_msg(int peer, const rcmsg_pml_rts_t *h, size_t hlen, const void *payload)
{
    struct rcmsg_comm *c = comm_of_ctx(h->hdr.ctx);
    rcmsg_match_recv_t *m;
    rcmsg_request_t r;

    if (c != NULL && !src_check(peer, c, &h->hdr)) {
        return;
    }
    /* (receives of a freed communicator may still be posted) */
    m = rcmsg_match_take_recv(&pml.match, h->hdr.ctx, h->hdr.src, h->hdr.tag);
    if (m != NULL) {
        r = RCMSG_MATCH_ITEM(m, struct rcmsg_request, mrecv);
        recv_matched(r, h, peer, payload);
    } else if (c == NULL && ctx_dead(h->hdr.ctx)) { /* a live context is never dead */
        msg_refuse(peer, h, "its communicator was freed", RCMSG_LOG_WARN);
    } else if (c == NULL && pml.peers[peer].orphans >= PML_ORPHANS_MAX) {
        peer_bad(peer, "more than %d messages for communicators this rank does not have",
                 PML_ORPHANS_MAX);
    } else {
        unexp_push(h, hlen, peer, payload, c == NULL);
    }
}

static void on_recv(void *arg, int peer, const void *data, size_t len)
{
    rcmsg_pml_rts_t h = {0};
    pml_peer_t *p = &pml.peers[peer];
    size_t hlen;

    (void)arg;
    if (p->failed) {
        rcmsg_debug("dropped a %zu-byte message from rank %d, which is treated as lost", len, peer);
        return;
    }
    if (len < sizeof(rcmsg_pml_hdr_t)) {
        peer_bad(peer, "a %zu-byte message, shorter than a header", len);
        return;
    }
    memcpy(&h.hdr, data, sizeof(h.hdr));
    hlen =
        h.hdr.type == RCMSG_PML_EAGER || h.hdr.type == RCMSG_PML_CREDIT ? sizeof(h.hdr) : sizeof(h);
    if (!hdr_check(peer, &h.hdr, len, hlen)) {
        return;
    }
    p->recv_seq = h.hdr.seq + 1;
    p->heard++;
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
    case RCMSG_PML_RTS:
        on_msg(peer, &h, hlen, (const char *)data + hlen);
        break;
    case RCMSG_PML_FIN:
        on_fin(peer, h.sreq, h.status);
        break;
    case RCMSG_PML_CREDIT:
    case RCMSG_PML_MSG_COUNT:
        break;
    }
}

/* Whether no other rank of the communicator of context ctx is alive: an ANY_SOURCE receive
 * there can never be matched (by another process; see rcmsg.h). False when the communicator
 * was freed: its members are unknown. */
static bool ctx_all_lost(uint32_t ctx, int my_rank)
{
    const struct rcmsg_comm *c = comm_of_ctx(ctx);

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

/* Whether a posted receive can no longer be matched: its source (or, for ANY_SOURCE, every
 * other rank of its communicator) is lost. */
static bool recv_orphaned(const struct rcmsg_request *r)
{
    if (pml.lost_launcher != RCMSG_OK) {
        return true;
    }
    return r->src_world >= 0 ? pml.peers[r->src_world].failed : ctx_all_lost(r->ctx, r->my_rank);
}

/* What a request from a lost peer (-1: ANY_SOURCE, every other rank lost) fails with. */
static rcmsg_status_t lost_status(int peer)
{
    if (pml.lost_launcher != RCMSG_OK) {
        return pml.lost_launcher;
    }
    return peer >= 0 ? pml.peers[peer].why : RCMSG_ERR_CONNECTION;
}

static void on_rank_lost(void *arg, int rank);
static void launcher_lost(rcmsg_status_t status);

/* A posted receive that can no longer be matched fails with *arg. */
static void fail_orphaned(rcmsg_match_recv_t *m, void *arg)
{
    rcmsg_request_t r = RCMSG_MATCH_ITEM(m, struct rcmsg_request, mrecv);

    if (recv_orphaned(r)) {
        rcmsg_match_cancel(&pml.match, m);
        r->st.source = r->src;
        r->st.tag = r->tag;
        req_complete(r, *(const rcmsg_status_t *)arg);
    }
}

static void on_peer_failed(void *arg, int peer, rcmsg_status_t status)
{
    pml_peer_t *p = &pml.peers[peer];

    (void)arg;
    if (p->failed) {
        return;
    }
    if (status == RCMSG_ERR_CONNECTION && pml.lost_launcher == RCMSG_OK &&
        rcmsg_wireup_poll(pml.w, on_rank_lost, NULL) != RCMSG_OK) {
        launcher_lost(RCMSG_ERR_LAUNCHER); /* the job is over: that is why the peer is gone */
        return;
    }
    p->failed = true;
    p->why = status;
    pml.any_failed = true;
    /* receives posted for this peer fail; ANY_SOURCE ones once no other rank can match them */
    rcmsg_match_recv_each(&pml.match, fail_orphaned, &status);
    /* rendezvous receives from peer: marked; they complete in rndv_step once no read of
     * theirs is in flight. Rendezvous sends to peer that wait for their FIN: complete now.
     * Queued sends fail when peer_push unlinks them. */
    for (rcmsg_request_t r = pml.rndv_active; r != NULL; r = r->rndv_next) {
        if (r->peer == peer && r->st.error == RCMSG_OK) {
            r->st.error = status;
        }
    }
    for (uint32_t i = 0; i < (uint32_t)pml.nreq_chunks * PML_REQ_CHUNK; i++) {
        rcmsg_request_t r = req_at(i);
        if (r->in_use && r->kind == REQ_SEND && r->rndv && !r->queued && !r->complete &&
            r->peer == peer) {
            req_complete(r, status);
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
    /* the sender learns the outcome: a read that failed fails its send too */
    queue_fin(r->peer, r->sreq, r->st.error);
    if (r->st.error != RCMSG_OK) {
        r->st.count = 0; /* reads finish out of order: no byte is known to have arrived */
    }
    req_complete(r, r->st.error != RCMSG_OK ? r->st.error
                    : r->truncated          ? RCMSG_ERR_TRUNCATED
                                            : RCMSG_OK);
    return true;
}

/* ---- liveness -------------------------------------------------------------------------- */

static void on_rank_lost(void *arg, int rank)
{
    (void)arg;
    if (rank >= 0 && rank < pml.size && rank != pml.rank && !pml.peers[rank].failed) {
        rcmsg_error("the launcher reports that rank %d terminated: requests involving it fail "
                    "with %s",
                    rank, rcmsg_status_name(RCMSG_ERR_CONNECTION));
        on_peer_failed(NULL, rank, RCMSG_ERR_CONNECTION);
    }
}

/* Without the launcher the job is over: every request fails with status, and so does every
 * later call that starts an operation (pml_check). */
static void launcher_lost(rcmsg_status_t status)
{
    pml.lost_launcher = status;
    for (int i = 0; i < pml.size; i++) {
        on_peer_failed(NULL, i, status);
    }
}

/* Probes peer once per liveness round, unless it was heard from since the last round. */
static void probe_peer(int peer)
{
    pml_peer_t *p = &pml.peers[peer];
    rcmsg_status_t s;

    if (p->failed || p->probe_epoch == pml.watch_epoch) {
        return;
    }
    p->probe_epoch = pml.watch_epoch;
    if (p->heard != p->heard_seen) {
        p->heard_seen = p->heard;
        return;
    }
    s = p->btl->ops->ping(p->btl, peer);
    rcmsg_debug("liveness: nothing from rank %d for a round: probed (%s)", peer,
                rcmsg_status_name(s));
    if (s != RCMSG_OK && s != RCMSG_ERR_UNSUPPORTED && s != RCMSG_ERR_NO_RESOURCE) {
        rcmsg_debug("liveness probe of rank %d: %s", peer, rcmsg_status_name(s));
    }
}

/* Probes every peer something is pending from: the source of a posted receive (every other
 * member of its communicator for ANY_SOURCE), the peer of a send or rendezvous read. */
static void watch_probe(void)
{
    pml.watch_epoch++;
    for (uint32_t i = 0; i < (uint32_t)pml.nreq_chunks * PML_REQ_CHUNK; i++) {
        rcmsg_request_t r = req_at(i);
        const struct rcmsg_comm *comm;
        if (!r->in_use || r->complete) {
            continue;
        }
        if (r->kind == REQ_SEND || r->peer >= 0 || r->src_world >= 0) {
            probe_peer(r->peer >= 0 ? r->peer : r->src_world);
        } else if ((comm = comm_of_ctx(r->ctx)) != NULL) {
            for (int k = 0; k < comm->size; k++) {
                if (k != r->my_rank) {
                    probe_peer(comm->world[k]);
                }
            }
        } else { /* ANY_SOURCE on a freed communicator: any rank may match it */
            for (int k = 0; k < pml.size; k++) {
                probe_peer(k);
            }
        }
    }
}

/* Every RCMSG_LIVENESS_INTERVAL while requests are pending: the launcher's news, then probes. */
static void pml_watch(void)
{
    rcmsg_status_t s;
    uint64_t now;

    if (pml.lost_launcher != RCMSG_OK) {
        return;
    }
    s = rcmsg_wireup_poll(pml.w, on_rank_lost, NULL);
    if (s != RCMSG_OK) {
        launcher_lost(s);
        return;
    }
    now = rcmsg_clock_us();
    if (pml.live_reqs > 0 && now >= pml.watch_next_us) {
        pml.watch_next_us = now + pml.watch_interval_us;
        watch_probe();
    }
}

/* An idle round of a blocking call: the wait itself, and liveness after a sleep. */
static void pml_idle(unsigned *idle)
{
    if (rcmsg_progress_idle(idle)) {
        pml_watch(); /* it slept: few progress calls count towards PML_WATCH_CALLS */
    }
}

static int pml_progress(void *arg)
{
    int n = 0;

    (void)arg;
    if (++pml.watch_calls % PML_WATCH_CALLS == 0) {
        pml_watch();
    }
    pml.credit_wait = false;
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
    return n + pml.credit_wait;
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

/* A communicator is freed: its context is remembered as dead (late messages are refused)
 * and its unreceived messages are discarded, giving their eager credits back and failing
 * their rendezvous senders, so that nothing of the pair stays held for the rest of the job. */
static rcmsg_status_t ctx_bury(uint32_t ctx)
{
    long n = 0;

    if (pml.ndead == pml.capdead) {
        int cap = pml.capdead ? pml.capdead * 2 : 16;
        uint32_t *d = realloc(pml.dead_ctx, sizeof(*d) * (size_t)cap);
        if (d == NULL) {
            rcmsg_error("rcmsg_comm_free: out of memory");
            return RCMSG_ERR_NO_MEMORY;
        }
        pml.dead_ctx = d;
        pml.capdead = cap;
    }
    pml.dead_ctx[pml.ndead++] = ctx;
    for (pml_unexp_t *u; (u = unexp_find(ctx, RCMSG_ANY_SOURCE, RCMSG_ANY_TAG, true)) != NULL ||
                         (u = unexp_find(ctx | 1u, RCMSG_ANY_SOURCE, RCMSG_ANY_TAG, true)) != NULL;
         n++) {
        msg_refuse(u->peer, &u->h, "its communicator was freed before it was received",
                   RCMSG_LOG_DEBUG);
        free(u);
    }
    if (n > 0) {
        rcmsg_warn("rcmsg_comm_free: %ld unreceived message(s) on communicator 0x%x discarded", n,
                   ctx);
    }
    rcmsg_match_ctx_release(&pml.match, ctx);
    rcmsg_match_ctx_release(&pml.match, ctx | 1u);
    return RCMSG_OK;
}

/* An orphan message of communicator *arg: its sender is checked now. */
static void adopt_one(rcmsg_match_msg_t *m, void *arg)
{
    const struct rcmsg_comm *c = arg;
    pml_unexp_t *u = RCMSG_MATCH_ITEM(m, pml_unexp_t, m);

    if (!u->orphan) {
        return;
    }
    u->orphan = false;
    pml.peers[u->peer].orphans--;
    if (!src_check(u->peer, c, &u->h.hdr)) {
        rcmsg_match_remove(&pml.match, m);
        pml.unexp_bytes -= u->data != NULL ? u->h.hdr.len : 0;
        free(u);
    }
}

/* A new communicator adopts the messages that arrived for its context before it existed:
 * their sender is checked now (dropped, and the peer failed, when it lied). */
static void ctx_adopt(const struct rcmsg_comm *c)
{
    rcmsg_match_msg_each(&pml.match, c->ctx, adopt_one, (void *)c);
    rcmsg_match_msg_each(&pml.match, c->ctx | 1u, adopt_one, (void *)c);
}

static rcmsg_status_t comm_create(uint32_t ctx, int size, int rank, const int *world,
                                  rcmsg_comm_t *comm_p)
{
    struct rcmsg_comm *c = calloc(1, sizeof(*c));

    if (c == NULL || (c->world = malloc(sizeof(int) * (size_t)size)) == NULL) {
        free(c);
        return RCMSG_ERR_NO_MEMORY;
    }
    if (comm_of_ctx(ctx) != NULL || ctx_dead(ctx)) {
        rcmsg_error("communicator context 0x%x already in use (hash collision)", ctx);
        free(c->world);
        free(c);
        return RCMSG_ERR_STATE;
    }
    memcpy(c->world, world, sizeof(int) * (size_t)size);
    c->ctx = ctx;
    c->size = size;
    c->rank = rank;
    c->next = pml.comms;
    pml.comms = c;
    ctx_adopt(c);
    *comm_p = c;
    rcmsg_debug("communicator 0x%x: rank %d of %d", ctx, rank, size);
    return RCMSG_OK;
}

static void comm_destroy(rcmsg_comm_t c)
{
    if (pml.last_comm == c) {
        pml.last_comm = NULL;
    }
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
    rcmsg_match_init(&pml.match, w->job.size);
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
    pml.watch_interval_us = rcmsg_config_time_us(RCMSG_CFG_LIVENESS_INTERVAL);
    pml.max_len = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
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

static void unexp_free(rcmsg_match_msg_t *m, void *arg)
{
    (void)arg;
    free(RCMSG_MATCH_ITEM(m, pml_unexp_t, m));
}

rcmsg_status_t rcmsg_pml_fini(void)
{
    uint64_t deadline;

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
    deadline = rcmsg_clock_us() + rcmsg_config_time_us(RCMSG_CFG_DRAIN_TIMEOUT);
    while (fins_pending()) {
        rcmsg_progress();
        if (rcmsg_clock_us() > deadline) {
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
    if (pml.match.nmsgs > 0) {
        rcmsg_info("%ld unexpected message(s) were never received", pml.match.nmsgs);
    }
    rcmsg_match_fini(&pml.match, unexp_free, NULL);
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
    free(pml.dead_ctx);
    free(pml.peers);
    free(pml.pending_peers);
    memset(&pml, 0, sizeof(pml));
    return RCMSG_OK;
}

/* ---- the public calls ------------------------------------------------------------------ */

/* Whether a call may start: refused (and why logged) before init, or without the launcher. */
static rcmsg_status_t pml_check(const char *what)
{
    if (pml.world == NULL) {
        rcmsg_error("%s: rcmsg is not initialized (call rcmsg_init first)", what);
        return RCMSG_ERR_NOT_INITIALIZED;
    }
    if (pml.lost_launcher != RCMSG_OK) {
        rcmsg_error("%s: refused: the connection to the launcher (mpirun or srun) was lost, so "
                    "the job is over (%s)",
                    what, rcmsg_status_name(pml.lost_launcher));
        return pml.lost_launcher;
    }
    return RCMSG_OK;
}

/* Whether a buffer of len bytes at buf can exist: no longer than the node's memory, and no
 * wrap past the end of the address space. */
static bool len_valid(const void *buf, size_t len, const char *what)
{
    if (len > pml.max_len || (uintptr_t)buf + len < (uintptr_t)buf) {
        rcmsg_error("%s: a length of %zu bytes at %p is impossible (this node has %zu bytes of "
                    "memory)",
                    what, len, buf, pml.max_len);
        return false;
    }
    return true;
}

/* A NULL out-parameter or handle: refused, and said. */
static rcmsg_status_t null_arg(const char *what, const char *arg)
{
    rcmsg_error("%s: %s is NULL", what, arg);
    return RCMSG_ERR_INVALID_PARAM;
}

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
    if (!len_valid(buf, len, what)) {
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

    s = pml_check("rcmsg_isend");
    if (s != RCMSG_OK) {
        return s;
    }
    if (req_p == NULL) {
        return null_arg("rcmsg_isend", "req_p");
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

    s = pml_check("rcmsg_irecv");
    if (s != RCMSG_OK) {
        return s;
    }
    if (req_p == NULL) {
        return null_arg("rcmsg_irecv", "req_p");
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
        free(u);
    } else if (recv_orphaned(r)) {
        /* from a rank already lost (or ANY_SOURCE with every other rank lost): nothing more
         * can come (what was sent before is matched above), so this fails now instead of
         * waiting forever */
        r->st.source = source;
        r->st.tag = tag;
        req_complete(r, lost_status(r->src_world));
    } else {
        r->mrecv.ctx = r->ctx;
        r->mrecv.src = source;
        r->mrecv.tag = tag;
        s = rcmsg_match_post(&pml.match, &r->mrecv);
        if (s != RCMSG_OK) {
            req_free(r);
            return s;
        }
    }
    *req_p = r;
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_pml_cancel_recv(rcmsg_request_t *req_p)
{
    rcmsg_request_t r = *req_p;

    if (r == NULL || !r->in_use || r->kind != REQ_RECV ||
        !rcmsg_match_cancel(&pml.match, &r->mrecv)) {
        return RCMSG_ERR_STATE; /* matched already (or not a posted receive): wait for it */
    }
    req_free(r);
    *req_p = RCMSG_REQUEST_NULL;
    return RCMSG_OK;
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

    if (pml.world == NULL) {
        return pml_check("rcmsg_wait");
    }
    if (req_p == NULL) {
        return null_arg("rcmsg_wait", "req_p");
    }
    if (*req_p == RCMSG_REQUEST_NULL) {
        empty_status(status);
        return RCMSG_OK;
    }
    if (!req_valid(*req_p, "rcmsg_wait")) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    while (!(*req_p)->complete) {
        if (rcmsg_progress() == 0) {
            pml_idle(&idle);
        } else {
            idle = 0;
        }
    }
    return req_finish(req_p, status);
}

rcmsg_status_t rcmsg_test(rcmsg_request_t *req_p, int *flag_p, rcmsg_msg_status_t *status)
{
    if (pml.world == NULL) {
        return pml_check("rcmsg_test");
    }
    if (req_p == NULL || flag_p == NULL) {
        return null_arg("rcmsg_test", req_p == NULL ? "req_p" : "flag_p");
    }
    if (*req_p == RCMSG_REQUEST_NULL) {
        *flag_p = 1;
        empty_status(status);
        return RCMSG_OK;
    }
    if (!req_valid(*req_p, "rcmsg_test")) {
        return RCMSG_ERR_INVALID_PARAM;
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

    if (pml.world == NULL) {
        return pml_check("rcmsg_testall");
    }
    if ((reqs == NULL && n > 0) || flag_p == NULL) {
        return null_arg("rcmsg_testall", flag_p == NULL ? "flag_p" : "reqs");
    }
    for (size_t i = 0; i < n; i++) {
        if (reqs[i] != RCMSG_REQUEST_NULL && !req_valid(reqs[i], "rcmsg_testall")) {
            return RCMSG_ERR_INVALID_PARAM;
        }
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
        if (reqs[i] != RCMSG_REQUEST_NULL && !reqs[i]->in_use) {
            /* the same handle twice in the array: finished already above */
            rcmsg_error("rcmsg_testall: request %p appears more than once", (void *)reqs[i]);
            s = RCMSG_ERR_INVALID_PARAM;
            reqs[i] = RCMSG_REQUEST_NULL;
        } else if (reqs[i] != RCMSG_REQUEST_NULL) {
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

    if (pml.world == NULL) {
        return pml_check("rcmsg_waitall");
    }
    if (reqs == NULL && n > 0) {
        return null_arg("rcmsg_waitall", "reqs");
    }
    for (size_t i = 0; i < n; i++) {
        if (reqs[i] != RCMSG_REQUEST_NULL && !req_valid(reqs[i], "rcmsg_waitall")) {
            return RCMSG_ERR_INVALID_PARAM;
        }
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

    if (pml.world == NULL) {
        return pml_check("rcmsg_waitany");
    }
    if ((reqs == NULL && n > 0) || index_p == NULL) {
        return null_arg("rcmsg_waitany", index_p == NULL ? "index_p" : "reqs");
    }
    for (size_t i = 0; i < n; i++) {
        if (reqs[i] != RCMSG_REQUEST_NULL && !req_valid(reqs[i], "rcmsg_waitany")) {
            return RCMSG_ERR_INVALID_PARAM;
        }
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
            pml_idle(&idle);
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

    s = pml_check("rcmsg_iprobe");
    if (s != RCMSG_OK) {
        return s;
    }
    if (flag_p == NULL) {
        return null_arg("rcmsg_iprobe", "flag_p");
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
    if (u == NULL && (source != RCMSG_ANY_SOURCE ? pml.peers[comm->world[source]].failed
                                                 : ctx_all_lost(comm->ctx, comm->rank))) {
        /* nothing more can come (probe returns) */
        rcmsg_error("rcmsg_iprobe: %s", source != RCMSG_ANY_SOURCE
                                            ? "the source rank was lost"
                                            : "every other rank of the communicator was lost");
        return lost_status(source != RCMSG_ANY_SOURCE ? comm->world[source] : -1);
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_probe(int source, int tag, rcmsg_comm_t comm, rcmsg_msg_status_t *status)
{
    unsigned idle = 0;
    int flag = 0;
    rcmsg_status_t s;

    while ((s = rcmsg_iprobe(source, tag, comm, &flag, status)) == RCMSG_OK && !flag) {
        pml_idle(&idle);
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

    s = pml_check("rcmsg_sendrecv");
    if (s != RCMSG_OK) {
        return s;
    }
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
    rcmsg_status_t s = pml_check("rcmsg_comm_dup");

    if (s != RCMSG_OK) {
        return s;
    }
    if (newcomm_p == NULL) {
        return null_arg("rcmsg_comm_dup", "newcomm_p");
    }
    if (comm == NULL || !comm_valid(comm)) {
        rcmsg_error("rcmsg_comm_dup: invalid communicator");
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

    s = pml_check("rcmsg_comm_split");
    if (s != RCMSG_OK) {
        return s;
    }
    if (newcomm_p == NULL) {
        return null_arg("rcmsg_comm_split", "newcomm_p");
    }
    if (comm == NULL || !comm_valid(comm)) {
        rcmsg_error("rcmsg_comm_split: invalid communicator");
        return RCMSG_ERR_INVALID_PARAM;
    }
    /* a bad color still takes part in the exchange below, so that every rank refuses the
     * split (naming this one) instead of waiting for it */
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
    for (int i = 0; i < comm->size; i++) {
        if (all[i].rank != i) {
            rcmsg_error("rcmsg_comm_split: rank %d sent a malformed entry", i);
            s = RCMSG_ERR_PEER_DATA;
            goto out;
        }
        if (all[i].color < 0 && all[i].color != RCMSG_UNDEFINED) {
            rcmsg_error("rcmsg_comm_split refused: rank %d of the communicator gave color %d "
                        "(colors are >= 0, or RCMSG_UNDEFINED)",
                        i, all[i].color);
            s = RCMSG_ERR_INVALID_PARAM;
        }
    }
    if (s != RCMSG_OK || color == RCMSG_UNDEFINED) {
        goto out;
    }
    for (int i = 0; i < comm->size; i++) {
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
    rcmsg_status_t s = pml.world == NULL ? pml_check("rcmsg_comm_free") : RCMSG_OK;

    if (s != RCMSG_OK) {
        return s;
    }
    if (comm_p == NULL) {
        return null_arg("rcmsg_comm_free", "comm_p");
    }
    if (*comm_p == NULL || !comm_valid(*comm_p) || *comm_p == pml.world) {
        rcmsg_error("rcmsg_comm_free: %s", *comm_p == pml.world && *comm_p != NULL
                                               ? "the world communicator cannot be freed"
                                               : "invalid communicator");
        return RCMSG_ERR_INVALID_PARAM;
    }
    s = ctx_bury((*comm_p)->ctx);
    if (s != RCMSG_OK) {
        return s;
    }
    comm_destroy(*comm_p);
    *comm_p = RCMSG_COMM_NULL;
    return RCMSG_OK;
}
