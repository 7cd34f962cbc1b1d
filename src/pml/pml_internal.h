/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pml's internal state and the functions its files share (pml.c, pml_req.c, pml_send.c,
 * pml_recv.c, pml_liveness.c, pml_comm.c, pml_p2p.c, pml_cancel.c); not part of any interface.
 */
#ifndef RCMSG_PML_INTERNAL_H
#define RCMSG_PML_INTERNAL_H

#include "pml_types.h"
#include "pml_handle.h"

typedef struct {
    rcmsg_wireup_t *w;
    int rank, size;
    pml_peer_t *peers;
    int *pending_peers, npending;
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
    struct rcmsg_request *waiting; /* the request rcmsg_wait waits for (pml_on_recv's return) */
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
static inline void pml_peer_mark_pending(int peer)
{
    if (!pml.peers[peer].pending) {
        pml.peers[peer].pending = true;
        pml.pending_peers[pml.npending++] = peer;
    }
}

/* Whether enough credits are owed to peer to return them (half of them, in one message). */
static inline bool pml_credits_due(const pml_peer_t *p)
{
    return p->owed >= (pml.credits + 1) / 2;
}

/* pml.c */
rcmsg_status_t pml_mem_get(rcmsg_btl_t *btl, rcmsg_request_t r, void *buf, size_t len,
                           bool remote_read);

/* pml_base.c */
/* A peer is lost (pml_on_peer_failed, pml_fail.c): the files below pml_fail.c call up through
 * this hook, which init sets, as the transports call their fail_cb. */
typedef void (*pml_peer_fail_t)(void *arg, int peer, rcmsg_status_t status, const char *cause);
void pml_set_peer_fail(pml_peer_fail_t fail);
void pml_peer_fail(int peer, rcmsg_status_t status, const char *cause);

/* pml_req.c */
typedef void (*pml_idle_t)(unsigned *idle);
void pml_req_set_idle(pml_idle_t idle);
rcmsg_request_t pml_req_grow(void);
rcmsg_request_t pml_req_at(uint32_t index);
void pml_req_complete(rcmsg_request_t r, rcmsg_status_t error);

/* pml_send.c */
rcmsg_status_t pml_rndv_prepare(rcmsg_request_t r);
rcmsg_status_t pml_send_start(rcmsg_request_t r);
rcmsg_status_t pml_send_now(int peer, uint32_t ctx, int src, int tag, const void *buf, size_t len);
void pml_sendq_push(pml_peer_t *p, rcmsg_request_t r);
int pml_peer_push(int peer);
bool pml_peer_has_work(const pml_peer_t *p);
rcmsg_status_t pml_queue_fin(int peer, uint64_t sreq, rcmsg_status_t status);
/* Sends a BYE to peer now (pml.h): RCMSG_ERR_NO_RESOURCE when the transport is full. */
rcmsg_status_t pml_bye_xmit(int peer);
/* Queues control message h (FIN, BREAK) to peer; RCMSG_ERR_CONNECTION when peer is lost. */
rcmsg_status_t pml_queue_ctl(int peer, const rcmsg_pml_rts_t *h);

/* pml_recv.c */
/* A peer sent what no correct rank sends: it is treated as lost (RCMSG_ERR_PEER_DATA). */
void pml_peer_bad(int peer, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An unexpected message is gone unreceived (taken back or refused): its memory counted off. */
void pml_unexp_forget(pml_unexp_t *u);
void pml_unexp_push(const rcmsg_pml_rts_t *h, size_t hlen, int peer, const void *data, bool orphan);
/* Every posted receive that can no longer be matched (its source lost) fails. */
void pml_recv_fail_orphans(void);
void pml_recv_matched(rcmsg_request_t r, const rcmsg_pml_rts_t *h, int peer, const void *data);
pml_unexp_t *pml_unexp_find(uint32_t ctx, int src, int tag, bool take);
bool pml_src_check(int peer, const struct rcmsg_comm *c, const rcmsg_pml_hdr_t *h);
void pml_msg_refuse(int peer, const rcmsg_pml_rts_t *h, const char *why, rcmsg_log_level_t level,
                    rcmsg_status_t status);
/* Refuses (pml_msg_refuse) every unreceived message of context ctx; returns how many. */
long pml_unexp_refuse(uint32_t ctx, const char *why, rcmsg_status_t status);
bool pml_on_recv(void *arg, int peer, const void *data, size_t len);
bool pml_ctx_all_lost(uint32_t ctx, int my_rank);
rcmsg_status_t pml_recv_lost(const struct rcmsg_request *r, const struct rcmsg_comm *c);
rcmsg_status_t pml_lost_status(int peer);
/* cause: why, in words (for the event callback), or NULL */
void pml_on_peer_failed(void *arg, int peer, rcmsg_status_t status, const char *cause);
/* The transport's broke_cb: every rendezvous receive from peer still reading is read again
 * from its first byte once its reads in flight are done (pml_rndv_step). */
void pml_on_peer_broke(void *arg, int peer);
bool pml_rndv_step(rcmsg_request_t r);

/* pml_liveness.c */
void pml_on_rank_lost(void *arg, int rank);
void pml_launcher_lost(rcmsg_status_t status);
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
bool pml_ctx_dead(uint32_t ctx);
/* ctx becomes live (pml_comm_create), or dead (c is freed: c->world is taken over). */
void pml_ctx_take(uint32_t ctx);
void pml_ctx_bury(struct rcmsg_comm *c);
/* The agreement on a new context among the n ranks of comm listed in ranks (comm ranks, the
 * same list in the same order everywhere, this rank among them; NULL: every rank of comm), in
 * comm's collective space (coll) or its point-to-point space (internal tag): each sends mine
 * to every other, all_p (NULL, or n entries) gets them in the order of ranks, and *ctx_p the
 * lowest context free on all. RCMSG_ERR_NO_RESOURCE when none is (the limit is logged). */
rcmsg_status_t pml_ctx_agree(const char *what, rcmsg_comm_t comm, bool coll, const int *ranks,
                             int n, pml_agree_entry_t mine, pml_agree_entry_t *all_p,
                             uint32_t *ctx_p);

/* pml_comm.c */
rcmsg_status_t pml_comm_create(uint32_t ctx, int size, int rank, const int *world,
                               rcmsg_comm_t *comm_p);
/* World rank peer is lost with status: every communicator with it among its members breaks
 * (comm_break); unless told by world rank reporter (-1: this rank saw it), the launcher
 * reported it, or it is this rank, their other members are told (BREAK). */
void pml_comms_break(int peer, rcmsg_status_t status, int reporter);
void pml_comm_break(struct rcmsg_comm *c, int peer, rcmsg_status_t status, int reporter);
void pml_comm_destroy(rcmsg_comm_t c);

/* pml_cancel.c */
/* A CANCEL from peer (h: the message to take back, the sender's request id) and its answer. */
void pml_on_cancel(int peer, const rcmsg_pml_rts_t *h);
void pml_on_cancel_ack(int peer, const rcmsg_pml_rts_t *h);
/* peer is lost: every send to it that awaits a cancel answer completes with status. */
void pml_cancel_peer_failed(int peer, rcmsg_status_t status);
/* r's receiver refused it (a FIN marked PML_FIN_REFUSED) after answering its CANCEL: r is
 * cancelled (it was never received). */
void pml_cancel_refused(rcmsg_request_t r);
/* The record of eager messages discarded unreceived: seq added (bounded: the oldest go past
 * PML_DROPPED_MAX); whether seq is in it (then taken out). */
void pml_seqs_add(pml_seqs_t *s, uint32_t seq);
bool pml_seqs_take(pml_seqs_t *s, uint32_t seq);

/* pml_fini_recv.c */
/* The last step of rcmsg_pml_fini before it releases the pml: the transports' callbacks
 * become the finalize-time ones, which answer until the closing barrier ends. */
void pml_fini_recv_begin(void);

/* pml_p2p.c */
rcmsg_status_t pml_check(const char *what);
rcmsg_status_t pml_null_arg(const char *what, const char *arg);
rcmsg_status_t pml_check_args_slow(const char *what, const void *out_p, const char *out,
                                   const void *buf, size_t len, rcmsg_comm_t comm, int peer,
                                   bool any_ok, int tag);
static inline rcmsg_status_t pml_check_args(const char *what, const void *out_p, const char *out,
                                            const void *buf, size_t len, rcmsg_comm_t comm,
                                            int peer, bool any_ok, int tag)
{
    if (pml.lost_launcher == RCMSG_OK && (out == NULL || out_p != NULL) && pml_comm_valid(comm) &&
        (buf != NULL || len == 0) && len <= pml.max_len && (uintptr_t)buf + len >= (uintptr_t)buf &&
        peer >= 0 && peer < comm->size && tag >= 0) {
        return RCMSG_OK; /* a live communicator (the handle table: O(1)), a named peer and tag:
                            every check passed */
    }
    return pml_check_args_slow(what, out_p, out, buf, len, comm, peer, any_ok, tag);
}

/* A request off the free list (FIFO: a stale handle stays stale longest), its eager part
 * cleared; NULL without memory. Inline: every message takes one. */
static inline rcmsg_request_t pml_req_alloc(pml_req_kind_t kind)
{
    rcmsg_queue_link_t *l = rcmsg_queue_pop_head(&pml.free_reqs);
    rcmsg_request_t r;
    uint32_t index, gen;

    if (l == NULL) {
        if (pml_req_grow() == NULL) {
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
static inline void pml_req_free(rcmsg_request_t r)
{
    if (!r->in_use) {
        return;
    }
    r->in_use = false;
    rcmsg_queue_push_tail(&pml.free_reqs, &r->link);
    pml.live_reqs--;
}

/* Makes r a rendezvous: its rendezvous fields cleared (pml_req_alloc leaves them). */
static inline void pml_req_rndv_begin(rcmsg_request_t r)
{
    memset(&r->rndv_link, 0, sizeof(*r) - offsetof(struct rcmsg_request, rndv_link));
    r->rndv = true;
}

#endif /* RCMSG_PML_INTERNAL_H */
