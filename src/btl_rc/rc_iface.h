/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc internals shared by its files: the interface object (device port, PD, CQs, SRQ,
 * buffers, request slots, endpoints) and the functions one file calls in another.
 */
#ifndef RCMSG_BTL_RC_IFACE_H
#define RCMSG_BTL_RC_IFACE_H

#include "rc_cm.h"
#include "rc_device.h"
#include "rc_ep.h"
#include "rc_rx.h"

#include "base/config_vars.h"
#include "btl/btl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Receive buffers a poll may hold back from the SRQ (rc_btl_t.repost): at most this many, and
 * at most 1/16 of the SRQ (rc->repost_defer), are kept before they are posted in one call. */
#define RC_REPOST_DEFER_MAX 32

#define RC_RD_ATOMIC_MAX 16

/* The vendor id of Soft-RoCE (rxe) devices. */
#define RC_VENDOR_RXE 0xffffffu

/*
 * The RCMSG_* variables rc uses, read once at open (rc_config.c); nothing in btl_rc reads the
 * configuration table after open (connect, the async thread, progress, close use this copy).
 */
typedef struct {
    char *const *net_devices; /* RCMSG_NET_DEVICES: the table's list, used only during open */
    size_t nnet_devices;
    int gid_index;        /* RCMSG_GID_INDEX; -1: automatic */
    bool gid_index_set;   /* set by the user (connect then always uses the GRH) */
    enum ibv_mtu mtu_cap; /* RCMSG_IB_MTU as an upper bound of the path MTU */
    uint8_t ib_timeout, retry_count, rnr_timer, rnr_retry;
    unsigned sq_depth, max_inline, signal_interval, poll_batch;
    int srq_size, send_bufs; /* as asked: the pools may get fewer (ulimit -l, device) */
    size_t buf_size;
    uint64_t drain_timeout_us;
    uint64_t cm_timeout_us;            /* RCMSG_CM_TIMEOUT */
    unsigned cm_retries;               /* RCMSG_CM_RETRIES */
    uint64_t launcher_timeout_us;      /* RCMSG_LAUNCHER_TIMEOUT: bounds init's eager connects */
    rcmsg_connect_mode_t connect;      /* RCMSG_CONNECT */
    const char *connect_name;          /* its value, for the logs */
    int connect_eager_max;             /* RCMSG_CONNECT_EAGER_MAX */
    int qp_pool;                       /* RCMSG_QP_POOL */
    int qp_max_active;                 /* RCMSG_QP_MAX_ACTIVE; 0: no cap */
    bool recovery;                     /* RCMSG_RECOVERY */
    rcmsg_read_confirm_t read_confirm; /* RCMSG_READ_CONFIRM */
    unsigned recovery_attempts;        /* RCMSG_RECOVERY_ATTEMPTS */
    uint64_t recovery_timeout_us;      /* RCMSG_RECOVERY_TIMEOUT */
    uint64_t qp_sync_us;               /* RCMSG_QP_SYNC_INTERVAL; 0: no sync */
    rcmsg_eager_rdma_t eager_rdma;     /* RCMSG_EAGER_RDMA */
    unsigned eager_rdma_threshold;     /* RCMSG_EAGER_RDMA_THRESHOLD */
    int eager_rdma_max_peers;          /* RCMSG_EAGER_RDMA_MAX_PEERS */
    unsigned eager_rdma_slots;         /* RCMSG_EAGER_RDMA_SLOTS */
    size_t eager_rdma_slot_size;       /* RCMSG_EAGER_RDMA_SLOT_SIZE */
    bool wait_poll;                    /* RCMSG_WAIT_MODE=poll (rings raise no completion event) */
} rc_config_t;

/* A QP in INIT waiting in the pool, with the ring of outstanding requests that goes with it,
 * and the GID of the peer it was last connected to (rc_pool.c: rxe keeps an RC QP's route). */
typedef struct {
    struct ibv_qp *qp;
    rc_wr_t **ring;
    bool used;
    uint8_t gid[16];
} rc_pooled_t;

/*
 * What the floor of btl_rc (rc_ep.c, rc_rx.c: request slots, posts, completions) reaches above
 * it, as the CM reaches its user through rcmsg_rc_cm_ops_t: set by rc_btl.c at open.
 *   wc_error  an error completion on the peer's QP: true when a recovery took it (rc_rec.c)
 *   sq_cqe    a send completion while the endpoint drains (rc_rec.c)
 *   ctl       an rc control message from the peer (rc_fast.c)
 *   catch_up  the peer's ring messages before a SEND that came out of sequence (rc_fast.c)
 *   heard     a message from a peer whose endpoint is not connected (rc_conn.c)
 */
