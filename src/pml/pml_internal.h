/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pml's internal state and the functions its files share (pml.c, pml_req.c, pml_send.c,
 * pml_recv.c, pml_liveness.c, pml_comm.c, pml_p2p.c, pml_cancel.c); not part of any interface.
 */
#ifndef RCMSG_PML_INTERNAL_H
#define RCMSG_PML_INTERNAL_H

#include "pml.h"
#include "pml_match.h"
#include "base/clock.h"
#include "base/config_vars.h"
#include "base/log.h"
#include "base/queue.h"
#include "base/rcache.h"
#include "base/stats.h"
#include "btl/btl.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PML_REQ_CHUNK     256
#define PML_MAX_READS     RCMSG_RNDV_READS_MAX /* descs[]: one per read in flight */
#define PML_TAG_SPLIT     0x7ffffff0           /* internal tag in the collective space */
#define PML_TAG_AGREE     (-2)  /* internal tag in the point-to-point space (never ANY_TAG's) */
#define PML_CTX_IDS       16384 /* communicator context ids per process (pml_ctx.c) */
#define PML_CTX_WORDS     (PML_CTX_IDS / 64)
#define PML_CREDIT_ROUNDS 64    /* progress rounds a send out of credits waits for them */
#define PML_WATCH_CALLS   256   /* progress calls between two looks at the liveness clock */
#define PML_WATCH_US      10000 /* and at least this long between two looks at the launcher */
#define PML_ORPHANS_MAX   65536 /* unexpected headers a peer may leave for unknown contexts */
#define PML_FINI_POLLS    1024  /* finalize reads what the transports hold: at most so many polls */
#define PML_DROPPED_MAX   65536 /* discarded eager messages of a peer remembered for a CANCEL */

/* REQ_OWNED: a request a layer above completes (a collective schedule: rcmsg_pml_req_owned). */
typedef enum { REQ_SEND, REQ_RECV, REQ_OWNED } req_kind_t;

struct rcmsg_request {
    /* Cleared by req_alloc for every request: what eager messages use. */
    rcmsg_queue_link_t link; /* the free list or a peer's send queue */
    req_kind_t kind;
    bool complete;    /* done for wait and test: finished, and no cancel answer awaited */
    bool finished;    /* the operation itself is over (an eager send: on the wire) */
    bool cancel_wait; /* a CANCEL is out to the receiver: its answer is awaited (pml_cancel.c) */
    bool cancelled;   /* cancelled: taken back unmatched (status.cancelled) */
    bool sent;        /* send: its EAGER or RTS is on the wire, with sequence number seq */
    bool in_use;
    bool queued; /* a send still in its peer's send queue */
    bool truncated;
    bool cancel_asked; /* send: a CANCEL went out for it (answered or not) */
    bool refused;      /* send: its receiver discarded it unmatched (a FIN said so): a cancel
                          of it takes */
    bool rndv;         /* a rendezvous: the fields below the line are set up (req_rndv_begin) */
    uint32_t gen;      /* bumped at every allocation: names the request in FINs */
    uint32_t index;    /* position in the request chunks */
    uint32_t seq;      /* send (sent): the sequence number its EAGER or RTS went with */
    int credit_rounds; /* send: tries that found no eager credit */
    uint32_t ctx;
    int my_rank;   /* this rank in the request's communicator (kept: the comm may be freed) */
    int peer;      /* send: destination world rank; recv: matched sender's world rank */
    int src;       /* recv: requested source (comm rank or ANY) */
    int src_world; /* recv: requested source as a world rank, or -1 for ANY */
    int tag;
    void *buf;
    size_t len;
    rcmsg_msg_status_t st;
    rcmsg_match_recv_t mrecv;  /* recv: in the matching queues until matched */
    rcmsg_rcache_entry_t *reg; /* registration held until completion */
    /* Rendezvous only: left as they are by req_alloc, cleared by req_rndv_begin. */
    rcmsg_queue_link_t rndv_link; /* pml.rndv_active */
    const rcmsg_btl_mem_t *mem;
    uint64_t raddr;
    uint32_t rkey;
    uint64_t sreq;
    size_t msg_len, posted, done;
    int reads_out;
    bool reread;      /* its connection broke: read the whole message again (on_peer_broke) */
    unsigned rereads; /* times it was read again */
    rcmsg_btl_desc_t descs[PML_MAX_READS];
};
RCMSG_STATIC_ASSERT(RCMSG_ARRAY_SIZE(((struct rcmsg_request *)NULL)->descs) >= RCMSG_RNDV_READS_MAX,
                    "a rendezvous request has a descriptor for each read RCMSG_RNDV_READS allows");

