/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP pool of btl_rc (rc_iface.h): RC QPs created in bulk and moved RESET -> INIT before they
 * are needed (the cold path), so a connect only moves one to RTR and RTS. A recycled connection's
 * QP is reset and comes back here (RESET -> INIT again), with its ring of request slots.
 *
 * Eager connect fills the pool with one QP per rc peer in rcmsg_init; lazy connect with
 * RCMSG_QP_POOL of them, and progress refills it when it falls below half (rc_conn.c). A take
 * from an empty pool creates a QP on the spot (logged at debug level).
 *
 * Soft-RoCE (rxe, vendor id 0xffffff) caches an RC QP's IP route in the QP when it first sends
 * and keeps it for the QP's life: a new address vector after a reset does not replace it, so a
 * QP reused towards a peer at another address sends its packets along the old route and they
 * are never acknowledged (retry exceeded). On such a device a pooled QP is reused only for a
 * peer at the GID it last served (or one it never served); otherwise a fresh QP replaces it.
 */
#include "config.h"

#include "rc_iface.h"

#include "base/clock.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* RESET -> INIT: the port, and the access a connection needs. */
static rcmsg_status_t rc_qp_to_init(rc_btl_t *rc, rcmsg_rc_qp_t *qp)
{
    struct ibv_qp_attr attr = {
        .qp_state = IBV_QPS_INIT,
        .pkey_index = 0,
        .port_num = (uint8_t)rc->port,
        .qp_access_flags =
            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE,
    };

    if (rc->dev->attr.atomic_cap != IBV_ATOMIC_NONE) {
        attr.qp_access_flags |= IBV_ACCESS_REMOTE_ATOMIC; /* one-sided windows (src/osc) */
    }

    return rcmsg_rc_qp_modify(qp, &attr,
                              IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* A new RC QP in INIT on the interface's CQs and SRQ, and its ring. */
static rcmsg_status_t rc_qp_new(rc_btl_t *rc, rc_pooled_t *out)
{
    struct ibv_qp_init_attr init = {
        .send_cq = rc->scq,
        .recv_cq = rc->rcq,
        .srq = rc->rx.srq,
        .qp_type = IBV_QPT_RC,
        .cap = {.max_send_wr = rc->sq_depth,
                .max_send_sge = 2,
                .max_inline_data = (uint32_t)rc->super.caps.max_inline},
    };
    rcmsg_rc_qp_t qp = {.peer = -1, .dev_name = rc->dev->name, .port = rc->port};

    *out = (rc_pooled_t){.ring = calloc(rc->sq_depth, sizeof(*out->ring))};
    qp.qp = out->ring != NULL ? ibv_create_qp(rc->pd, &init) : NULL;
    if (qp.qp == NULL) {
        rcmsg_error("ibv_create_qp on %s failed: %m (%d QPs created; device max %d)", rc->dev->name,
                    rc->pool.created, rc->dev->attr.max_qp);
        free(out->ring);
        return RCMSG_ERR_IO;
    }
    qp.state = IBV_QPS_RESET;
    if (rc_qp_to_init(rc, &qp) != RCMSG_OK) {
        ibv_destroy_qp(qp.qp);
        free(out->ring);
        return RCMSG_ERR_IO;
    }
    rc->pool.created++;
    out->qp = qp.qp;
    return RCMSG_OK;
}

static rcmsg_status_t rc_pool_grow(rc_btl_t *rc, int cap)
{
    rc_pooled_t *p;

    if (cap <= rc->pool.cap) {
        return RCMSG_OK;
    }
    p = realloc(rc->pool.qps, (size_t)cap * sizeof(*p));
    if (p == NULL) {
        rcmsg_error("out of memory for a pool of %d QPs", cap);
        return RCMSG_ERR_NO_MEMORY;
    }
    rc->pool.qps = p;
    rc->pool.cap = cap;
    return RCMSG_OK;
}

rcmsg_status_t rc_pool_fill(rc_btl_t *rc, int want, const char *why)
{
    uint64_t t0 = rcmsg_clock_us();
    int before = rc->pool.n;
    rcmsg_status_t status = rc_pool_grow(rc, want);

    while (status == RCMSG_OK && rc->pool.n < want) {
        status = rc_qp_new(rc, &rc->pool.qps[rc->pool.n]);
        rc->pool.n += status == RCMSG_OK;
    }
    if (rc->pool.n > before) {
        rcmsg_debug("rc: qp pool refilled: %d qps created in INIT in %.3f ms (%s; %d in the pool, "
                    "%d created in all)",
                    rc->pool.n - before, (double)(rcmsg_clock_us() - t0) / 1e3, why, rc->pool.n,
                    rc->pool.created);
    }
    return status;
}

static uint32_t rc_psn_new(void)
{
    uint32_t psn;

    if (getrandom(&psn, sizeof(psn), 0) != sizeof(psn)) {
        psn = (uint32_t)rand() ^ (uint32_t)rcmsg_clock_us();
    }
    return psn & 0xffffff;
}

/* On a route-sticky device: moves a pooled QP that may serve gid to the top of the pool; when
 * none may, the top one is destroyed (a fresh QP is created in its place by the caller). */
static void rc_pool_route_pick(rc_btl_t *rc, int peer, const uint8_t *gid)
{
    rc_pooled_t *top = &rc->pool.qps[rc->pool.n - 1], tmp;

    for (int i = rc->pool.n - 1; i >= 0; i--) {
        if (!rc->pool.qps[i].used ||
            memcmp(rc->pool.qps[i].gid, gid, sizeof(rc->pool.qps[i].gid)) == 0) {
            tmp = *top;
            *top = rc->pool.qps[i];
            rc->pool.qps[i] = tmp;
            return;
        }
    }
    rcmsg_debug("rc: pooled qp 0x%x not reused for peer %d: %s keeps the route of the peer it "
                "served (rxe); a fresh qp replaces it",
                top->qp->qp_num, peer, rc->dev->name);
    if (ibv_destroy_qp(top->qp) != 0) {
        rcmsg_warn("ibv_destroy_qp of a pooled qp failed: %m");
    }
    free(top->ring);
    rc->pool.n--;
}

void rc_pool_init(rc_btl_t *rc)
{
    rc->pool.route_sticky = rc->dev->attr.vendor_id == RC_VENDOR_RXE &&
                            rc->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
}

/* A QP in INIT for the peer: the pool's top one it may use, or a new one. */
static rcmsg_status_t rc_pool_pop(rc_btl_t *rc, int peer, rc_pooled_t *q)
{
    if (rc->pool.route_sticky && rc->pool.n > 0) {
        rc_pool_route_pick(rc, peer, rcmsg_rc_cm_peer_gid(rc->cm, peer));
    }
    if (rc->pool.n > 0) {
        *q = rc->pool.qps[--rc->pool.n];
        return RCMSG_OK;
    }
    rcmsg_debug("rc: qp pool empty: a qp created for peer %d on the connect path", peer);
    return rc_qp_new(rc, q);
}

rcmsg_status_t rc_pool_take(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];
    rc_pooled_t q;

    if (ep->qp.qp != NULL) {
        return RCMSG_OK;
    }
    if (rc_pool_pop(rc, peer, &q) != RCMSG_OK) {
        return RCMSG_ERR_IO;
    }
    ep->qp = (rcmsg_rc_qp_t){.qp = q.qp,
                             .state = IBV_QPS_INIT,
                             .peer = peer,
                             .dev_name = rc->dev->name,
                             .port = rc->port};
    ep->qp.qp->qp_context = ep;
    ep->ring = q.ring;
    ep->ring_head = ep->ring_count = ep->unsignaled = 0;
    ep->sq_psn = rc_psn_new();
    return RCMSG_OK;
}

/* The peer's QP to RESET -> INIT; false when the device refuses (the QP is then destroyed). */
static bool rc_qp_recycle(rc_btl_t *rc, rcmsg_rc_qp_t *qp)
{
    struct ibv_qp_attr reset = {.qp_state = IBV_QPS_RESET};

    return rcmsg_rc_qp_modify(qp, &reset, IBV_QP_STATE) == RCMSG_OK &&
           rc_qp_to_init(rc, qp) == RCMSG_OK;
}

rcmsg_status_t rc_pool_renew(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];
    struct ibv_qp *old = ep->qp.qp;
    rc_pooled_t q;

    if (rc_qp_new(rc, &q) != RCMSG_OK) {
        return RCMSG_ERR_IO;
    }
    free(q.ring); /* the endpoint keeps its ring: it holds the requests to replay */
    ep->qp.qp = q.qp;
    ep->qp.state = IBV_QPS_INIT;
    ep->qp.qp->qp_context = ep;
    ep->sq_psn = rc_psn_new();
    rc_rx_retire(rc, old->qp_num, peer); /* its completions after the drain stay the peer's */
    if (ibv_destroy_qp(old) != 0) {
        rcmsg_warn("ibv_destroy_qp of the broken qp 0x%x (peer %d) failed: %m", old->qp_num, peer);
    }
    return RCMSG_OK;
}