struct rc_btl;
typedef struct {
    bool (*wc_error)(struct rc_btl *rc, int peer, const struct ibv_wc *wc);
    void (*sq_cqe)(struct rc_btl *rc, rc_ep_t *ep, rc_wr_t *wr, bool ok);
    void (*ctl)(struct rc_btl *rc, int peer, const void *data, size_t len);
    void (*catch_up)(struct rc_btl *rc, int peer);
    void (*heard)(struct rc_btl *rc, int peer);
} rc_up_ops_t;

typedef struct rc_btl {
    rcmsg_btl_t super;
    const rc_up_ops_t *up; /* the floor's calls up (rc_btl.c) */
    rcmsg_btl_job_t job;
    rc_config_t config;
    rcmsg_rc_device_t *dev;
    int port;
    struct ibv_port_attr port_attr;
    rcmsg_rc_gid_t gid;
    struct ibv_pd *pd;
    struct ibv_comp_channel *channel; /* completion events of both CQs */
    struct ibv_cq *scq, *rcq;
    struct ibv_srq *srq;
    char *rbufs;
    size_t rbufs_len, sbufs_len;
    int mem_node;                  /* NUMA node the buffers are bound to, or -1 */
    bool rbufs_bound, sbufs_bound; /* allocated by hwloc (freed by hwloc_free) */
    struct ibv_mr *rmr;
    int nrbufs;
    char *sbufs;
    struct ibv_mr *smr;
    int nsbufs, sbuf_nfree;
    int *sbuf_free;
    size_t buf_size;
    rc_wr_t *wrs;
    rcmsg_queue_t wr_free; /* free slots, last freed first (free_link) */
    int wr_total, wr_nfree;
    rc_ep_t *eps;      /* [size]; eps[rank].qp.qp == NULL for ourselves */
    rcmsg_rc_cm_t *cm; /* the connection manager (rc_conn.c) */
    unsigned cm_tick;  /* progress calls since the CM was last polled */
    int nsignaled;     /* signaled requests posted and not yet released: their completions come */
    unsigned scq_tick; /* progress calls since the send CQ was last polled */
    /* receive buffers whose messages were handled and that are not posted again yet: a poll
     * posts them when it finds nothing (the rank waits anyway), once repost_defer are held or
     * the array is full, and rc_arm before a sleep; so that the post does not delay the reply
     * to the message (rc_rx_poll) */
    int repost[RCMSG_POLL_BATCH_MAX];
    int nrepost, repost_defer;
    bool cm_hot;       /* connects or disconnects under way: poll the CM on every call */
    int cm_npeers;     /* peers given to connect */
    bool cm_started;   /* the connects to them have been started (eager) or may start (lazy) */
    bool cm_ready;     /* every one of them is connected */
    uint64_t cm_t0;    /* when they were started */
    bool lazy;         /* RCMSG_CONNECT resolved: connect on the first message */
    rc_pooled_t *pool; /* QPs in INIT (rc_pool.c) */
    int pool_n, pool_cap;
    int qp_created;    /* QPs created in all */
    bool refilling;    /* the pool is being refilled, a few QPs per progress call */
    bool route_sticky; /* the device keeps an RC QP's first route (rxe): reuse per GID */
    int *active;       /* [size]: the peers holding a QP, nactive of them */
    int nactive;
    int ndisc;            /* our DREQs outstanding */
    bool recycle_stalled; /* our DREQ went unanswered for the CM's budget: the cap is soft */
    unsigned init_tries;  /* REQ/REP sends of rcmsg_init's eager connects */
    uint64_t use_tick;    /* counts posts and receives, for the LRU */
    unsigned sq_depth, signal_interval, poll_batch;
    unsigned rd_atomic;
    atomic_int async_pending; /* release by the async thread, acquire by progress */
    pthread_t async_thread;
    int async_wake_fd;
    bool async_running;
    bool draining; /* finalize's flush began: connections are no longer recycled */
    bool closing;
    /* the immediate data of a SEND: the sender's rank in the low rank_bits, then ctl_bit (rc's
     * own control message, rc_fast.c: no sequence number), the low bits of the pair's sequence
     * number above (rc_imm, from seq_shift); seq_mask masks the sequence bits */
    unsigned rank_bits, seq_shift;
    uint32_t rank_mask, seq_mask, ctl_bit;
    /* eager over RDMA WRITE (rc_fast.c): the peers whose ring this rank polls, nfast_rx of them
     * (at most fast_max), and the settings */
    int *fast_rx;
    int nfast_rx, fast_max;
    unsigned fast_threshold; /* messages before a ring is asked (0 with RCMSG_EAGER_RDMA=yes) */
    bool fast_on;
    bool recovery;     /* RCMSG_RECOVERY, and the sequence window is wide enough for it */
    bool read_confirm; /* a read completes once a later request did (rc_ep_hold_read) */
    char *inl_copy;    /* [wr_total x max_inline]: inline sends kept for a replay */
    int *recovering;   /* [size]: the peers whose connection recovers, nrec of them */
    int nrec;
    rc_wr_t **replay;      /* [sq_depth]: scratch of the replay */
    atomic_int port_up;    /* set by the async thread on PORT_ACTIVE: reconnects are sent now */
    uint64_t sync_next_us; /* the next QP state sync (rc_sync.c) */
    int quiet_peer;        /* rc_cm_rtr drains the receives of this peer's old QP: its
                           messages are not taken as the new connection's */
} rc_btl_t;

