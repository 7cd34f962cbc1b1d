/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc internals shared by its files: the types, and the interface object (device port,
 * PD, CQs, buffers, request slots, endpoints, settings) that holds the state of each file as a
 * sub-struct declared in that file's header (rc_rx.h, rc_pool.h, rc_conn.h, rc_fast.h,
 * rc_rec.h, rc_async.h, rc_sync.h, rc_gate.h, rc_defer.h) and written by that file only.
 *
 * The files call down, top to bottom (test/unit/layering.sh checks it): rc_btl.c (the ops,
 * progress, open and close) -> rc_fast, rc_rec, rc_conn, rc_pool, rc_async, rc_sync -> rc_ep
 * (request slots, posts, send completions), rc_rx (the receive side) -> rc_qp, rc_cm,
 * rc_device, rc_gate (the application's calls and the progress thread), rc_defer (the calls
 * up). The floor reaches above it through rc->up (rc_up_ops_t), as the CM does through
 * rcmsg_rc_cm_ops_t.
 */
#ifndef RCMSG_BTL_RC_IFACE_H
#define RCMSG_BTL_RC_IFACE_H

#include "rc_cm.h"
#include "rc_device.h"
#include "rc_async.h"
#include "rc_conn.h"
#include "rc_defer.h"
#include "rc_ep.h"
#include "rc_fast.h"
#include "rc_gate.h"
#include "rc_pool.h"
#include "rc_rec.h"
#include "rc_rx.h"
#include "rc_sync.h"

#include "base/config_vars.h"
#include "btl/btl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    uint64_t liveness_us;          /* RCMSG_LIVENESS_INTERVAL: the thread's probes (rc_sync.c) */
    rcmsg_eager_rdma_t eager_rdma; /* RCMSG_EAGER_RDMA */
    unsigned eager_rdma_threshold; /* RCMSG_EAGER_RDMA_THRESHOLD */
    int eager_rdma_max_peers;      /* RCMSG_EAGER_RDMA_MAX_PEERS */
    unsigned eager_rdma_slots;     /* RCMSG_EAGER_RDMA_SLOTS */
    size_t eager_rdma_slot_size;   /* RCMSG_EAGER_RDMA_SLOT_SIZE */
    bool wait_poll;                /* RCMSG_WAIT_MODE=poll (rings raise no completion event) */
    bool control_thread;           /* RCMSG_ASYNC_PROGRESS=control: rc_async.c's thread runs
                                      the CM, recoveries and the QP state sync (rc_gate.h) */
} rc_config_t;

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
    bool cm_hot;       /* connects or disconnects under way: poll the CM on every call */
    uint64_t use_tick; /* counts posts and receives, for the LRU */
    unsigned sq_depth, signal_interval, poll_batch;
    unsigned rd_atomic;
    /* endpoints marked (an async event, rc_async.c; a post that found the QP broken, rc_ep.c):
     * release by the marker, acquire by progress, which hands them to the recovery */
    atomic_int async_pending;
    bool closing;
    /* the immediate data of a SEND: the sender's rank in the low rank_bits, then ctl_bit (rc's
     * own control message, rc_fast.c: no sequence number), the low bits of the pair's sequence
     * number above (rc_imm, from seq_shift); seq_mask masks the sequence bits */
    unsigned rank_bits, seq_shift;
    uint32_t rank_mask, seq_mask, ctl_bit;
    bool recovery;     /* RCMSG_RECOVERY, and the sequence window is wide enough for it */
    bool read_confirm; /* a read completes once a later request did (rc_ep_hold_read) */
    char *inl_copy;    /* [wr_total x max_inline]: inline sends kept for a replay (rc_rec.c) */
    /* the state of one file each, declared in its header */
    rc_rx_t rx;     /* the receive side (rc_rx.c) */
    rc_pool_t pool; /* QPs in INIT (rc_pool.c) */
    rc_conn_t conn; /* connections: CM bookkeeping, lazy, the active set, recycling (rc_conn.c) */
    rc_fast_rings_t fast; /* the rings of eager over RDMA WRITE (rc_fast.c) */
    rc_recovery_t rec;    /* recoveries under way (rc_rec.c) */
    rc_async_t async;     /* the async event thread (rc_async.c) */
    rc_sync_t sync;       /* the QP state sync's timer (rc_sync.c) */
    rc_gate_t gate;       /* who owns btl_rc: the application or the progress thread (rc_gate.c) */
    rc_defer_t defer;     /* the calls up the progress thread deferred (rc_defer.c) */
} rc_btl_t;

static inline rc_btl_t *rc_btl_of(rcmsg_btl_t *btl)
{
    return (rc_btl_t *)btl;
}

/* rc_port.c: the device port this process uses (RCMSG_NET_DEVICES, NUMA locality, local
 * rank), its device opened (*dev_p: the caller's, rcmsg_rc_device_close). */
rcmsg_status_t rc_choose_port(const rcmsg_btl_job_t *job, const rc_config_t *config,
                              rcmsg_rc_device_t **dev_p, int *port_p);

/* How often progress polls the CM's CQ: once every RC_CM_POLL_EVERY calls (after init the CM
 * only answers late duplicates, so a poll of an empty CQ every 256 calls is all it costs). */
#define RC_CM_POLL_EVERY 256

/* How often progress polls the send CQ while no signaled request is outstanding (rc->nsignaled
 * is 0): an unsignaled request makes a completion only when it fails, or is flushed from a QP
 * that broke, so such a completion is seen within this many calls, or at the first call after
 * its event woke a sleeping wait (rc_arm). */
#define RC_SCQ_POLL_EVERY 64

/* rc_ep.c: polls the send CQ once and handles what it took (returns how many). */
int rc_send_poll(rc_btl_t *rc);

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

/* rc_config.c: fills config from the configuration table; called once, by open. */
void rc_config_read(rc_config_t *config);

#endif /* RCMSG_BTL_RC_IFACE_H */
