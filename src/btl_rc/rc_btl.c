/*
 * btl_rc: the RC verbs transport.
 *
 * Resources per process (one device port):
 *   PD; send CQ (one CQE per posted work request at most, see "send budget"); receive CQ
 *   (SRQ_SIZE entries); an SRQ of SRQ_SIZE registered buffers of SRQ_BUF_SIZE bytes, posted
 *   before any QP leaves INIT; SEND_BUFS registered bounce buffers; one RC QP per peer.
 *
 * Send budget: every posted work request takes a slot from a pool of wr_total slots, and the
 * send CQ has wr_total entries. A slot is freed only once its completion is known (its own CQE,
 * or the CQE of a later signaled request on the same QP), so even when a QP goes to ERR and
 * every outstanding request is flushed with its own CQE, the send CQ cannot overflow.
 *
 * Selective signaling: one send in SIGNAL_INTERVAL asks for a completion (and every RDMA_READ,
 * and every send while buffers run low). Each QP keeps its outstanding requests in post order
 * in a ring; a completion for request w frees w and every request posted before it on the QP.
 * A QP whose last request is unsignaled is flushed by a signaled zero-length RDMA_WRITE.
 *
 * Messages carry the sender's rank as immediate data, so a receive needs no QP search: the
 * rank's QP must be the one the message arrived on (else the message is dropped and the peer
 * of that QP failed).
 */
#include "config.h"

#include "rc_btl.h"
#include "rc_device.h"
#include "rc_memlock.h"
#include "rc_qp.h"

#include "base/clock.h"
#include "base/config_table.h"
#include "base/topo.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define RC_ADDR_HDR_SIZE 32
#define RC_RD_ATOMIC_MAX 16

typedef enum {
    RC_WR_SEND,
    RC_WR_SEND_INLINE,
    RC_WR_GET,
    RC_WR_FLUSH,
} rc_wr_type_t;

/* A posted work request; wr_id points at it. */
typedef struct rc_wr {
    struct rc_wr *next_free;
    rc_wr_type_t type;
    bool signaled;
    int peer;
    int sbuf; /* bounce buffer index, or -1 */
    uint32_t len;
    rcmsg_btl_desc_t *desc; /* gets only */
} rc_wr_t;

typedef struct {
    rcmsg_rc_qp_t *qp;
    uint32_t sq_psn;
    rc_wr_t **ring; /* outstanding requests in post order */
    unsigned ring_head, ring_count;
    unsigned unsignaled; /* posted since the last signaled request */
    bool connected;
    bool failed;
    atomic_int async_event; /* set by the async thread: event type + 1 */
} rc_ep_t;

typedef struct {
    rcmsg_btl_t super;
    rcmsg_btl_job_t job;
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
    rc_wr_t *wrs, *wr_free;
    int wr_total, wr_nfree;
    rcmsg_rc_qp_t *qps; /* [size]; qps[rank].qp == NULL for ourselves */
    rc_ep_t *eps;       /* [size] */
    unsigned sq_depth, signal_interval, poll_batch;
    unsigned rd_atomic;
    atomic_int async_pending; /* release by the async thread, acquire by progress */
    pthread_t async_thread;
    int async_wake_fd;
    bool async_running;
    bool closing;
} rc_btl_t;

static void rc_free_bufs(void *p, size_t len, bool bound);
static rcmsg_status_t rc_ep_flush(rc_btl_t *rc, int peer);

static inline rc_btl_t *rc_btl_of(rcmsg_btl_t *btl)
{
    return (rc_btl_t *)btl;
}

static const char *rc_wr_type_name(rc_wr_type_t type)
{
    static const char *const names[] = {"SEND", "SEND inline", "RDMA_READ",
                                        "flush (zero-length RDMA_WRITE)"};
    return names[type];
}

/* ---- address blob ---------------------------------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
    v = htole16(v);
    memcpy(p, &v, sizeof(v));
}

static void put32(uint8_t *p, uint32_t v)
{
    v = htole32(v);
    memcpy(p, &v, sizeof(v));
}

static uint16_t get16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof(v));
    return le16toh(v);
}

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return le32toh(v);
}

size_t rcmsg_rc_btl_addr_max(int size)
{
    return RC_ADDR_HDR_SIZE + (size_t)size * 8;
}

/*
 * Layout (little-endian): link_layer u8, port u8, active_mtu u8, rd_atomic u8, lid u16,
 * gid_type + 1 u8 (0: not known), pad u8, gid[16], buf_size u32, nqps u32, then nqps x
 * (qpn u32, psn u32), indexed by peer rank.
 */
static rcmsg_status_t rc_addr_pack(rcmsg_btl_t *btl, void *buf, size_t *len_p)
{
    rc_btl_t *rc = rc_btl_of(btl);
    size_t need = rcmsg_rc_btl_addr_max(rc->job.size);
    uint8_t *p = buf;

    if (*len_p < need) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    memset(p, 0, RC_ADDR_HDR_SIZE);
    p[0] = rc->port_attr.link_layer;
    p[1] = (uint8_t)rc->port;
    p[2] = (uint8_t)rc->port_attr.active_mtu;
    p[3] = (uint8_t)rc->rd_atomic;
    put16(p + 4, rc->port_attr.lid);
    p[6] = (uint8_t)(rc->gid.gid_type + 1);
    memcpy(p + 8, rc->gid.gid.raw, 16);
    put32(p + 24, (uint32_t)rc->buf_size);
    put32(p + 28, (uint32_t)rc->job.size);
    for (int i = 0; i < rc->job.size; i++) {
        uint8_t *e = p + RC_ADDR_HDR_SIZE + (size_t)i * 8;
        put32(e, rc->qps[i].qp ? rc->qps[i].qp->qp_num : 0);
        put32(e + 4, rc->eps[i].sq_psn);
    }
    *len_p = need;
    return RCMSG_OK;
}

/* ---- connection ------------------------------------------------------------------------ */

/* On RoCE: are the peer's GID (and its type, p[6]) of the same kind as ours? Two kinds that
 * cannot talk are an error naming both GIDs, RCMSG_GID_INDEX and the fix. */
static rcmsg_status_t rc_gid_check(rc_btl_t *rc, int peer, const uint8_t *p)
{
    union ibv_gid remote;
    char why[256], here[64];
    int verdict;

    memcpy(remote.raw, p + 8, sizeof(remote.raw));
    verdict = rcmsg_rc_gid_compat(&rc->gid.gid, (int)rc->gid.gid_type, &remote, (int)p[6] - 1, why,
                                  sizeof(why));
    if (verdict == 0) {
        return RCMSG_OK;
    }
    snprintf(here, sizeof(here), "gid index %d here, %s", rc->gid.index,
             rcmsg_config_is_set(RCMSG_CFG_GID_INDEX) ? "set by RCMSG_GID_INDEX"
                                                      : "chosen automatically");
    if (verdict > 0) {
        rcmsg_warn("peer %d on %s:%d: GIDs of different kinds, %s (%s); if the connection "
                   "fails, give every rank a GID of the same kind (RCMSG_GID_INDEX)",
                   peer, rc->dev->name, rc->port, why, here);
        return RCMSG_OK;
    }
    rcmsg_error("cannot connect to peer %d on %s:%d: GIDs of different kinds, %s (%s); give "
                "every rank a GID of the same kind: unset RCMSG_GID_INDEX (each rank then picks a "
                "RoCE v2 GID, IPv4-mapped first) or set it to an index of the same kind on every "
                "rank (rcmsg_info lists each port's GID table)",
                peer, rc->dev->name, rc->port, why, here);
    return RCMSG_ERR_CONFIG;
}

static enum ibv_mtu rc_mtu_cap(void)
{
    static const enum ibv_mtu caps[] = {IBV_MTU_4096, IBV_MTU_256,  IBV_MTU_512,
                                        IBV_MTU_1024, IBV_MTU_2048, IBV_MTU_4096};
    return caps[rcmsg_config_enum(RCMSG_CFG_IB_MTU)];
}