static inline rc_btl_t *rc_btl_of(rcmsg_btl_t *btl)
{
    return (rc_btl_t *)btl;
}

/* rc_async.c: the thread reading the device's async events, and the handling in progress of
 * the endpoints it marked. */
rcmsg_status_t rc_async_start(rc_btl_t *rc);
void rc_async_stop(rc_btl_t *rc);
void rc_async_handle(rc_btl_t *rc);

/* rc_port.c: the device port this process uses (RCMSG_NET_DEVICES, NUMA locality, local
 * rank); name has IBV_SYSFS_NAME_MAX bytes. */
rcmsg_status_t rc_choose_port(const rcmsg_btl_job_t *job, const rc_config_t *config, char *name,
                              int *port_p);

/* rc_conn.c: opens the CM of the interface. */
rcmsg_status_t rc_cm_start(rc_btl_t *rc);

/* rc_conn.c: the peer is not connected (send, get): starts connecting it (lazy connect, or a
 * reconnect after a recycle; at the RCMSG_QP_MAX_ACTIVE cap, an idle connection is recycled
 * first). RCMSG_ERR_NO_RESOURCE (try again later), or RCMSG_ERR_CONNECTION when it failed. */
rcmsg_status_t rc_ep_want(rc_btl_t *rc, int peer);

/* rc_conn.c: the CM's share of progress (called every RC_CM_POLL_EVERY calls, or every call
 * while rc->cm_hot): packets, retransmissions, the pool's refill, recycling above the cap. */
int rc_conn_progress(rc_btl_t *rc);

/* rc_conn.c: a message arrived from a peer whose endpoint is not connected (the passive side's
 * RTU may have been lost: the traffic stands for it). */
void rc_ep_heard(rc_btl_t *rc, int peer);

/* rc_pool.c: QPs in INIT for connects. init: notes whether the device keeps a QP's route; fill:
 * creates QPs until the pool holds `want`; take: the peer gets a QP (from the pool, else a new one)
 * with a fresh psn; put: the peer's QP back to RESET -> INIT and into the pool; destroy: every
 * pooled QP. */
void rc_pool_init(rc_btl_t *rc);
rcmsg_status_t rc_pool_fill(rc_btl_t *rc, int want, const char *why);
rcmsg_status_t rc_pool_take(rc_btl_t *rc, int peer);
void rc_pool_put(rc_btl_t *rc, int peer);
void rc_pool_destroy(rc_btl_t *rc);

/* How often progress polls the CM's CQ: once every RC_CM_POLL_EVERY calls (after init the CM
 * only answers late duplicates, so a poll of an empty CQ every 256 calls is all it costs). */
#define RC_CM_POLL_EVERY 256

/* How often progress polls the send CQ while no signaled request is outstanding (rc->nsignaled
 * is 0): an unsignaled request makes a completion only when it fails, or is flushed from a QP
 * that broke, so such a completion is seen within this many calls, or at the first call after
 * its event woke a sleeping wait (rc_arm). */
#define RC_SCQ_POLL_EVERY 64

/* QPs created per progress call while the pool is refilled (rc_conn.c). */
#define RC_POOL_REFILL_BATCH 4

/* rc_ep.c: polls the send CQ once and handles what it took (returns how many). */
int rc_send_poll(rc_btl_t *rc);
/* rc_sync.c: the QP state cache checked against the device every RCMSG_QP_SYNC_INTERVAL
 * (a no-op until the period is over). */
void rc_sync_tick(rc_btl_t *rc);

/* The wr_id of a request posted now (its generation bumped: a completion of an earlier post of
 * the slot, from a QP that broke, can no longer be taken for this one), and the request a
 * completion names (NULL when stale: another generation of the slot). */
static inline uint64_t rc_wr_id(rc_btl_t *rc, rc_wr_t *wr)
{
    return (uint64_t)++wr->gen << 32 | (uint64_t)(wr - rc->wrs);
}

static inline rc_wr_t *rc_wr_of(rc_btl_t *rc, uint64_t wr_id)
{
    uint32_t idx = (uint32_t)wr_id;

    return idx < (uint32_t)rc->wr_total && rc->wrs[idx].gen == (uint32_t)(wr_id >> 32)
               ? &rc->wrs[idx]
               : NULL;
}

