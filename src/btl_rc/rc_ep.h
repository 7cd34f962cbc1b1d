/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc endpoints: one per peer rank, with its RC QP embedded. Work requests are posted
 * here (send, get, flush, ping) and a peer is failed here; the QP is connected (INIT -> RTR ->
 * RTS) through the CM by rc_conn.c.
 *
 * Send budget and selective signaling: see rc_btl.c. Each endpoint keeps its outstanding
 * requests in post order in a ring; a completion for request w frees w and every request
 * posted before it on the QP.
 */
#ifndef RCMSG_BTL_RC_EP_H
#define RCMSG_BTL_RC_EP_H

#include "rc_qp.h"

#include "base/queue.h"
#include "btl/btl.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* The message types come first (rc_wr_is_msg): they take the pair's sequence numbers. */
typedef enum {
    RC_WR_SEND,
    RC_WR_SEND_INLINE,
    RC_WR_FAST,        /* eager over RDMA WRITE into the peer's ring, from a bounce buffer */
    RC_WR_FAST_INLINE, /* the same, inline */
    RC_WR_GET,
    RC_WR_PUT,        /* one-sided RDMA_WRITE from a registered buffer (src/osc) */
    RC_WR_PUT_INLINE, /* the same, inline (its bytes kept for a replay in rc->inl_copy) */
    RC_WR_ATOMIC,     /* one-sided ATOMIC_FETCH_AND_ADD or ATOMIC_CMP_AND_SWP: never replayed */
    RC_WR_FLUSH,
    RC_WR_CTL,       /* a SEND of rc's own (rc_fast.c: ask, offer, credit): no sequence number */
    RC_WR_TYPE_COUNT /* not a type: the number of them */
} rc_wr_type_t;

/* A message of the layer above: it takes a sequence number (ep->sent) and is replayed. */
static inline bool rc_wr_is_msg(rc_wr_type_t type)
{
    return type <= RC_WR_FAST_INLINE;
}

/* A posted work request; its wr_id is its slot's index and generation (rc_wr_id). It keeps what
 * posting it again needs (rc_rec.c replays it after a recovery): the bounce buffer or the inline
 * copy of a send, the addresses and keys of a read. */
typedef struct rc_wr {
    rcmsg_queue_link_t free_link; /* in rc->wr_free while the slot is free */
    uint32_t gen; /* bumped at each post: a completion naming another generation is stale */
    rc_wr_type_t type;
    bool signaled;
    bool counted; /* posted signaled and not yet released: one of rc->nsignaled */
    bool held;    /* a read completed but not yet trusted (rc_ep_hold_read) */
    int peer;
    int sbuf; /* bounce buffer index, or -1 */
    uint32_t len;
    uint64_t seq;           /* sends: the pair's sequence number (ep->sent when posted) */
    rcmsg_btl_desc_t *desc; /* gets, puts and atomics, with their local and remote ends: */
    void *local;
    uint64_t raddr;
    uint32_t lkey, rkey;
    uint64_t operand, compare; /* atomics: the add or swap value, the compare value */
    rcmsg_btl_atomic_t aop;
} rc_wr_t;

/* Recovery of a connection (rc_rec.c): none, draining the broken QP's completions, or
 * reconnecting through the CM (the QP reset or re-created, the requests kept for replay). */
typedef enum { RC_REC_NONE, RC_REC_DRAIN, RC_REC_CONNECT } rc_rec_state_t;

/* What broke a connection, for the recovery's log line. */
typedef enum {
    RC_CAUSE_WC,     /* a completion error: code = enum ibv_wc_status, vendor = vendor_err */
    RC_CAUSE_EVENT,  /* an async event: code = enum ibv_event_type */
    RC_CAUSE_HOOK,   /* rcmsg_rc_btl_force_error */
    RC_CAUSE_PEER,   /* the peer reconnects: its side broke */
    RC_CAUSE_POST,   /* ibv_post_send refused: the QP was found in ERR behind its mirror */
    RC_CAUSE_SYNC,   /* the periodic sync found the QP in another state: code = the state */
    RC_CAUSE_STUCK,  /* the periodic sync found no completion beyond the retry bound: code = s */
    RC_CAUSE_PROBED, /* a SEND with no completion though the peer, probed, had posted its
                        receive buffers (not a receive-not-ready wait): code = s */
    RC_CAUSE_PAIRED, /* the probed peer's qp is not the one this QP sends to: code = the peer's
                        qpn, vendor = this QP's destination qpn */
} rc_cause_kind_t;