static rcmsg_status_t rc_connect(rcmsg_btl_t *btl, int peer, const void *addr, size_t len)
{
    rc_btl_t *rc = rc_btl_of(btl);
    const uint8_t *p = addr;
    rc_ep_t *ep;
    struct ibv_qp_attr attr;
    enum ibv_mtu mtu;
    uint32_t nqps, rqpn, rpsn;
    unsigned rd_in;
    rcmsg_status_t status;
    char gidbuf[64];

    if (peer < 0 || peer >= rc->job.size || peer == rc->job.rank) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    ep = &rc->eps[peer];
    if (len < RC_ADDR_HDR_SIZE) {
        rcmsg_error("rc address of peer %d is %zu bytes, shorter than its %d-byte header", peer,
                    len, RC_ADDR_HDR_SIZE);
        return RCMSG_ERR_PEER_DATA;
    }
    nqps = get32(p + 28);
    if (nqps != (uint32_t)rc->job.size || len != rcmsg_rc_btl_addr_max(rc->job.size)) {
        rcmsg_error("rc address of peer %d is malformed: %u QPs in %zu bytes, job size %d", peer,
                    nqps, len, rc->job.size);
        return RCMSG_ERR_PEER_DATA;
    }
    if (get32(p + 24) != rc->buf_size) {
        rcmsg_error("peer %d uses %u-byte receive buffers, this rank %zu: set the same "
                    "RCMSG_SRQ_BUF_SIZE on every rank",
                    peer, get32(p + 24), rc->buf_size);
        return RCMSG_ERR_CONFIG;
    }
    if (p[0] != rc->port_attr.link_layer) {
        rcmsg_error("peer %d is on a %s port, this rank on %s: link layers must match", peer,
                    rcmsg_rc_link_layer_name(p[0]),
                    rcmsg_rc_link_layer_name(rc->port_attr.link_layer));
        return RCMSG_ERR_PEER_DATA;
    }
    if (rc->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
        status = rc_gid_check(rc, peer, p);
        if (status != RCMSG_OK) {
            return status;
        }
    }
    if (p[2] < IBV_MTU_256 || p[2] > IBV_MTU_4096) {
        rcmsg_error("peer %d sent an invalid MTU code %u", peer, p[2]);
        return RCMSG_ERR_PEER_DATA;
    }
    rqpn = get32(p + RC_ADDR_HDR_SIZE + (size_t)rc->job.rank * 8);
    rpsn = get32(p + RC_ADDR_HDR_SIZE + (size_t)rc->job.rank * 8 + 4);
    if (rqpn == 0 || rqpn > 0xffffff || rpsn > 0xffffff) {
        rcmsg_error("peer %d sent an invalid qp number 0x%x or psn 0x%x for this rank", peer, rqpn,
                    rpsn);
        return RCMSG_ERR_PEER_DATA;
    }

    mtu = rc->port_attr.active_mtu;
    if ((enum ibv_mtu)p[2] < mtu) {
        mtu = (enum ibv_mtu)p[2];
    }
    if (rc_mtu_cap() < mtu) {
        mtu = rc_mtu_cap();
    }

    /* outstanding reads: within what both ends support */
    rd_in = p[3] > 0 && p[3] < rc->rd_atomic ? p[3] : rc->rd_atomic;
    attr = (struct ibv_qp_attr){
        .qp_state = IBV_QPS_RTR,
        .path_mtu = mtu,
        .dest_qp_num = rqpn,
        .rq_psn = rpsn,
        .max_dest_rd_atomic = (uint8_t)rd_in,
        .min_rnr_timer = (uint8_t)rcmsg_config_int(RCMSG_CFG_IB_RNR_TIMER),
        .ah_attr = {.dlid = get16(p + 4), .port_num = (uint8_t)rc->port},
    };
    if (rc->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET ||
        rcmsg_config_is_set(RCMSG_CFG_GID_INDEX)) {
        attr.ah_attr.is_global = 1;
        memcpy(attr.ah_attr.grh.dgid.raw, p + 8, 16);
        attr.ah_attr.grh.sgid_index = (uint8_t)rc->gid.index;
        attr.ah_attr.grh.hop_limit = 64;
    }
    status =
        rcmsg_rc_qp_modify(ep->qp, &attr,
                           IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                               IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
    if (status != RCMSG_OK) {
        return status;
    }
    attr = (struct ibv_qp_attr){
        .qp_state = IBV_QPS_RTS,
        .timeout = (uint8_t)rcmsg_config_int(RCMSG_CFG_IB_TIMEOUT),
        .retry_cnt = (uint8_t)rcmsg_config_int(RCMSG_CFG_IB_RETRY_COUNT),
        .rnr_retry = (uint8_t)rcmsg_config_int(RCMSG_CFG_IB_RNR_RETRY),
        .sq_psn = ep->sq_psn,
        .max_rd_atomic = (uint8_t)rd_in,
    };
    status = rcmsg_rc_qp_modify(ep->qp, &attr,
                                IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
    if (status != RCMSG_OK) {
        return status;
    }
    ep->connected = true;
    rcmsg_info("qp 0x%x connected to peer %d qp 0x%x (gid %s, lid %u, path mtu %d, psn 0x%x/0x%x)",
               ep->qp->qp->qp_num, peer, rqpn, rcmsg_rc_gid_str((const void *)(p + 8), gidbuf),
               get16(p + 4), rcmsg_rc_mtu_bytes(mtu), ep->sq_psn, rpsn);
    return RCMSG_OK;
}

/* ---- failure --------------------------------------------------------------------------- */

/* The peer's endpoint is unusable from now on: QP to ERR (outstanding requests flush), the
 * layer above told once, every later send refused. */
static void rc_ep_fail(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];
    struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};

    if (ep->failed) {
        return;
    }
    ep->failed = true;
    if (rcmsg_rc_qp_resync(ep->qp) != IBV_QPS_ERR) {
        rcmsg_rc_qp_modify(ep->qp, &attr, IBV_QP_STATE);
    }
    rc_ep_flush(rc, peer); /* get the slots of completed unsignaled sends back */
    rcmsg_error("connection to peer %d lost: qp 0x%x on %s:%d is in state %s; every pending and "
                "later operation to peer %d fails with %s",
                peer, ep->qp->qp->qp_num, rc->dev->name, rc->port,
                rcmsg_rc_qp_state_name(ep->qp->state), peer,
                rcmsg_status_name(RCMSG_ERR_CONNECTION));
    if (rc->super.fail_cb != NULL) {
        rc->super.fail_cb(rc->super.cb_arg, peer, RCMSG_ERR_CONNECTION);
    }
}

/* ---- work request slots and bounce buffers --------------------------------------------- */

static rc_wr_t *rc_wr_get(rc_btl_t *rc)
{
    rc_wr_t *wr = rc->wr_free;

    if (wr != NULL) {
        rc->wr_free = wr->next_free;
        rc->wr_nfree--;
    }
    return wr;
}

static void rc_wr_put(rc_btl_t *rc, rc_wr_t *wr)
{
    if (wr->sbuf >= 0) {
        rc->sbuf_free[rc->sbuf_nfree++] = wr->sbuf;
        wr->sbuf = -1;
    }
    wr->next_free = rc->wr_free;
    rc->wr_free = wr;
    rc->wr_nfree++;
}

/* Completion known for `last` on its QP: release it and every request posted before it. */
static int rc_ep_complete_upto(rc_btl_t *rc, rc_ep_t *ep, rc_wr_t *last, rcmsg_status_t status)
{
    int n = 0;

    while (ep->ring_count > 0) {
        rc_wr_t *wr = ep->ring[ep->ring_head];
        bool is_last = (wr == last);

        ep->ring_head = (ep->ring_head + 1) % rc->sq_depth;
        ep->ring_count--;
        if (wr->desc != NULL) {
            rcmsg_btl_desc_t *desc = wr->desc;
            wr->desc = NULL;
            desc->complete(desc, is_last ? status : RCMSG_OK);
        }
        rc_wr_put(rc, wr);
        n++;
        if (is_last) {
            return n;
        }
    }
    rcmsg_error("internal: completion for a request not outstanding on qp 0x%x (peer %d)",
                ep->qp->qp->qp_num, ep->qp->peer);
    return n;
}