typedef struct pml_unexp {
    rcmsg_match_msg_t m;
    rcmsg_pml_rts_t h; /* header (and RTS fields) */
    int peer;          /* world rank of the sender */
    bool orphan;       /* for a context with no communicator yet: sender not yet checked */
    char *data;        /* eager payload (h.hdr.len bytes) */
} pml_unexp_t;

/* Sequence numbers of a peer's eager messages discarded here unreceived (pml_cancel.c): a
 * CANCEL of one is answered 'taken back'. */
typedef struct {
    uint32_t *v;
    int n, cap;
} pml_seqs_t;

typedef struct {
    rcmsg_btl_t *btl;
    uint64_t *stat;     /* the peer's counters (rcmsg_stats_row) */
    size_t max_inline;  /* btl's: eager messages up to this (with the header) go inline */
    size_t eager_limit; /* payloads up to this go eagerly (pml_eager_limit of its btl) */
    uint32_t send_seq, recv_seq;
    int credits;          /* eager sends still allowed to this peer */
    int owed;             /* credits to return to this peer */
    rcmsg_queue_t sendq;  /* sends waiting for credit or room, in order (link) */
    rcmsg_pml_rts_t *ctl; /* control messages to send (FIN, BREAK), a growable stack */
    int nctl, capctl;
    bool pending; /* in the pending-peers list */
    bool bye;     /* finalize after a loss: its BYE came (it flushed; it may exit now) */
    bool failed;
    rcmsg_status_t why;   /* failed: the status its requests fail with */
    rcmsg_status_t gone;  /* lost (failed, or a BREAK said so): what collectives with it fail
                             with; RCMSG_OK while it is not known lost */
    bool reported;        /* its loss came from the launcher, which tells every rank */
    long orphans;         /* unexpected headers held for contexts with no communicator */
    pml_seqs_t dropped;   /* its eager messages discarded unreceived (a CANCEL may name one) */
    uint32_t heard;       /* messages received (liveness: changed since the last look?) */
    uint32_t heard_seen;  /* heard at the last liveness look */
    uint64_t probe_epoch; /* liveness round in which this peer was last probed */
} pml_peer_t;

typedef struct {
    rcmsg_wireup_t *w;
    int rank, size;
    pml_peer_t *peers;
    int *pending_peers, npending;
    struct rcmsg_comm *world;
    rcmsg_hash_t comms;           /* every live communicator, by ctx */
    rcmsg_hash_t comm_addrs;      /* the same, by address (comm_valid) */
    struct rcmsg_comm *last_comm; /* comm_of_ctx's last find */
    /* the configuration, read once by rcmsg_pml_init (pml_config_read) */
    size_t eager_limit; /* RCMSG_EAGER_LIMIT: for transports without their own */
    int credits;
    size_t chunk;
    int max_reads;
    uint64_t drain_timeout_us;
    rcmsg_queue_t free_reqs; /* FIFO (link): a stale handle stays stale longest */
    void **req_chunks;
    int nreq_chunks;
    long live_reqs;
    rcmsg_match_t match; /* posted receives and unexpected messages */
    long unexp_peak;
    size_t unexp_bytes, unexp_bytes_peak; /* eager payload held as unexpected */
    rcmsg_queue_t rndv_active;            /* rendezvous receives reading their data (rndv_link) */
    bool any_failed; /* a peer was lost: finalize must not wait for every rank */
    bool finalizing; /* in rcmsg_pml_fini: every EAGER or RTS that comes is refused (on_msg) */
    size_t max_len;  /* the node's memory: no buffer is longer */
    rcmsg_status_t lost_launcher; /* RCMSG_ERR_LAUNCHER once the launcher is gone */
    bool credit_wait; /* a send waits a few rounds for credits (progress counts it as work) */
    struct rcmsg_request *waiting; /* the request rcmsg_wait waits for (on_recv's return) */
    unsigned watch_calls;
    uint64_t watch_due_us;       /* the next look at the launcher (coarse clock, pml_watch) */
    rcmsg_deadline_t watch_next; /* the next liveness probe (coarse clock) */
    uint64_t watch_interval_us, watch_epoch;
    uint64_t bye_timeout_us; /* RCMSG_LAUNCHER_TIMEOUT: finalize's parting after a loss */
    /* the stall dump (pml_dump.c) */
    uint64_t activity;       /* bumped by every message received and request completed */
    uint64_t stall_activity; /* activity (and the progress hooks' counts) at the last stall check */
    uint64_t stall_since_us; /* when the last check saw it change (coarse clock) */
    uint64_t stall_us;       /* RCMSG_STALL_TIMEOUT; 0: off */
    bool stall_dumped;       /* this stall was dumped already */
} pml_state_t;