typedef struct {
    rc_cause_kind_t kind;
    int code;
    uint32_t vendor;
} rc_cause_t;

/* An endpoint's recovery state (rc_rec.c). */
typedef struct {
    rc_rec_state_t state;
    bool severe;         /* the QP is re-created rather than reset */
    rc_wr_t *drain_last; /* the newest request when the QP broke; NULL once its CQE came */
    rc_cause_t cause;
    uint32_t old_qpn, sq_psn, rq_psn; /* the broken QP's number and PSNs (ibv_query_qp) */
    uint64_t t0, deadline;            /* when it broke; when it fails unless reconnected */
    unsigned run;                     /* recoveries in a row without a completion between */
    uint64_t run_t0;                  /* when the first of them began */
    uint64_t count;                   /* recoveries completed (rcmsg_rc_btl_recoveries) */
    uint64_t breaks;                  /* recoveries started (rcmsg_rc_btl_breaks) */
    bool retry; /* the reconnect failed here, in a QP transition: try again with a new QP */
    const char *refused; /* why rc_rec_connected refused a connect (the peer fails with it) */
} rc_rec_t;

/* Eager over RDMA WRITE with one peer (rc_fast.c). rx: the ring this rank registered for the
 * peer to write (buf NULL: none); tx: the peer's ring this rank writes. */
typedef enum { RC_FAST_NONE, RC_FAST_ASKED, RC_FAST_ACTIVE, RC_FAST_REFUSED } rc_fast_state_t;

typedef struct {
    struct {
        char *buf;
        struct ibv_mr *mr; /* covers exactly buf: its rkey is given to this peer only */
        uint32_t nslots, slot_size;
        uint64_t consumed; /* messages delivered from it */
        uint64_t returned; /* consumed as last told to the peer */
        bool offer_pending;
        int idx; /* in rc->fast_rx */
    } rx;
    struct {
        rc_fast_state_t state;
        uint64_t raddr;
        uint32_t rkey, nslots, slot_size;
        unsigned mtu_shift;      /* log2 of the path MTU in bytes (0: unknown) */
        uint64_t written, freed; /* slots written; slots the peer gave back */
    } tx;
    uint32_t count; /* messages sent to the peer while tx.state is NONE (the threshold) */
} rc_fast_t;

/*
 * The endpoint to one peer. qp.qp is NULL while the peer holds no QP (ourselves, a peer not
 * connected yet, or disconnected): a QP and its ring come from the pool (rc_pool.c) for a
 * connection and go back to it when the connection is recycled.
 */
typedef struct rc_ep {
    rcmsg_rc_qp_t qp;
    uint32_t sq_psn;
    uint32_t path_mtu; /* bytes, of the connection (set at RTS) */
    rc_wr_t **ring;    /* outstanding requests in post order (with the QP) */
    unsigned ring_head, ring_count;
    unsigned unsignaled; /* posted since the last signaled request */
    bool connected;      /* RTS and the CM connected: requests may be posted */
    bool cm_added;       /* given to connect: the CM has its address */
    bool failed;
    bool disconnecting;     /* our DREQ is out (rc_conn.c) */
    int active_idx;         /* index in rc->active while the peer holds a QP */
    uint64_t last_use;      /* rc->use_tick at the last post or receive (LRU) */
    uint64_t sent, recvd;   /* SENDs posted to / received from the peer, over every connection */
    uint64_t t_start;       /* when the current connect or disconnect began */
    rc_rec_t rec;           /* recovery from a QP error (rc_rec.c) */
    rc_fast_t fast;         /* eager over RDMA WRITE (rc_fast.c) */
    atomic_int async_event; /* set by the async thread: event type + 1 */
    int post_err;           /* ibv_post_send's error on a QP found in ERR: progress recovers it */
} rc_ep_t;

struct rc_btl;

const char *rc_wr_type_name(rc_wr_type_t type);

/* Take a slot for a new request on ep, or NULL when the QP or the budget is full; post it. */
rc_wr_t *rc_wr_take(struct rc_btl *rc, rc_ep_t *ep, rc_wr_type_t type, int peer);
rcmsg_status_t rc_post(struct rc_btl *rc, rc_ep_t *ep, rc_wr_t *wr, struct ibv_send_wr *swr);

/* Returns a request slot (and its bounce buffer) to the pools. */
void rc_wr_put(struct rc_btl *rc, rc_wr_t *wr);
/* The same, once its read, if any, completed with status (a request out of every ring). */
void rc_wr_release(struct rc_btl *rc, rc_wr_t *wr, rcmsg_status_t status);