static rcmsg_status_t rc_post(rc_btl_t *rc, rc_ep_t *ep, rc_wr_t *wr, struct ibv_send_wr *swr)
{
    struct ibv_send_wr *bad;
    int rc_post;

    swr->wr_id = (uintptr_t)wr;
    if (wr->signaled) {
        swr->send_flags |= IBV_SEND_SIGNALED;
        ep->unsignaled = 0;
    } else {
        ep->unsignaled++;
    }
    rc_post = ibv_post_send(ep->qp->qp, swr, &bad);
    if (rc_post != 0) {
        rcmsg_error("ibv_post_send %s to peer %d failed on qp 0x%x (state %s): %s",
                    rc_wr_type_name(wr->type), wr->peer, ep->qp->qp->qp_num,
                    rcmsg_rc_qp_state_name(rcmsg_rc_qp_resync(ep->qp)), strerror(rc_post));
        rc_wr_put(rc, wr);
        rc_ep_fail(rc, wr->peer);
        return RCMSG_ERR_CONNECTION;
    }
    ep->ring[(ep->ring_head + ep->ring_count) % rc->sq_depth] = wr;
    ep->ring_count++;
    return RCMSG_OK;
}

/* Take a slot for a new request on ep, or NULL when the QP or the budget is full. */
static rc_wr_t *rc_wr_take(rc_btl_t *rc, rc_ep_t *ep, rc_wr_type_t type, int peer)
{
    rc_wr_t *wr;

    if (ep->ring_count >= rc->sq_depth - 1 || (wr = rc_wr_get(rc)) == NULL) {
        return NULL;
    }
    wr->type = type;
    wr->peer = peer;
    wr->sbuf = -1;
    wr->desc = NULL;
    wr->len = 0;
    /* signal periodically, always near the end of the ring, and when resources run low so
     * that they come back */
    wr->signaled = ep->unsignaled + 1 >= rc->signal_interval ||
                   ep->ring_count + 2 >= rc->sq_depth ||
                   rc->wr_nfree < (int)rc->signal_interval * 2 ||
                   rc->sbuf_nfree < (int)rc->signal_interval * 2;
    return wr;
}

/* Post a signaled zero-length RDMA_WRITE so that the unsignaled requests before it complete
 * (on a failed QP it completes at once, flushed, and gives their slots and buffers back). */
static rcmsg_status_t rc_ep_flush(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];
    struct ibv_send_wr swr = {.opcode = IBV_WR_RDMA_WRITE, .num_sge = 0};
    struct ibv_send_wr *bad;
    rc_wr_t *wr;

    if (ep->ring_count == 0 ||
        ep->ring[(ep->ring_head + ep->ring_count - 1) % rc->sq_depth]->signaled) {
        return RCMSG_OK;
    }
    if (ep->failed) {
        /* rc_post would report the peer again: post directly */
        wr = rc_wr_get(rc);
        if (wr == NULL) {
            return RCMSG_ERR_NO_RESOURCE;
        }
        *wr = (rc_wr_t){.type = RC_WR_FLUSH, .signaled = true, .peer = peer, .sbuf = -1};
        swr.wr_id = (uintptr_t)wr;
        swr.send_flags = IBV_SEND_SIGNALED;
        if (ibv_post_send(ep->qp->qp, &swr, &bad) != 0) {
            rc_wr_put(rc, wr);
            return RCMSG_ERR_IO;
        }
        ep->ring[(ep->ring_head + ep->ring_count) % rc->sq_depth] = wr;
        ep->ring_count++;
        return RCMSG_OK;
    }
    wr = rc_wr_take(rc, ep, RC_WR_FLUSH, peer);
    if (wr == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    wr->signaled = true;
    return rc_post(rc, ep, wr, &swr);
}

/* A liveness probe: a signaled zero-length RDMA_WRITE, acknowledged by the peer's hardware
 * without a receive buffer. A dead peer's QP is gone, so the write exhausts its retries and
 * the endpoint fails. Nothing is posted while requests are outstanding: they probe already. */