extern pml_state_t pml;

/* Small and on the hot path of both sides: inline. */
static inline void peer_mark_pending(int peer)
{
    if (!pml.peers[peer].pending) {
        pml.peers[peer].pending = true;
        pml.pending_peers[pml.npending++] = peer;
    }
}

/* Whether enough credits are owed to peer to return them (half of them, in one message). */
static inline bool credits_due(const pml_peer_t *p)
{
    return p->owed >= (pml.credits + 1) / 2;
}

/* pml.c */
rcmsg_status_t pml_mem_get(rcmsg_btl_t *btl, rcmsg_request_t r, void *buf, size_t len,
                           bool remote_read);

/* pml_req.c */
rcmsg_request_t req_grow(void);
rcmsg_request_t req_at(uint32_t index);
void req_complete(rcmsg_request_t r, rcmsg_status_t error);

/* pml_send.c */
rcmsg_status_t rndv_prepare(rcmsg_request_t r);
rcmsg_status_t send_start(rcmsg_request_t r);
rcmsg_status_t send_now(int peer, uint32_t ctx, int src, int tag, const void *buf, size_t len);
void sendq_push(pml_peer_t *p, rcmsg_request_t r);
int peer_push(int peer);
bool peer_has_work(const pml_peer_t *p);
rcmsg_status_t queue_fin(int peer, uint64_t sreq, rcmsg_status_t status);
/* Sends a BYE to peer now (pml.h): RCMSG_ERR_NO_RESOURCE when the transport is full. */
rcmsg_status_t bye_xmit(int peer);
/* Queues control message h (FIN, BREAK) to peer; RCMSG_ERR_CONNECTION when peer is lost. */
rcmsg_status_t queue_ctl(int peer, const rcmsg_pml_rts_t *h);