/* Completion known for `last` on its QP: release it and every request posted before it. */
int rc_ep_complete_upto(struct rc_btl *rc, rc_ep_t *ep, rc_wr_t *last, rcmsg_status_t status);
/* A read wr completed on ep's QP. With RCMSG_READ_CONFIRM it is not trusted yet (Soft-RoCE was
 * seen to complete a read with wrong bytes just before its QP went to ERR): the requests
 * before it are released, it stays at the head of the ring, held, and a signaled zero-length
 * write follows it unless a signaled request does already. The completion of a later request
 * completes it (with that request's status); a recovery meanwhile makes it again. Returns
 * false (the caller completes it now) without the option, or when the send queue is full. */
bool rc_ep_hold_read(struct rc_btl *rc, rc_ep_t *ep, rc_wr_t *wr);

/* Post a signaled zero-length RDMA_WRITE so that the unsignaled requests before it complete
 * (nothing while the connection recovers: the recovery owns the ring). */
rcmsg_status_t rc_ep_flush(struct rc_btl *rc, int peer);

/* A signaled zero-length RDMA_WRITE posted directly behind the outstanding requests of a QP
 * in ERR (a failed peer's, or one that recovers): it completes, flushed, after all of them.
 * NULL when no slot is free or the device refuses. */
rc_wr_t *rc_ep_post_marker(struct rc_btl *rc, int peer);

/* Posts the kept request wr again on ep's new QP (rc_rec.c's replay), signaled when `last`. */
rcmsg_status_t rc_ep_repost(struct rc_btl *rc, rc_ep_t *ep, rc_wr_t *wr, bool last);

/* The peer's endpoint is unusable from now on (reported once; why: in words, for the event). */
void rc_ep_fail(struct rc_btl *rc, int peer, const char *why);
/* btl.h's forget: the endpoint fails the same way, quietly and without fail_cb. */
void rc_forget(rcmsg_btl_t *btl, int peer);

/* The ops of the endpoint side. */
rcmsg_status_t rc_addr_pack(rcmsg_btl_t *btl, void *buf, size_t *len_p);
rcmsg_status_t rc_connect(rcmsg_btl_t *btl, int peer, const void *addr, size_t len);
rcmsg_status_t rc_connect_progress(rcmsg_btl_t *btl);
void rc_connect_poll(rcmsg_btl_t *btl);
rcmsg_status_t rc_ping(rcmsg_btl_t *btl, int peer);

/* A message by SEND (to peer: six arguments, all in registers), a read by RDMA_READ, on ep
 * (connected; the arguments checked by the op, the choice of ring or SEND made there, rc_btl.c).
 * RCMSG_ERR_NO_RESOURCE: no slot, no bounce buffer, or the post found the QP broken (ep->post_err:
 * progress starts its recovery), try again; RCMSG_ERR_CONNECTION: the peer failed. */
rcmsg_status_t rc_ep_send(struct rc_btl *rc, int peer, const void *hdr, size_t hdr_len,
                          const void *payload, size_t len);
rcmsg_status_t rc_ep_get(struct rc_btl *rc, rc_ep_t *ep, int peer, void *local,
                         const rcmsg_btl_mem_t *lmem, uint64_t remote_addr, uint32_t rkey,
                         size_t len, rcmsg_btl_desc_t *desc);

/* One-sided (btl.h's put and atomic) on the connected ep, arguments checked by the op; always
 * signaled: desc completes with the completion. A put without lmem goes inline. */
rcmsg_status_t rc_ep_put(struct rc_btl *rc, rc_ep_t *ep, int peer, const void *local,
                         const rcmsg_btl_mem_t *lmem, uint64_t remote_addr, uint32_t rkey,
                         size_t len, rcmsg_btl_desc_t *desc);
rcmsg_status_t rc_ep_atomic(struct rc_btl *rc, rc_ep_t *ep, int peer, rcmsg_btl_atomic_t op,
                            uint64_t *result, const rcmsg_btl_mem_t *lmem, uint64_t remote_addr,
                            uint32_t rkey, uint64_t operand, uint64_t compare,
                            rcmsg_btl_desc_t *desc);

/* The cause of a break in words, for the logs. */
void rc_cause_str(const rc_cause_t *cause, char *buf, size_t len);

#endif /* RCMSG_BTL_RC_EP_H */