static rcmsg_status_t rc_ping(rcmsg_btl_t *btl, int peer)
{
    rc_btl_t *rc = rc_btl_of(btl);
    rc_ep_t *ep;
    struct ibv_send_wr swr = {.opcode = IBV_WR_RDMA_WRITE, .num_sge = 0};
    rc_wr_t *wr;

    if (peer < 0 || peer >= rc->job.size || peer == rc->job.rank) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    ep = &rc->eps[peer];
    if (ep->failed || !ep->connected) {
        return ep->failed ? RCMSG_ERR_CONNECTION : RCMSG_ERR_STATE;
    }
    if (ep->ring_count > 0) {
        return rc_ep_flush(rc, peer); /* the last one signaled: it completes or fails */
    }
    wr = rc_wr_take(rc, ep, RC_WR_FLUSH, peer);
    if (wr == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    wr->signaled = true;
    return rc_post(rc, ep, wr, &swr);
}

/* ---- send and get ---------------------------------------------------------------------- */

static rcmsg_status_t rc_send(rcmsg_btl_t *btl, int peer, const void *hdr, size_t hdr_len,
                              const void *payload, size_t len)
{
    rc_btl_t *rc = rc_btl_of(btl);
    rc_ep_t *ep;
    rc_wr_t *wr;
    struct ibv_sge sge[2];
    struct ibv_send_wr swr = {.opcode = IBV_WR_SEND_WITH_IMM, .sg_list = sge};
    size_t total = hdr_len + len;

    if (peer < 0 || peer >= rc->job.size || peer == rc->job.rank || total > btl->caps.max_send) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    ep = &rc->eps[peer];
    if (__builtin_expect(ep->failed || !ep->connected, 0)) {
        return ep->failed ? RCMSG_ERR_CONNECTION : RCMSG_ERR_STATE;
    }
    wr = rc_wr_take(rc, ep, total <= btl->caps.max_inline ? RC_WR_SEND_INLINE : RC_WR_SEND, peer);
    if (wr == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    swr.imm_data = htobe32((uint32_t)rc->job.rank);
    wr->len = (uint32_t)total;
    if (wr->type == RC_WR_SEND_INLINE) {
        sge[0] = (struct ibv_sge){.addr = (uintptr_t)hdr, .length = (uint32_t)hdr_len};
        sge[1] = (struct ibv_sge){.addr = (uintptr_t)payload, .length = (uint32_t)len};
        swr.num_sge = len > 0 ? 2 : 1;
        swr.send_flags = IBV_SEND_INLINE;
    } else {
        char *buf;
        if (rc->sbuf_nfree == 0) {
            rc_wr_put(rc, wr);
            for (int i = 0; i < rc->job.size; i++) {
                if (rc->qps[i].qp != NULL) {
                    rc_ep_flush(rc, i); /* get the buffers of trailing unsignaled sends back */
                }
            }
            return RCMSG_ERR_NO_RESOURCE;
        }
        wr->sbuf = rc->sbuf_free[--rc->sbuf_nfree];
        buf = rc->sbufs + (size_t)wr->sbuf * rc->buf_size;
        memcpy(buf, hdr, hdr_len);
        if (len > 0) {
            memcpy(buf + hdr_len, payload, len);
        }
        sge[0] = (struct ibv_sge){
            .addr = (uintptr_t)buf, .length = (uint32_t)total, .lkey = rc->smr->lkey};
        swr.num_sge = 1;
    }
    return rc_post(rc, ep, wr, &swr);
}

static rcmsg_status_t rc_get(rcmsg_btl_t *btl, int peer, void *local, const rcmsg_btl_mem_t *lmem,
                             uint64_t remote_addr, uint32_t rkey, size_t len,
                             rcmsg_btl_desc_t *desc)
{
    rc_btl_t *rc = rc_btl_of(btl);
    rc_ep_t *ep;
    rc_wr_t *wr;
    struct ibv_sge sge = {.addr = (uintptr_t)local, .length = (uint32_t)len, .lkey = lmem->lkey};
    struct ibv_send_wr swr = {.opcode = IBV_WR_RDMA_READ, .sg_list = &sge, .num_sge = 1};

    if (peer < 0 || peer >= rc->job.size || peer == rc->job.rank || len > btl->caps.max_get ||
        desc == NULL || desc->complete == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    ep = &rc->eps[peer];
    if (ep->failed || !ep->connected) {
        return ep->failed ? RCMSG_ERR_CONNECTION : RCMSG_ERR_STATE;
    }
    wr = rc_wr_take(rc, ep, RC_WR_GET, peer);
    if (wr == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    wr->signaled = true;
    wr->desc = desc;
    wr->len = (uint32_t)len;
    desc->peer = peer;
    desc->len = len;
    swr.wr.rdma.remote_addr = remote_addr;
    swr.wr.rdma.rkey = rkey;
    return rc_post(rc, ep, wr, &swr);
}

/* ---- memory registration --------------------------------------------------------------- */

static struct ibv_mr *rc_reg(rc_btl_t *rc, void *addr, size_t len, int access)
{
    struct ibv_mr *mr = ibv_reg_mr(rc->pd, addr, len, access);

    if (mr == NULL) {
        int err = errno;
        rcmsg_error("ibv_reg_mr of %zu bytes on %s failed: %s%s", len, rc->dev->name, strerror(err),
                    err == ENOMEM ? " (locked memory limit too low? check 'ulimit -l'; it should "
                                    "be unlimited for RDMA)"
                                  : "");
    }
    return mr;
}

static rcmsg_status_t rc_mem_reg(rcmsg_btl_t *btl, void *addr, size_t len, int remote_read,
                                 rcmsg_btl_mem_t *mem_p)
{
    rc_btl_t *rc = rc_btl_of(btl);
    /* a buffer peers read needs REMOTE_READ only; a buffer we read into, LOCAL_WRITE */
    int access = remote_read ? IBV_ACCESS_REMOTE_READ : IBV_ACCESS_LOCAL_WRITE;
    struct ibv_mr *mr = rc_reg(rc, addr, len, access);

    if (mr == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    *mem_p =
        (rcmsg_btl_mem_t){.addr = addr, .len = len, .lkey = mr->lkey, .rkey = mr->rkey, .priv = mr};
    return RCMSG_OK;
}

static void rc_mem_dereg(rcmsg_btl_t *btl, rcmsg_btl_mem_t *mem)
{
    (void)btl;
    if (mem->priv != NULL && ibv_dereg_mr(mem->priv) != 0) {
        rcmsg_warn("ibv_dereg_mr failed: %m");
    }
    mem->priv = NULL;
}

/* ---- completions ----------------------------------------------------------------------- */

static int rc_peer_of_qpn(rc_btl_t *rc, uint32_t qpn)
{
    for (int i = 0; i < rc->job.size; i++) {
        if (rc->qps[i].qp != NULL && rc->qps[i].qp->qp_num == qpn) {
            return i;
        }
    }
    return -1;
}

/* Posts the n receive buffers idx[] to the SRQ again, in one call. */
static void rc_repost(rc_btl_t *rc, const int *idx, int n)
{
    struct ibv_sge sge[256];
    struct ibv_recv_wr rwr[256], *bad = NULL;
    int err;

    if (n <= 0) {
        return;
    }
    for (int i = 0; i < n; i++) {
        sge[i] = (struct ibv_sge){.addr = (uintptr_t)(rc->rbufs + (size_t)idx[i] * rc->buf_size),
                                  .length = (uint32_t)rc->buf_size,
                                  .lkey = rc->rmr->lkey};
        rwr[i] = (struct ibv_recv_wr){.wr_id = (uint64_t)idx[i],
                                      .next = i + 1 < n ? &rwr[i + 1] : NULL,
                                      .sg_list = &sge[i],
                                      .num_sge = 1};
    }
    err = ibv_post_srq_recv(rc->srq, rwr, &bad);
    if (err != 0) {
        int lost = bad != NULL ? n - (int)(bad - rwr) : n;
        rcmsg_error("ibv_post_srq_recv on %s failed: %s (%d receive buffer(s) lost)", rc->dev->name,
                    strerror(err), lost);
    }
}

static void rc_recv_error(rc_btl_t *rc, const struct ibv_wc *wc)
{
    int peer = rc_peer_of_qpn(rc, wc->qp_num);

    if (wc->status == IBV_WC_WR_FLUSH_ERR && (peer < 0 || rc->eps[peer].failed)) {
        rcmsg_debug("receive flushed on qp 0x%x (peer %d)", wc->qp_num, peer);
    } else {
        rcmsg_error("receive from peer %d failed: %s (status %d, vendor_err 0x%x) on %s:%d qp "
                    "0x%x (state %s)",
                    peer, ibv_wc_status_str(wc->status), wc->status, wc->vendor_err, rc->dev->name,
                    rc->port, wc->qp_num,
                    peer >= 0 ? rcmsg_rc_qp_state_name(rcmsg_rc_qp_resync(rc->eps[peer].qp))
                              : "unknown");
    }
    if (peer >= 0) {
        rc_ep_fail(rc, peer);
    }
}

/* A message whose sender rank disagrees with its connection: dropped, and the peer of the QP
 * it arrived on failed (a buggy or hostile rank; never delivered as another rank's). */
static void rc_recv_bad_sender(rc_btl_t *rc, const struct ibv_wc *wc, int qp_peer)
{
    char why[256];

    rcmsg_rc_qp_sender_check(wc->wc_flags & IBV_WC_WITH_IMM, be32toh(wc->imm_data), qp_peer,
                             rc->job.rank, rc->job.size, why, sizeof(why));
    rcmsg_error("dropped a %u-byte message on qp 0x%x: %s", wc->byte_len, wc->qp_num, why);
    if (qp_peer >= 0) {
        rc_ep_fail(rc, qp_peer);
    }
}

/* Delivers a receive completion; its buffer is then free to be posted again. The sender is
 * the rank in the immediate data, checked against the QP it arrived on (O(1) when they
 * agree: that rank's QP has this number). */
static void rc_recv_done(rc_btl_t *rc, const struct ibv_wc *wc)
{
    int index = (int)wc->wr_id;
    bool has_imm = (wc->wc_flags & IBV_WC_WITH_IMM) != 0;
    uint32_t imm = be32toh(wc->imm_data);
    int qp_peer;

    if (__builtin_expect(wc->status != IBV_WC_SUCCESS, 0)) {
        rc_recv_error(rc, wc);
        return;
    }
    qp_peer = has_imm && imm < (uint32_t)rc->job.size && rc->qps[imm].qp != NULL &&
                      rc->qps[imm].qp->qp_num == wc->qp_num
                  ? (int)imm
                  : rc_peer_of_qpn(rc, wc->qp_num);
    if (__builtin_expect(rcmsg_rc_qp_sender_check(has_imm, imm, qp_peer, rc->job.rank, rc->job.size,
                                                  NULL, 0) != RCMSG_OK,
                         0)) {
        rc_recv_bad_sender(rc, wc, qp_peer);
        return;
    }
    rc->super.recv_cb(rc->super.cb_arg, qp_peer, rc->rbufs + (size_t)index * rc->buf_size,
                      wc->byte_len);
}

static void rc_send_done(rc_btl_t *rc, const struct ibv_wc *wc)
{
    rc_wr_t *wr = (rc_wr_t *)(uintptr_t)wc->wr_id;
    rc_ep_t *ep = &rc->eps[wr->peer];
    rcmsg_status_t status = RCMSG_OK;

    if (__builtin_expect(wc->status != IBV_WC_SUCCESS, 0)) {
        status = RCMSG_ERR_CONNECTION;
        if (wc->status == IBV_WC_WR_FLUSH_ERR && ep->failed) {
            rcmsg_debug("%s to peer %d flushed on qp 0x%x", rc_wr_type_name(wr->type), wr->peer,
                        wc->qp_num);
        } else {
            rcmsg_error("%s of %u bytes to peer %d failed: %s (status %d, vendor_err 0x%x) on "
                        "%s:%d qp 0x%x (state %s)",
                        rc_wr_type_name(wr->type), wr->len, wr->peer, ibv_wc_status_str(wc->status),
                        wc->status, wc->vendor_err, rc->dev->name, rc->port, wc->qp_num,
                        rcmsg_rc_qp_state_name(rcmsg_rc_qp_resync(ep->qp)));
        }
    }
    rc_ep_complete_upto(rc, ep, wr, status);
    if (status != RCMSG_OK) {
        rc_ep_fail(rc, wr->peer);
    }
}

static void rc_async_handle(rc_btl_t *rc)
{
    atomic_store_explicit(&rc->async_pending, 0, memory_order_relaxed);
    for (int i = 0; i < rc->job.size; i++) {
        if (atomic_exchange_explicit(&rc->eps[i].async_event, 0, memory_order_acquire) != 0) {
            rc_ep_fail(rc, i);
        }
    }
}

static int rc_progress(rcmsg_btl_t *btl)
{
    rc_btl_t *rc = rc_btl_of(btl);
    struct ibv_wc wc[256];
    int idx[256];
    int n, total = 0;

    n = ibv_poll_cq(rc->rcq, (int)rc->poll_batch, wc);
    for (int i = 0; i < n; i++) {
        rc_recv_done(rc, &wc[i]);
        idx[i] = (int)wc[i].wr_id;
    }
    if (n > 0 && !rc->closing) {
        rc_repost(rc, idx, n); /* the batch's buffers, in one post */
    }
    total += n > 0 ? n : 0;
    n = ibv_poll_cq(rc->scq, (int)rc->poll_batch, wc);
    for (int i = 0; i < n; i++) {
        rc_send_done(rc, &wc[i]);
    }
    total += n > 0 ? n : 0;
    if (__builtin_expect(atomic_load_explicit(&rc->async_pending, memory_order_acquire), 0)) {
        rc_async_handle(rc);
    }
    return total;
}

static rcmsg_status_t rc_flush(rcmsg_btl_t *btl)
{
    rc_btl_t *rc = rc_btl_of(btl);
    uint64_t deadline = rcmsg_clock_us() + rcmsg_config_time_us(RCMSG_CFG_DRAIN_TIMEOUT);
    int pending;

    for (;;) {
        pending = 0;
        for (int i = 0; i < rc->job.size; i++) {
            if (rc->qps[i].qp != NULL && !rc->eps[i].failed && rc->eps[i].ring_count > 0) {
                rc_ep_flush(rc, i);
                pending++;
            }
        }
        if (pending == 0) {
            return RCMSG_OK;
        }
        if (rcmsg_clock_us() > deadline) {
            break;
        }
        rc_progress(btl);
    }
    rcmsg_error("flush timed out after %llu ms with sends pending to %d peer(s) "
                "(RCMSG_DRAIN_TIMEOUT); QP states follow",
                (unsigned long long)rcmsg_config_time_us(RCMSG_CFG_DRAIN_TIMEOUT) / 1000, pending);
    rcmsg_rc_btl_dump(btl, RCMSG_LOG_ERROR);
    return RCMSG_ERR_TIMEOUT;
}

/* ---- completion events ----------------------------------------------------------------- */

static int rc_event_fd(rcmsg_btl_t *btl)
{
    return rc_btl_of(btl)->channel->fd;
}

static rcmsg_status_t rc_arm(rcmsg_btl_t *btl)
{
    rc_btl_t *rc = rc_btl_of(btl);
    struct ibv_cq *cq;
    void *cq_ctx;

    /* consume the events that woke us (the fd is non-blocking) */
    while (ibv_get_cq_event(rc->channel, &cq, &cq_ctx) == 0) {
        ibv_ack_cq_events(cq, 1);
    }
    if (ibv_req_notify_cq(rc->rcq, 0) != 0 || ibv_req_notify_cq(rc->scq, 0) != 0) {
        rcmsg_error("ibv_req_notify_cq on %s failed: %m", rc->dev->name);
        return RCMSG_ERR_IO;
    }
    return atomic_load_explicit(&rc->async_pending, memory_order_acquire) ? RCMSG_INPROGRESS
                                                                          : RCMSG_OK;
}

/* ---- async events ---------------------------------------------------------------------- */

static void rc_async_event(rc_btl_t *rc, struct ibv_async_event *ev)
{
    rc_ep_t *ep;

    switch (ev->event_type) {
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_QP_ACCESS_ERR:
    case IBV_EVENT_PATH_MIG_ERR:
        ep = ev->element.qp->qp_context;
        rcmsg_error("async event %s on qp 0x%x (peer %d, %s:%d, state %s)",
                    ibv_event_type_str(ev->event_type), ev->element.qp->qp_num, ep->qp->peer,
                    rc->dev->name, rc->port, rcmsg_rc_qp_state_name(ep->qp->state));
        atomic_store_explicit(&ep->async_event, (int)ev->event_type + 1, memory_order_release);
        atomic_store_explicit(&rc->async_pending, 1, memory_order_release);
        break;
    case IBV_EVENT_COMM_EST:
    case IBV_EVENT_SQ_DRAINED:
    case IBV_EVENT_QP_LAST_WQE_REACHED:
        ep = ev->element.qp->qp_context;
        rcmsg_debug("async event %s on qp 0x%x (peer %d)", ibv_event_type_str(ev->event_type),
                    ev->element.qp->qp_num, ep->qp->peer);
        break;
    case IBV_EVENT_SRQ_LIMIT_REACHED:
        rcmsg_warn("async event %s on %s: receive buffers are consumed faster than this rank "
                   "progresses (RCMSG_SRQ_SIZE=%lld)",
                   ibv_event_type_str(ev->event_type), rc->dev->name,
                   rcmsg_config_int(RCMSG_CFG_SRQ_SIZE));
        break;
    case IBV_EVENT_SRQ_ERR:
    case IBV_EVENT_CQ_ERR:
    case IBV_EVENT_DEVICE_FATAL:
        rcmsg_error("async event %s on %s: the device is unusable",
                    ibv_event_type_str(ev->event_type), rc->dev->name);
        for (int i = 0; i < rc->job.size; i++) {
            if (rc->qps[i].qp != NULL) {
                atomic_store_explicit(&rc->eps[i].async_event, (int)ev->event_type + 1,
                                      memory_order_release);
            }
        }
        atomic_store_explicit(&rc->async_pending, 1, memory_order_release);
        break;
    case IBV_EVENT_PORT_ERR:
        rcmsg_error("async event %s on %s:%d: the port went down; peers will fail once their "
                    "retries run out",
                    ibv_event_type_str(ev->event_type), rc->dev->name, ev->element.port_num);
        break;
    default:
        rcmsg_info("async event %s on %s", ibv_event_type_str(ev->event_type), rc->dev->name);
        break;
    }
}

static void *rc_async_main(void *arg)
{
    rc_btl_t *rc = arg;
    struct pollfd fds[2] = {{.fd = rc->dev->ctx->async_fd, .events = POLLIN},
                            {.fd = rc->async_wake_fd, .events = POLLIN}};

    for (;;) {
        struct ibv_async_event ev;

        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            rcmsg_error("poll on the async event fd of %s failed: %m", rc->dev->name);
            break;
        }
        if (fds[1].revents != 0) {
            break;
        }
        while (ibv_get_async_event(rc->dev->ctx, &ev) == 0) {
            rc_async_event(rc, &ev);
            ibv_ack_async_event(&ev);
        }
    }
    return NULL;
}

static rcmsg_status_t rc_async_start(rc_btl_t *rc)
{
    int flags = fcntl(rc->dev->ctx->async_fd, F_GETFL);
    int err;

    if (flags < 0 || fcntl(rc->dev->ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        rcmsg_error("cannot make the async fd of %s non-blocking: %m", rc->dev->name);
        return RCMSG_ERR_IO;
    }
    rc->async_wake_fd = eventfd(0, EFD_CLOEXEC);
    if (rc->async_wake_fd < 0) {
        rcmsg_error("eventfd failed: %m");
        return RCMSG_ERR_IO;
    }
    err = pthread_create(&rc->async_thread, NULL, rc_async_main, rc);
    if (err != 0) {
        rcmsg_error("cannot start the async event thread: %s", strerror(err));
        close(rc->async_wake_fd);
        return RCMSG_ERR_IO;
    }
    rc->async_running = true;
    return RCMSG_OK;
}

static void rc_async_stop(rc_btl_t *rc)
{
    uint64_t one = 1;

    if (!rc->async_running) {
        return;
    }
    if (write(rc->async_wake_fd, &one, sizeof(one)) != sizeof(one)) {
        rcmsg_warn("cannot wake the async event thread: %m");
    }
    pthread_join(rc->async_thread, NULL);
    close(rc->async_wake_fd);
    rc->async_running = false;
}

/* ---- device choice --------------------------------------------------------------------- */

typedef struct {
    char name[IBV_SYSFS_NAME_MAX];
    int port;
    int distance; /* 0 same NUMA node as the process, 1 unknown (no locality), 2 other node */
} rc_candidate_t;

/* Adds the ACTIVE ports of device `name` (only `port` if > 0) to the candidates. */
static int rc_candidates_add(const char *name, int port, int numa, rc_candidate_t *c, int n,
                             int max)
{
    rcmsg_rc_device_t *dev;
    char where[64];
    int dev_numa;

    if (rcmsg_rc_device_open(name, &dev) != RCMSG_OK) {
        return n;
    }
    dev_numa = rcmsg_rc_device_numa(dev, where, sizeof(where));
    for (int p = 1; p <= dev->attr.phys_port_cnt && n < max; p++) {
        struct ibv_port_attr pa;
        if ((port > 0 && p != port) || rcmsg_rc_port_query(dev, p, &pa) != RCMSG_OK) {
            continue;
        }
        if (pa.state != IBV_PORT_ACTIVE) {
            rcmsg_info("%s:%d is %s, not used", name, p, rcmsg_rc_port_state_name(pa.state));
            continue;
        }
        snprintf(c[n].name, sizeof(c[n].name), "%s", name);
        c[n].port = p;
        c[n].distance = dev_numa < 0 ? 1 : (numa >= 0 && dev_numa == numa ? 0 : 2);
        rcmsg_info("candidate %s:%d (%s, numa %s)", name, p,
                   rcmsg_rc_link_layer_name(pa.link_layer), where);
        n++;
    }
    rcmsg_rc_device_close(dev);
    return n;
}

static rcmsg_status_t rc_choose_port(const rcmsg_btl_job_t *job, char *name, int *port_p)
{
    rc_candidate_t c[64];
    int n = 0, best = 3, nbest = 0, pick, numa = rcmsg_topo_bound_numa();
    char where[64];
    size_t nwanted;
    char *const *wanted = rcmsg_config_list(RCMSG_CFG_NET_DEVICES, &nwanted);

    if (nwanted > 0) {
        for (size_t i = 0; i < nwanted; i++) {
            char dev[IBV_SYSFS_NAME_MAX];
            int port = 0, before = n;
            const char *colon = strchr(wanted[i], ':');
            char *end;

            snprintf(dev, sizeof(dev), "%.*s",
                     (int)(colon ? (size_t)(colon - wanted[i]) : strlen(wanted[i])), wanted[i]);
            if (colon != NULL) {
                port = (int)strtol(colon + 1, &end, 10);
                if (*end != '\0' || port < 1) {
                    rcmsg_error("RCMSG_NET_DEVICES entry '%s': expected DEVICE or DEVICE:PORT "
                                "with PORT >= 1",
                                wanted[i]);
                    return RCMSG_ERR_CONFIG;
                }
            }
            n = rc_candidates_add(dev, port, numa, c, n, 64);
            if (n == before) {
                rcmsg_warn("RCMSG_NET_DEVICES entry '%s' has no ACTIVE port (or no such device)",
                           wanted[i]);
            }
        }
    } else {
        char **names;
        int ndev;
        if (rcmsg_rc_device_names(&names, &ndev) != RCMSG_OK) {
            return RCMSG_ERR_IO;
        }
        for (int i = 0; i < ndev; i++) {
            n = rc_candidates_add(names[i], 0, numa, c, n, 64);
        }
        rcmsg_rc_device_names_free(names);
    }
    if (n == 0) {
        rcmsg_error("no ACTIVE RDMA port found%s (rcmsg_info lists the devices and their ports)",
                    nwanted > 0 ? " among RCMSG_NET_DEVICES" : "");
        return RCMSG_ERR_NO_DEVICE;
    }
    for (int i = 0; i < n; i++) {
        if (c[i].distance < best) {
            best = c[i].distance;
            nbest = 0;
        }
        nbest += c[i].distance == best;
    }
    /* equally near ports are shared out by local rank */
    pick = job->local_rank % nbest;
    for (int i = 0; i < n; i++) {
        if (c[i].distance == best && pick-- == 0) {
            snprintf(name, IBV_SYSFS_NAME_MAX, "%s", c[i].name);
            *port_p = c[i].port;
            break;
        }
    }
    if (numa >= 0) {
        snprintf(where, sizeof(where), "bound to numa node %d", numa);
    } else {
        snprintf(where, sizeof(where), "not bound to one numa node");
    }
    rcmsg_info("using %s:%d: %d equally near port(s) (%s), picked by local rank %d; process %s",
               name, *port_p, nbest,
               best == 0   ? "same numa node"
               : best == 1 ? "no locality information"
                           : "other numa node",
               job->local_rank, where);
    return RCMSG_OK;
}

/* ---- open and close -------------------------------------------------------------------- */

static rcmsg_status_t rc_srq_fill(rc_btl_t *rc)
{
    struct ibv_srq_init_attr sattr = {
        .attr = {.max_wr = (uint32_t)rc->nrbufs, .max_sge = 1},
    };
    struct ibv_srq_attr limit = {.srq_limit = (uint32_t)rc->nrbufs / 8};

    rc->srq = ibv_create_srq(rc->pd, &sattr);
    if (rc->srq == NULL) {
        rcmsg_error("ibv_create_srq(%d) on %s failed: %m", rc->nrbufs, rc->dev->name);
        return RCMSG_ERR_IO;
    }
    for (int i = 0; i < rc->nrbufs;) {
        int idx[256], n = 0;

        while (n < 256 && i < rc->nrbufs) {
            idx[n++] = i++;
        }
        rc_repost(rc, idx, n);
    }
    if (ibv_modify_srq(rc->srq, &limit, IBV_SRQ_LIMIT) != 0) {
        rcmsg_debug("srq limit not supported on %s: %m", rc->dev->name);
    }
    return RCMSG_OK;
}

static rcmsg_status_t rc_qps_create(rc_btl_t *rc)
{
    struct ibv_qp_init_attr init = {
        .send_cq = rc->scq,
        .recv_cq = rc->rcq,
        .srq = rc->srq,
        .qp_type = IBV_QPT_RC,
        .cap = {.max_send_wr = rc->sq_depth,
                .max_send_sge = 2,
                .max_inline_data = (uint32_t)rc->super.caps.max_inline},
    };
    struct ibv_qp_attr attr = {
        .qp_state = IBV_QPS_INIT,
        .pkey_index = 0,
        .port_num = (uint8_t)rc->port,
        .qp_access_flags =
            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE,
    };
    uint32_t psn[1024];

    for (int i = 0; i < rc->job.size; i++) {
        rc_ep_t *ep = &rc->eps[i];

        rc->qps[i] = (rcmsg_rc_qp_t){.peer = i, .dev_name = rc->dev->name, .port = rc->port};
        ep->qp = &rc->qps[i];
        if (i % 1024 == 0 && getrandom(psn, sizeof(psn), 0) != sizeof(psn)) {
            for (int j = 0; j < 1024; j++) {
                psn[j] = (uint32_t)rand();
            }
        }
        if (i == rc->job.rank) {
            continue;
        }
        ep->sq_psn = psn[i % 1024] & 0xffffff;
        ep->ring = calloc(rc->sq_depth, sizeof(*ep->ring));
        init.qp_context = ep;
        rc->qps[i].qp = ep->ring ? ibv_create_qp(rc->pd, &init) : NULL;
        if (rc->qps[i].qp == NULL) {
            rcmsg_error("ibv_create_qp for peer %d on %s failed: %m (%d QPs created; device max "
                        "%d)",
                        i, rc->dev->name, i, rc->dev->attr.max_qp);
            return RCMSG_ERR_IO;
        }
        rc->qps[i].state = IBV_QPS_RESET;
        if (rcmsg_rc_qp_modify(&rc->qps[i], &attr,
                               IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                   IBV_QP_ACCESS_FLAGS) != RCMSG_OK) {
            return RCMSG_ERR_IO;
        }
    }
    return RCMSG_OK;
}

static void rc_close(rcmsg_btl_t *btl)
{
    rc_btl_t *rc = rc_btl_of(btl);

    rc->closing = true;
    rc_async_stop(rc);
    for (int i = 0; rc->qps != NULL && i < rc->job.size; i++) {
        if (rc->qps[i].qp != NULL && ibv_destroy_qp(rc->qps[i].qp) != 0) {
            rcmsg_warn("ibv_destroy_qp(qp 0x%x, peer %d) failed: %m", rc->qps[i].qp->qp_num, i);
        }
        if (rc->eps != NULL) {
            free(rc->eps[i].ring);
        }
    }
    if (rc->srq != NULL && ibv_destroy_srq(rc->srq) != 0) {
        rcmsg_warn("ibv_destroy_srq failed: %m");
    }
    if (rc->scq != NULL && ibv_destroy_cq(rc->scq) != 0) {
        rcmsg_warn("ibv_destroy_cq(send) failed: %m");
    }
    if (rc->rcq != NULL && ibv_destroy_cq(rc->rcq) != 0) {
        rcmsg_warn("ibv_destroy_cq(recv) failed: %m");
    }
    if (rc->channel != NULL && ibv_destroy_comp_channel(rc->channel) != 0) {
        rcmsg_warn("ibv_destroy_comp_channel failed: %m");
    }
    if (rc->smr != NULL) {
        ibv_dereg_mr(rc->smr);
    }
    if (rc->rmr != NULL) {
        ibv_dereg_mr(rc->rmr);
    }
    if (rc->pd != NULL && ibv_dealloc_pd(rc->pd) != 0) {
        rcmsg_warn("ibv_dealloc_pd failed: %m");
    }
    rcmsg_rc_device_close(rc->dev);
    rc_free_bufs(rc->rbufs, rc->rbufs_len, rc->rbufs_bound);
    rc_free_bufs(rc->sbufs, rc->sbufs_len, rc->sbufs_bound);
    free(rc->sbuf_free);
    free(rc->wrs);
    free(rc->qps);
    free(rc->eps);
    free(rc);
}

static const rcmsg_btl_ops_t rc_ops = {
    .addr_pack = rc_addr_pack,
    .connect = rc_connect,
    .send = rc_send,
    .get = rc_get,
    .mem_reg = rc_mem_reg,
    .mem_dereg = rc_mem_dereg,
    .ping = rc_ping,
    .progress = rc_progress,
    .flush = rc_flush,
    .event_fd = rc_event_fd,
    .arm = rc_arm,
    .close = rc_close,
};

/*
 * The NUMA node for buffers: the node the process is bound to, else the device's node, else
 * none (memory then follows the kernel's default policy). Logged at info level.
 */
static int rc_mem_node(rc_btl_t *rc)
{
    int node = rcmsg_topo_bound_numa();
    char where[64];

    if (node >= 0) {
        rcmsg_info("%s: buffers bound to numa node %d, the node of the process's cpu binding",
                   rc->dev->name, node);
        return node;
    }
    node = rcmsg_rc_device_numa(rc->dev, where, sizeof(where));
    if (node >= 0) {
        rcmsg_info("%s: buffers bound to numa node %d, the device's node (process not bound "
                   "to one node)",
                   rc->dev->name, node);
        return node;
    }
    rcmsg_info("%s: buffers not bound to a numa node: the process is not bound to one node and "
               "the device has %s",
               rc->dev->name, where);
    return -1;
}

/* Zeroed, page-aligned memory, bound to rc->mem_node when there is one (*bound_p). */
static void *rc_alloc_bufs(rc_btl_t *rc, size_t len, bool *bound_p)
{
    hwloc_topology_t topo = rcmsg_topo_get();
    void *p = NULL;

    if (rc->mem_node >= 0 && topo != NULL) {
        hwloc_obj_t numa = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)rc->mem_node);
        p = numa ? hwloc_alloc_membind(topo, len, numa->nodeset, HWLOC_MEMBIND_BIND,
                                       HWLOC_MEMBIND_BYNODESET)
                 : NULL;
        if (p == NULL) {
            rcmsg_warn("cannot bind %zu bytes to numa node %d (%m): unbound memory used", len,
                       rc->mem_node);
        }
    }
    *bound_p = p != NULL;
    if (p == NULL && posix_memalign(&p, 4096, len) != 0) {
        return NULL;
    }
    memset(p, 0, len); /* first touch: the pages are placed now */
    return p;
}

static void rc_free_bufs(void *p, size_t len, bool bound)
{
    if (p == NULL) {
        return;
    }
    if (bound) {
        hwloc_free(rcmsg_topo_get(), p, len);
    } else {
        free(p);
    }
}

void rcmsg_rc_btl_buffers(rcmsg_btl_t *btl, void **addr_p, size_t *len_p, int *node_p)
{
    rc_btl_t *rc = rc_btl_of(btl);

    *addr_p = rc->rbufs;
    *len_p = rc->rbufs_len;
    *node_p = rc->rbufs_bound ? rc->mem_node : -1;
}

/*
 * Shrinks the receive and send pools to fit half of the locked-memory limit (rc_memlock.h),
 * with a warning naming `ulimit -l` and the sizes chosen; an error when even the minimum does
 * not fit.
 */
static rcmsg_status_t rc_pools_fit_memlock(rc_btl_t *rc)
{
    size_t limit = rcmsg_rc_memlock_limit();
    int nr = rc->nrbufs, ns = rc->nsbufs;

    if (limit == SIZE_MAX) {
        return RCMSG_OK;
    }
    if (rcmsg_rc_pools_fit(limit, rc->buf_size, &nr, &ns) != RCMSG_OK) {
        rcmsg_error("the locked memory limit (memlock, 'ulimit -l') of %zu KiB is too low for rc "
                    "on %s: it needs at least %zu KiB (%d receive and %d send buffers of "
                    "RCMSG_SRQ_BUF_SIZE=%zu bytes, and as much again for queues and rendezvous "
                    "registrations); raise it: 'ulimit -l unlimited', or memlock in "
                    "/etc/security/limits.conf",
                    limit / 1024, rc->dev->name,
                    rcmsg_rc_pools_min_limit(rc->buf_size, rc->nrbufs, rc->nsbufs) / 1024,
                    nr < RCMSG_RC_MIN_RECV_BUFS ? nr : RCMSG_RC_MIN_RECV_BUFS,
                    ns < RCMSG_RC_MIN_SEND_BUFS ? ns : RCMSG_RC_MIN_SEND_BUFS, rc->buf_size);
        return RCMSG_ERR_NO_MEMORY;
    }
    if (nr != rc->nrbufs || ns != rc->nsbufs) {
        rcmsg_warn("the locked memory limit ('ulimit -l') is %zu KiB: rc on %s uses %d receive "
                   "buffers (RCMSG_SRQ_SIZE asks %d) and %d send buffers (RCMSG_SEND_BUFS asks "
                   "%d) of %zu bytes, %zu KiB, half the limit; raise 'ulimit -l' (unlimited is "
                   "usual for RDMA) for the sizes asked",
                   limit / 1024, rc->dev->name, nr, rc->nrbufs, ns, rc->nsbufs, rc->buf_size,
                   (size_t)(nr + ns) * rc->buf_size / 1024);
    }
    rc->nrbufs = nr;
    rc->nsbufs = ns;
    return RCMSG_OK;
}

/* CQs, buffers and their registrations, sized from the configuration and the device. */
static rcmsg_status_t rc_resources_create(rc_btl_t *rc)
{
    int max_cqe = rc->dev->attr.max_cqe;
    int npeers = rc->job.size - 1;
    long long want_wrs = (long long)npeers * rc->sq_depth;

    rc->buf_size = rcmsg_config_size(RCMSG_CFG_SRQ_BUF_SIZE);
    rc->nrbufs = (int)rcmsg_config_int(RCMSG_CFG_SRQ_SIZE);
    rc->nsbufs = (int)rcmsg_config_int(RCMSG_CFG_SEND_BUFS);
    if (rc->nrbufs > max_cqe || rc->nrbufs > rc->dev->attr.max_srq_wr) {
        rc->nrbufs = max_cqe < rc->dev->attr.max_srq_wr ? max_cqe : rc->dev->attr.max_srq_wr;
        rcmsg_warn("RCMSG_SRQ_SIZE capped to %d by %s (max_cqe %d, max_srq_wr %d)", rc->nrbufs,
                   rc->dev->name, max_cqe, rc->dev->attr.max_srq_wr);
    }
    if (rc_pools_fit_memlock(rc) != RCMSG_OK) {
        return RCMSG_ERR_NO_MEMORY;
    }
    rc->wr_total = (int)(want_wrs < max_cqe ? want_wrs : max_cqe);
    if (rc->wr_total < 1) {
        rc->wr_total = 1;
    }
    rc->pd = ibv_alloc_pd(rc->dev->ctx);
    rc->channel = rc->pd ? ibv_create_comp_channel(rc->dev->ctx) : NULL;
    rc->scq = rc->channel ? ibv_create_cq(rc->dev->ctx, rc->wr_total, NULL, rc->channel, 0) : NULL;
    rc->rcq = rc->scq ? ibv_create_cq(rc->dev->ctx, rc->nrbufs, NULL, rc->channel, 0) : NULL;
    if (rc->rcq != NULL) {
        int flags = fcntl(rc->channel->fd, F_GETFL);
        if (flags < 0 || fcntl(rc->channel->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
            rcmsg_error("cannot make the completion channel of %s non-blocking: %m", rc->dev->name);
            return RCMSG_ERR_IO;
        }
    }
    if (rc->rcq == NULL) {
        rcmsg_error("cannot allocate the PD and CQs (%d + %d entries) on %s: %m", rc->wr_total,
                    rc->nrbufs, rc->dev->name);
        return RCMSG_ERR_IO;
    }
    rc->mem_node = rc_mem_node(rc);
    rc->rbufs_len = (size_t)rc->nrbufs * rc->buf_size;
    rc->sbufs_len = (size_t)rc->nsbufs * rc->buf_size;
    rc->rbufs = rc_alloc_bufs(rc, rc->rbufs_len, &rc->rbufs_bound);
    rc->sbufs = rc_alloc_bufs(rc, rc->sbufs_len, &rc->sbufs_bound);
    rc->sbuf_free = calloc((size_t)rc->nsbufs, sizeof(int));
    rc->wrs = calloc((size_t)rc->wr_total, sizeof(*rc->wrs));
    if (rc->rbufs == NULL || rc->sbufs == NULL || rc->sbuf_free == NULL || rc->wrs == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    rc->rmr = rc_reg(rc, rc->rbufs, (size_t)rc->nrbufs * rc->buf_size, IBV_ACCESS_LOCAL_WRITE);
    rc->smr = rc->rmr ? rc_reg(rc, rc->sbufs, (size_t)rc->nsbufs * rc->buf_size, 0) : NULL;
    if (rc->smr == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < rc->nsbufs; i++) {
        rc->sbuf_free[i] = rc->nsbufs - 1 - i;
    }
    rc->sbuf_nfree = rc->nsbufs;
    for (int i = 0; i < rc->wr_total; i++) {
        rc->wrs[i].sbuf = -1;
        rc_wr_put(rc, &rc->wrs[i]);
    }
    rcmsg_info("%s:%d: send cq %d entries, recv cq and srq %d x %zu-byte buffers, %d send "
               "buffers, %u send wr per qp",
               rc->dev->name, rc->port, rc->wr_total, rc->nrbufs, rc->buf_size, rc->nsbufs,
               rc->sq_depth);
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_rc_btl_open(const rcmsg_btl_job_t *job, rcmsg_btl_t **btl_p)
{
    char name[IBV_SYSFS_NAME_MAX] = "";
    rc_btl_t *rc;
    rcmsg_status_t status;
    unsigned inl;
    uint64_t t0 = rcmsg_clock_us(), t_dev, t_res, t_qps;

    rc = calloc(1, sizeof(*rc));
    if (rc == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    rc->job = *job;
    rc->super.name = "rc";
    rc->super.ops = &rc_ops;
    rc->sq_depth = (unsigned)rcmsg_config_int(RCMSG_CFG_QP_SEND_DEPTH);
    rc->signal_interval = (unsigned)rcmsg_config_int(RCMSG_CFG_SIGNAL_INTERVAL);
    if (rc->signal_interval > rc->sq_depth / 2) {
        rc->signal_interval = rc->sq_depth / 2;
    }
    rc->poll_batch = (unsigned)rcmsg_config_int(RCMSG_CFG_POLL_BATCH);

    status = rc_choose_port(job, name, &rc->port);
    if (status == RCMSG_OK) {
        status = rcmsg_rc_device_open(name, &rc->dev);
    }
    if (status != RCMSG_OK) {
        free(rc);
        return status;
    }
    status = rcmsg_rc_port_query(rc->dev, rc->port, &rc->port_attr);
    if (status != RCMSG_OK) {
        goto err_close;
    }
    status = rcmsg_rc_gid_select(rc->dev, rc->port, (int)rcmsg_config_int(RCMSG_CFG_GID_INDEX),
                                 &rc->gid);
    if (status != RCMSG_OK && rc->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
        goto err_close;
    }
    inl = rcmsg_rc_max_inline(rc->dev, (unsigned)rcmsg_config_size(RCMSG_CFG_QP_MAX_INLINE));
    rc->rd_atomic = (unsigned)rc->dev->attr.max_qp_rd_atom;
    if (rc->rd_atomic > (unsigned)rc->dev->attr.max_qp_init_rd_atom) {
        rc->rd_atomic = (unsigned)rc->dev->attr.max_qp_init_rd_atom;
    }
    if (rc->rd_atomic > RC_RD_ATOMIC_MAX) {
        rc->rd_atomic = RC_RD_ATOMIC_MAX;
    }
    rc->qps = calloc((size_t)job->size, sizeof(*rc->qps));
    rc->eps = calloc((size_t)job->size, sizeof(*rc->eps));
    if (rc->qps == NULL || rc->eps == NULL) {
        status = RCMSG_ERR_NO_MEMORY;
        goto err_close;
    }
    t_dev = rcmsg_clock_us();
    status = rc_resources_create(rc);
    if (status != RCMSG_OK) {
        goto err_close;
    }
    rc->super.caps = (rcmsg_btl_caps_t){
        .max_send = rc->buf_size,
        .max_inline = inl < rc->buf_size ? inl : rc->buf_size,
        .max_get = rc->port_attr.max_msg_sz,
        .max_gets = rc->rd_atomic,
        .chunked_gets = 1,
    };
    status = rc_srq_fill(rc); /* receives are posted before any QP can reach RTR */
    t_res = rcmsg_clock_us();
    if (status == RCMSG_OK) {
        status = rc_qps_create(rc);
    }
    t_qps = rcmsg_clock_us();
    if (status == RCMSG_OK) {
        status = rc_async_start(rc);
    }
    if (status != RCMSG_OK) {
        goto err_close;
    }
    rcmsg_info("%s:%d: %d qps in INIT, max inline %zu, max rd atomic %u, mtu %d; device choice "
               "and open %.1f ms, cqs/srq/buffers %.1f ms, qp creation %.1f ms",
               rc->dev->name, rc->port, job->size - 1, rc->super.caps.max_inline, rc->rd_atomic,
               rcmsg_rc_mtu_bytes(rc->port_attr.active_mtu), (double)(t_dev - t0) / 1e3,
               (double)(t_res - t_dev) / 1e3, (double)(t_qps - t_res) / 1e3);
    *btl_p = &rc->super;
    return RCMSG_OK;

err_close:
    rc_close(&rc->super);
    return status;
}

rcmsg_status_t rcmsg_rc_btl_force_error(rcmsg_btl_t *btl, int peer)
{
    rc_btl_t *rc = rc_btl_of(btl);
    struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};

    if (peer < 0 || peer >= rc->job.size || rc->qps[peer].qp == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    rcmsg_warn("forcing qp 0x%x (peer %d) from %s into ERR", rc->qps[peer].qp->qp_num, peer,
               rcmsg_rc_qp_state_name(rc->qps[peer].state));
    return rcmsg_rc_qp_modify(&rc->qps[peer], &attr, IBV_QP_STATE);
}

void rcmsg_rc_btl_dump(rcmsg_btl_t *btl, rcmsg_log_level_t level)
{
    rc_btl_t *rc = rc_btl_of(btl);

    if (!rcmsg_log_enabled(level)) {
        return;
    }
    rcmsg_log(level, "%s:%d: %d/%d send slots free, %d/%d send buffers free", rc->dev->name,
              rc->port, rc->wr_nfree, rc->wr_total, rc->sbuf_nfree, rc->nsbufs);
    rcmsg_rc_qp_dump(rc->qps, rc->job.size, level);
}