void rc_pool_put(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];

    if (ep->qp.qp == NULL) {
        return;
    }
    rc_fast_drop(rc, peer); /* both sides agreed the pair is idle: no write is in flight */
    ep->qp.qp->qp_context = NULL;
    if (rc_qp_recycle(rc, &ep->qp) && rc_pool_grow(rc, rc->pool.n + 1) == RCMSG_OK) {
        rc_pooled_t *q = &rc->pool.qps[rc->pool.n++];
        *q = (rc_pooled_t){.qp = ep->qp.qp, .ring = ep->ring, .used = true};
        memcpy(q->gid, rcmsg_rc_cm_peer_gid(rc->cm, peer), sizeof(q->gid));
    } else {
        rcmsg_warn("rc: qp 0x%x of peer %d not reused: destroyed", ep->qp.qp->qp_num, peer);
        ibv_destroy_qp(ep->qp.qp);
        free(ep->ring);
    }
    ep->qp.qp = NULL;
    ep->ring = NULL;
    ep->connected = false;
}

void rc_pool_destroy(rc_btl_t *rc)
{
    for (int i = 0; i < rc->pool.n; i++) {
        if (ibv_destroy_qp(rc->pool.qps[i].qp) != 0) {
            rcmsg_warn("ibv_destroy_qp of a pooled qp failed: %m");
        }
        free(rc->pool.qps[i].ring);
    }
    free(rc->pool.qps);
    rc->pool.qps = NULL;
    rc->pool.n = rc->pool.cap = 0;
}