/* Where the inline send of request wr is kept for a replay (rc->inl_copy != NULL). */
static inline char *rc_inl_copy(const rc_btl_t *rc, const rc_wr_t *wr)
{
    return rc->inl_copy + (size_t)(wr - rc->wrs) * rc->super.caps.max_inline;
}

/* The immediate data of a SEND to a peer with sequence number seq. */
static inline uint32_t rc_imm(const rc_btl_t *rc, uint64_t seq)
{
    return (uint32_t)rc->job.rank | (((uint32_t)seq & rc->seq_mask) << rc->seq_shift);
}

/* rc_fast.c: eager over RDMA WRITE (see there).
 *   setup     the settings, at open (after rc_rec_setup)
 *   send      the message goes into the peer's ring: RCMSG_OK (posted), RCMSG_ERR_NO_RESOURCE
 *             (try again), RCMSG_ERR_UNSUPPORTED (no ring, no free slot, too long, a packet
 *             more than its SEND, no bounce buffer: send it by SEND)
 *   poll      delivers what the rings hold, in sequence (returns how many)
 *   catch_up  delivers the peer's ring messages that precede sequence number seq (a SEND
 *             whose CQE came before the ring message before it was seen)
 *   ctl       a control message of the peer's rc (ctl_bit in its immediate data)
 *   drop      the pair's rings are forgotten (recovery, disconnect), this side's freed
 *   close     every ring freed */
rcmsg_status_t rc_fast_setup(rc_btl_t *rc);
rcmsg_status_t rc_fast_send(rc_btl_t *rc, rc_ep_t *ep, int peer, const void *hdr, size_t hdr_len,
                            const void *payload, size_t len);
int rc_fast_poll(rc_btl_t *rc);
void rc_fast_catch_up(rc_btl_t *rc, int peer);
void rc_fast_ctl(rc_btl_t *rc, int peer, const void *data, size_t len);
void rc_fast_drop(rc_btl_t *rc, int peer);
void rc_fast_close(rc_btl_t *rc);

/* rc_rec.c: recovery of a broken connection (see there).
 *   setup        the sequence window and the replay buffers, at open
 *   start        the connection to peer broke (cause): drain, a new QP, reconnect, replay; or the
 *                peer fails (RCMSG_RECOVERY=no, a fatal cause, too many recoveries in a row)
 *   wc_error     a completion error on the peer's QP: true when a recovery took it (else the
 *                caller reports it and fails the peer, as without recovery)
 *   async        an async event on the peer's QP (rc_async.c), classified
 *   sq_cqe       a send completion of wr while its endpoint drains (ok: it succeeded, it and
 *                the requests before it are done): is the drain over?
 *   progress     the recoveries under way (rc_conn_progress, every call while nrec > 0): a
 *                drained connection with its new QP is handed back to rejoin (rc_conn_rejoin)
 *   connected    the CM connected the pair again (rc_cm_rts): replay what the peer lacks */
rcmsg_status_t rc_rec_setup(rc_btl_t *rc);
void rc_rec_start(rc_btl_t *rc, int peer, rc_cause_t cause, bool severe);
bool rc_rec_wc_error(rc_btl_t *rc, int peer, const struct ibv_wc *wc);
void rc_rec_async(rc_btl_t *rc, int peer, enum ibv_event_type event);
void rc_rec_sq_cqe(rc_btl_t *rc, rc_ep_t *ep, rc_wr_t *wr, bool ok);
/* The connections' reconnect of a recovering peer whose new QP is in INIT (rc_conn_rejoin),
 * passed down to the recovery. */
typedef void (*rc_rejoin_fn_t)(rc_btl_t *rc, int peer);
void rc_rec_progress(rc_btl_t *rc, rc_rejoin_fn_t rejoin);
rcmsg_status_t rc_rec_connected(rc_btl_t *rc, int peer, const rcmsg_rc_cm_payload_t *remote);
/* The CM gave up a recovery's reconnect because a QP transition failed here (ep->rec.retry):
 * true when another attempt is due within RCMSG_RECOVERY_TIMEOUT, the peer's QP renewed (the
 * caller reconnects it, rc_conn_rejoin). */
bool rc_rec_retry(rc_btl_t *rc, int peer);

/* rc_pool.c: the peer's broken QP is destroyed and replaced by a new one in INIT (rc_rec.c says
 * why never a reset one), with a fresh psn; the endpoint keeps its ring. */
rcmsg_status_t rc_pool_renew(rc_btl_t *rc, int peer);

/* rc_config.c: fills config from the configuration table; called once, by open. */
void rc_config_read(rc_config_t *config);

#endif /* RCMSG_BTL_RC_IFACE_H */