/* pml_recv.c */
/* A peer sent what no correct rank sends: it is treated as lost (RCMSG_ERR_PEER_DATA). */
void peer_bad(int peer, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An unexpected message is gone unreceived (taken back or refused): its memory counted off. */
void unexp_forget(pml_unexp_t *u);
void recv_matched(rcmsg_request_t r, const rcmsg_pml_rts_t *h, int peer, const void *data);
pml_unexp_t *unexp_find(uint32_t ctx, int src, int tag, bool take);
bool src_check(int peer, const struct rcmsg_comm *c, const rcmsg_pml_hdr_t *h);
void msg_refuse(int peer, const rcmsg_pml_rts_t *h, const char *why, rcmsg_log_level_t level,
                rcmsg_status_t status);
/* Refuses (msg_refuse) every unreceived message of context ctx; returns how many. */
long unexp_refuse(uint32_t ctx, const char *why, rcmsg_status_t status);
bool on_recv(void *arg, int peer, const void *data, size_t len);
bool ctx_all_lost(uint32_t ctx, int my_rank);
rcmsg_status_t recv_lost(const struct rcmsg_request *r, const struct rcmsg_comm *c);
rcmsg_status_t lost_status(int peer);
/* cause: why, in words (for the event callback), or NULL */
void on_peer_failed(void *arg, int peer, rcmsg_status_t status, const char *cause);
/* The transport's broke_cb: every rendezvous receive from peer still reading is read again
 * from its first byte once its reads in flight are done (rndv_step). */
void on_peer_broke(void *arg, int peer);
bool rndv_step(rcmsg_request_t r);

/* pml_liveness.c */
void on_rank_lost(void *arg, int rank);
void launcher_lost(rcmsg_status_t status);
void pml_idle(unsigned *idle);
int pml_progress(void *arg);

/* pml_dump.c */
void pml_dump_init(void);
void pml_dump(const char *why);
void pml_stall_check(void);

/* pml_ctx.c: the context ids (the rule for reusing one is at the top of the file) */
typedef struct {
    int32_t color, key, rank; /* a split's entry; rank: the sender's rank in the parent */
} pml_agree_entry_t;
rcmsg_status_t pml_ctx_init(void);
void pml_ctx_fini(void);
/* Whether ctx (either space) is the context of a communicator freed here, whose late messages
 * are refused. */
bool ctx_dead(uint32_t ctx);
/* ctx becomes live (comm_create), or dead (c is freed: c->world is taken over). */
void pml_ctx_take(uint32_t ctx);
void pml_ctx_bury(struct rcmsg_comm *c);
/* The agreement on a new context among the n ranks of comm listed in ranks (comm ranks, the
 * same list in the same order everywhere, this rank among them; NULL: every rank of comm), in
 * comm's collective space (coll) or its point-to-point space (internal tag): each sends mine
 * to every other, all_p (NULL, or n entries) gets them in the order of ranks, and *ctx_p the
 * lowest context free on all. RCMSG_ERR_NO_RESOURCE when none is (the limit is logged). */
rcmsg_status_t ctx_agree(const char *what, rcmsg_comm_t comm, bool coll, const int *ranks, int n,
                         pml_agree_entry_t mine, pml_agree_entry_t *all_p, uint32_t *ctx_p);

/* pml_comm.c */
struct rcmsg_comm *comm_of_ctx(uint32_t ctx);
rcmsg_status_t comm_create(uint32_t ctx, int size, int rank, const int *world,
                           rcmsg_comm_t *comm_p);
/* World rank peer is lost with status: every communicator with it among its members breaks
 * (comm_break); unless told by world rank reporter (-1: this rank saw it), the launcher
 * reported it, or it is this rank, their other members are told (BREAK). */
void comms_break(int peer, rcmsg_status_t status, int reporter);
void comm_destroy(rcmsg_comm_t c);
/* Whether comm is a live communicator; comm_valid_walk() looks its address up. */
bool comm_valid_walk(rcmsg_comm_t comm);
static inline bool comm_valid(rcmsg_comm_t comm)
{
    if (comm == pml.world) {
        return comm != NULL; /* the common case, without a walk (inline: every call asks) */
    }
    return comm_valid_walk(comm);
}

/* pml_cancel.c */
/* A CANCEL from peer (h: the message to take back, the sender's request id) and its answer. */
void on_cancel(int peer, const rcmsg_pml_rts_t *h);
void on_cancel_ack(int peer, const rcmsg_pml_rts_t *h);
/* peer is lost: every send to it that awaits a cancel answer completes with status. */
void cancel_peer_failed(int peer, rcmsg_status_t status);
/* r's receiver refused it (a FIN marked PML_FIN_REFUSED) after answering its CANCEL: r is
 * cancelled (it was never received). */
void cancel_refused(rcmsg_request_t r);
/* The record of eager messages discarded unreceived: seq added (bounded: the oldest go past
 * PML_DROPPED_MAX); whether seq is in it (then taken out). */
void seqs_add(pml_seqs_t *s, uint32_t seq);
bool seqs_take(pml_seqs_t *s, uint32_t seq);

/* pml_fini_recv.c */
/* The last step of rcmsg_pml_fini before it releases the pml: the transports' callbacks
 * become the finalize-time ones, which answer until the closing barrier ends. */
void pml_fini_recv_begin(void);

/* pml_p2p.c */
rcmsg_status_t pml_check(const char *what);
/* rcmsg_pml_isend and rcmsg_pml_irecv with an internal tag (PML_TAG_AGREE) allowed. */
rcmsg_status_t pml_agree_isend(const void *buf, size_t len, int dest, int tag, rcmsg_comm_t comm,
                               bool coll, rcmsg_request_t *req_p);
rcmsg_status_t pml_agree_irecv(void *buf, size_t len, int source, int tag, rcmsg_comm_t comm,
                               bool coll, rcmsg_request_t *req_p);
rcmsg_status_t null_arg(const char *what, const char *arg);

/* A request off the free list (FIFO: a stale handle stays stale longest), its eager part
 * cleared; NULL without memory. Inline: every message takes one. */
static inline rcmsg_request_t req_alloc(req_kind_t kind)
{
    rcmsg_queue_link_t *l = rcmsg_queue_pop_head(&pml.free_reqs);
    rcmsg_request_t r;
    uint32_t index, gen;

    if (l == NULL) {
        if (req_grow() == NULL) {
            return NULL;
        }
        l = rcmsg_queue_pop_head(&pml.free_reqs);
    }
    r = RCMSG_CONTAINER_OF(l, struct rcmsg_request, link);
    index = r->index;
    gen = r->gen + 1;
    memset(r, 0, offsetof(struct rcmsg_request, rndv_link));
    r->index = index;
    r->gen = gen;
    r->kind = kind;
    r->in_use = true;
    pml.live_reqs++;
    pml.activity++; /* a new request: a stall is counted from here */
    return r;
}

/* Back to the free list (once: a request already free is left alone). */
static inline void req_free(rcmsg_request_t r)
{
    if (!r->in_use) {
        return;
    }
    r->in_use = false;
    rcmsg_queue_push_tail(&pml.free_reqs, &r->link);
    pml.live_reqs--;
}

/* Makes r a rendezvous: its rendezvous fields cleared (req_alloc leaves them). */
static inline void req_rndv_begin(rcmsg_request_t r)
{
    memset(&r->rndv_link, 0, sizeof(*r) - offsetof(struct rcmsg_request, rndv_link));
    r->rndv = true;
}

#endif /* RCMSG_PML_INTERNAL_H */
