/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc connections through the CM (rc_cm.h), QPs from the pool (rc_pool.c).
 *
 *   addr_pack         the rank's fixed-size record (rc_addr.h): rc header + CM address
 *   connect           checks the peer's record and gives its CM address to the CM: only the
 *                     peers rc serves are given, so no QP ever exists for a peer sm or self
 *                     serves. Eager: the connect starts at once, and only the lower rank of a
 *                     pair sends the REQ (a QP taken for it); the higher rank answers it, or
 *                     sends its own REQ when none came within RCMSG_CM_TIMEOUT (the two REQs
 *                     then meet as a simultaneous connect: the CM keeps the lower rank's). A REQ
 *                     that came before the peer's address was given is answered now.
 *   connect_poll      (between wireup's address fetches) eager: the CM, and those late REQs
 *   connect_progress  lazy: the first call fills the pool (RCMSG_QP_POOL); eager: drives the CM
 *                     until every peer is connected or one failed (RCMSG_CM_TIMEOUT x the
 *                     init's budget bounds it); wireup calls it in a loop, then again during
 *                     the closing fence of init, so that a peer still waiting for a lost RTU or
 *                     REP is answered
 *   rc_conn_want        (send, get) a peer not connected: lazy connect or reconnect
 *   rc_conn_progress  (rc_btl.c's progress) the CM every RC_CM_POLL_EVERY calls, every call while
 *                     a connect or disconnect is under way; the pool's refill; recycling
 *
 * Recycling (RCMSG_QP_MAX_ACTIVE): at the cap, the least recently used connection with nothing
 * outstanding is disconnected through the CM (DREQ / DREP): the peer agrees only when it has
 * nothing outstanding either and the counts of SENDs each way match (each side received all the
 * other sent), so nothing is in flight; both QPs go back to RESET -> INIT and the pool. The
 * layers above see a send refused with RCMSG_ERR_NO_RESOURCE meanwhile and try again; their
 * sequence numbers and credits are untouched, so the next connection continues them.
 *
 * Lazy: a packet for a peer not yet given to connect is left in the UD receive queue until the
 * first connect_progress (the CM is not polled before), so it is not dropped. Eager: the CM is
 * polled from the first connect on, and a REQ of a peer not given yet is kept by the CM
 * (rcmsg_rc_cm_take_held) until connect gives it.
 */
#include "config.h"

#include "rc_addr.h"
#include "rc_btl.h"
#include "rc_iface.h"

#include "base/clock.h"
#include "base/event.h"
#include "base/stats.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- address record -------------------------------------------------------------------- */

size_t rcmsg_rc_btl_addr_max(int size)
{
    (void)size; /* the same for every job size */
    return RC_ADDR_SIZE;
}

rcmsg_status_t rc_addr_pack(rcmsg_btl_t *btl, void *buf, size_t *len_p)
{
    rc_btl_t *rc = rc_btl_of(btl);
    rcmsg_rc_addr_t addr = {
        .link_layer = rc->port_attr.link_layer,
        .port = (uint8_t)rc->port,
        .active_mtu = (uint8_t)rc->port_attr.active_mtu,
        .rd_atomic = (uint8_t)rc->rd_atomic,
        .lid = rc->port_attr.lid,
        .gid_type = (int)rc->gid.gid_type,
        .buf_size = (uint32_t)rc->buf_size,
    };

    if (*len_p < RC_ADDR_SIZE) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    memcpy(addr.gid, rc->gid.gid.raw, sizeof(addr.gid));
    rcmsg_rc_cm_addr_pack(rc->cm, addr.cm);
    rcmsg_rc_addr_encode(&addr, buf);
    *len_p = RC_ADDR_SIZE;
    return RCMSG_OK;
}

/* ---- checks of a peer's record --------------------------------------------------------- */

/* On RoCE: are the peer's GID (and its type) of the same kind as ours? Two kinds that
 * cannot talk are an error naming both GIDs, RCMSG_GID_INDEX and the fix. */
static rcmsg_status_t rc_gid_check(rc_btl_t *rc, int peer, const rcmsg_rc_addr_t *addr)
{
    union ibv_gid remote;
    char why[256], here[64];
    int verdict;

    memcpy(remote.raw, addr->gid, sizeof(remote.raw));
    verdict = rcmsg_rc_gid_compat(&rc->gid.gid, (int)rc->gid.gid_type, &remote, addr->gid_type, why,
                                  sizeof(why));
    if (verdict == 0) {
        return RCMSG_OK;
    }
    snprintf(here, sizeof(here), "gid index %d here, %s", rc->gid.index,
             rc->config.gid_index_set ? "set by RCMSG_GID_INDEX" : "chosen automatically");
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

/* Checks a decoded peer record against this rank: buffer size, link layer, GID kind, MTU. */
static rcmsg_status_t rc_addr_check(rc_btl_t *rc, int peer, const rcmsg_rc_addr_t *addr)
{
    rcmsg_status_t status;

    if (addr->buf_size != rc->buf_size) {
        rcmsg_error("peer %d uses %u-byte receive buffers, this rank %zu: set the same "
                    "RCMSG_SRQ_BUF_SIZE on every rank",
                    peer, addr->buf_size, rc->buf_size);
        return RCMSG_ERR_CONFIG;
    }
    if (addr->link_layer != rc->port_attr.link_layer) {
        rcmsg_error("peer %d is on a %s port, this rank on %s: link layers must match", peer,
                    rcmsg_rc_link_layer_name(addr->link_layer),
                    rcmsg_rc_link_layer_name(rc->port_attr.link_layer));
        return RCMSG_ERR_PEER_DATA;
    }
    if (rc->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
        status = rc_gid_check(rc, peer, addr);
        if (status != RCMSG_OK) {
            return status;
        }
    }
    if (addr->active_mtu < IBV_MTU_256 || addr->active_mtu > IBV_MTU_4096) {
        rcmsg_error("peer %d sent an invalid MTU code %u", peer, addr->active_mtu);
        return RCMSG_ERR_PEER_DATA;
    }
    return RCMSG_OK;
}

/* ---- QP transitions the CM asks for ---------------------------------------------------- */

/* The path MTU (the smallest of both ends and RCMSG_IB_MTU) and the outstanding reads (within
 * what both ends support) towards the peer's QP described by remote. */
static void rc_path(const rc_btl_t *rc, const rcmsg_rc_cm_payload_t *remote, enum ibv_mtu *mtu_p,
                    unsigned *rd_in_p)
{
    enum ibv_mtu mtu = rc->port_attr.active_mtu;

    if ((enum ibv_mtu)remote->mtu < mtu) {
        mtu = (enum ibv_mtu)remote->mtu;
    }
    if (rc->config.mtu_cap < mtu) {
        mtu = rc->config.mtu_cap;
    }
    *mtu_p = mtu;
    *rd_in_p = remote->rd_atomic > 0 && remote->rd_atomic < rc->rd_atomic ? remote->rd_atomic
                                                                          : rc->rd_atomic;
}

/* The peer (holding no QP) takes one from the pool and joins the active set. */
static rcmsg_status_t rc_active_take(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];

    if (rc_pool_take(rc, peer) != RCMSG_OK) {
        return RCMSG_ERR_IO;
    }
    ep->active_idx = rc->conn.nactive;
    rc->conn.active[rc->conn.nactive++] = peer;
    return RCMSG_OK;
}

/* The peer leaves the active set and its QP goes back to the pool. */
static void rc_active_put(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];

    if (ep->qp.qp != NULL) {
        int last = rc->conn.active[--rc->conn.nactive];
        rc->conn.active[ep->active_idx] = last;
        rc->eps[last].active_idx = ep->active_idx;
    }
    rc_pool_put(rc, peer);
}

/* A REQ of a newer attempt answered while the QP is still in RTR from an attempt that never
 * reached RTS (the peer broke again at once, or both sides broke): what the QP received is
 * delivered (not taken as a sign of the new connection), then it is reset to INIT. */
static rcmsg_status_t rc_qp_restart(rc_btl_t *rc, int peer)
{
    rcmsg_debug("rc: qp 0x%x of peer %d is in %s from an unfinished connect: reset for the "
                "peer's new attempt",
                rc->eps[peer].qp.qp->qp_num, peer, rcmsg_rc_qp_state_name(rc->eps[peer].qp.state));
    rc->conn.quiet_peer = peer;
    rc_rx_drain(rc);
    rc->conn.quiet_peer = -1;
    if (rc->eps[peer].failed) {
        return RCMSG_ERR_CONNECTION; /* a delivery found a gap */
    }
    return rc_pool_renew(rc, peer);
}

/* INIT -> RTR towards the peer's QP (the CM's REQ or REP); the passive side takes its QP from
 * the pool here. */
static int rc_cm_rtr(void *arg, int peer, const rcmsg_rc_cm_payload_t *remote,
                     rcmsg_rc_cm_payload_t *local)
{
    rc_btl_t *rc = arg;
    rc_ep_t *ep = &rc->eps[peer];
    enum ibv_mtu mtu;
    unsigned rd_in;
    struct ibv_qp_attr attr;
    rcmsg_status_t status;

    if (remote->mtu < IBV_MTU_256 || remote->mtu > IBV_MTU_4096 || remote->qpn == 0 ||
        remote->qpn > 0xffffff || remote->psn > 0xffffff) {
        rcmsg_error("peer %d sent an invalid MTU code %u, qp number 0x%x or psn 0x%x", peer,
                    remote->mtu, remote->qpn, remote->psn);
        return -1;
    }
    if (ep->qp.qp == NULL) {
        ep->t_start = rcmsg_clock_us();
        if (rc_active_take(rc, peer) != RCMSG_OK) {
            return -1;
        }
    } else if (ep->qp.state != IBV_QPS_INIT && rc_qp_restart(rc, peer) != RCMSG_OK) {
        return -1;
    }
    local->qpn = ep->qp.qp->qp_num;
    local->psn = ep->sq_psn;
    local->seq[0] = ep->sent; /* what the peer replays from (a recovery) */
    local->seq[1] = ep->recvd;
    rc_path(rc, remote, &mtu, &rd_in);
    attr = (struct ibv_qp_attr){
        .qp_state = IBV_QPS_RTR,
        .path_mtu = mtu,
        .dest_qp_num = remote->qpn,
        .rq_psn = remote->psn,
        .max_dest_rd_atomic = (uint8_t)rd_in,
        .min_rnr_timer = rc->config.rnr_timer,
    };
    rcmsg_rc_cm_ah_attr(rc->cm, peer, &attr.ah_attr);
    ep->qp.retried = ep->rec.state == RC_REC_CONNECT;
    status =
        rcmsg_rc_qp_modify(&ep->qp, &attr,
                           IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                               IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
    ep->qp.retried = false;
    if (status != RCMSG_OK) {
        /* rxe resolves the peer's address here: under heavy loss that can time out. A
         * recovery tries again (rc_rec_retry); a first connect fails as before. */
        ep->rec.retry = ep->rec.state == RC_REC_CONNECT;
        return ep->rec.retry ? 1 : -1;
    }
    return 0;
}

/* RTR -> RTS (the CM's REP on the active side, RTU on the passive side). */
static int rc_cm_rts(void *arg, int peer, const rcmsg_rc_cm_payload_t *remote)
{
    rc_btl_t *rc = arg;
    rc_ep_t *ep = &rc->eps[peer];
    enum ibv_mtu mtu;
    unsigned rd_in;
    struct ibv_qp_attr attr;
    rcmsg_status_t status;
    bool rejoin = ep->rec.state != RC_REC_NONE;

    rc_path(rc, remote, &mtu, &rd_in);
    attr = (struct ibv_qp_attr){
        .qp_state = IBV_QPS_RTS,
        .timeout = rc->config.ib_timeout,
        .retry_cnt = rc->config.retry_count,
        .rnr_retry = rc->config.rnr_retry,
        .sq_psn = ep->sq_psn,
        .max_rd_atomic = (uint8_t)rd_in,
    };
    ep->qp.retried = rejoin;
    status = rcmsg_rc_qp_modify(&ep->qp, &attr,
                                IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
    ep->qp.retried = false;
    if (status != RCMSG_OK) {
        ep->rec.retry = rejoin; /* as for RTR: a recovery tries again */
        return rejoin ? 1 : -1;
    }
    if (rc_rec_connected(rc, peer, remote) != RCMSG_OK) {
        return -1;
    }
    ep->connected = true;
    ep->path_mtu = (uint32_t)rcmsg_rc_mtu_bytes(mtu);
    if (!rejoin) { /* a recovery counts and reports itself (rc_rec_connected) */
        rcmsg_stat_add(peer, RCMSG_STAT_connects, 1);
        rcmsg_stats_set_qpn(peer, ep->qp.qp->qp_num);
        rc_up_event(rc, RCMSG_EVENT_CONNECTED, peer, "qp 0x%x to qp 0x%x (%s)", ep->qp.qp->qp_num,
                    remote->qpn, rcmsg_rc_cm_conn_passive(rc->cm, peer) ? "passive" : "active");
    }
    rcmsg_debug(
        "rc: connected to peer %d: qp 0x%x to qp 0x%x in %.3f ms (%s; path mtu %d, rd "
        "atomic %u, psn 0x%x/0x%x; %d qps connected, %d in the pool)",
        peer, ep->qp.qp->qp_num, remote->qpn, (double)(rcmsg_clock_us() - ep->t_start) / 1e3,
        rcmsg_rc_cm_conn_passive(rc->cm, peer) ? "passive" : "active", rcmsg_rc_mtu_bytes(mtu),
        rd_in, ep->sq_psn, remote->psn, rc->conn.nactive, rc->pool.n);
    return 0;
}

/* A DREQ from the peer: nothing outstanding here, and each side received all the other sent?
 * Outstanding unsignaled sends are flushed so that a later DREQ finds them completed. */
static bool rc_cm_idle(void *arg, int peer, const rcmsg_rc_cm_payload_t *remote)
{
    rc_btl_t *rc = arg;
    rc_ep_t *ep = &rc->eps[peer];
    bool idle;

    if (remote->seq[0] != ep->recvd && !ep->failed && ep->qp.qp != NULL) {
        /* what the peer sent may wait in the receive CQ (a rank computing: the progress thread
         * answers, and defers the messages to its next call, rc_defer.h) */
        rc_rx_drain(rc);
    }
    idle = !ep->failed && ep->qp.qp != NULL && ep->ring_count == 0 &&
           ep->rec.state == RC_REC_NONE && remote->seq[0] == ep->recvd &&
           remote->seq[1] == ep->sent;

    if (!idle && !ep->failed && ep->qp.qp != NULL && ep->ring_count > 0) {
        rc_ep_flush(rc, peer);
    }
    rcmsg_trace("rc: disconnect asked by peer %d: %s (%llu/%llu sent, %llu/%llu received, %u "
                "outstanding)",
                peer, idle ? "agreed" : "busy", (unsigned long long)ep->sent,
                (unsigned long long)remote->seq[1], (unsigned long long)ep->recvd,
                (unsigned long long)remote->seq[0], ep->ring_count);
    if (idle) {
        ep->connected = false; /* nothing more is posted on this connection */
    }
    return idle;
}

/* Our DREQ towards ep got its answer (or the peer failed): the next recycle may start. */
static void rc_disconnect_over(rc_btl_t *rc, rc_ep_t *ep)
{
    if (ep->disconnecting) {
        ep->disconnecting = false;
        rc->conn.ndisc--;
        rc->conn.recycle_stalled = false;
    }
}

/* Both sides agreed: the QP goes back to the pool. */
static void rc_cm_down(void *arg, int peer)
{
    rc_btl_t *rc = arg;
    rc_ep_t *ep = &rc->eps[peer];
    uint32_t qpn = ep->qp.qp != NULL ? ep->qp.qp->qp_num : 0;

    rc_disconnect_over(rc, ep);
    rcmsg_stat_add(peer, RCMSG_STAT_disconnects, 1);
    rcmsg_stats_set_qpn(peer, 0);
    rc_up_event(rc, RCMSG_EVENT_DISCONNECTED, peer, "qp 0x%x closed (%s)", qpn,
                rcmsg_rc_cm_conn_passive(rc->cm, peer) ? "asked by the peer" : "idle");
    /* what the QP received is delivered before it is reset (a REQ of a peer that recovers may
     * stand for its agreement while its messages are still queued) */
    rc_rx_drain(rc);
    rc_active_put(rc, peer);
    rcmsg_debug("rc: disconnected from peer %d: qp 0x%x back to the pool (%s, %.3f ms; %llu sent, "
                "%llu received; %d qps connected, %d in the pool)",
                peer, qpn, rcmsg_rc_cm_conn_passive(rc->cm, peer) ? "asked by the peer" : "idle",
                (double)(rcmsg_clock_us() - ep->t_start) / 1e3, (unsigned long long)ep->sent,
                (unsigned long long)ep->recvd, rc->conn.nactive, rc->pool.n);
}

/* The peer refused our DREQ (it has something outstanding): post again. */
static void rc_cm_resumed(void *arg, int peer)
{
    rc_btl_t *rc = arg;
    rc_ep_t *ep = &rc->eps[peer];

    rc_disconnect_over(rc, ep);
    ep->connected = ep->qp.qp != NULL && !ep->failed;
    ep->last_use = ++rc->use_tick; /* the next recycle tries another connection first */
}

/* Our DREQ has gone unanswered for RCMSG_CM_TIMEOUT x RCMSG_CM_RETRIES: the peer is alive but
 * not calling rcmsg (or dead, which the launcher or a probe reports). The connection stays,
 * frozen, and the DREQ is sent on; meanwhile new connects may exceed RCMSG_QP_MAX_ACTIVE. */
static void rc_cm_stalled(void *arg, int peer)
{
    rc_btl_t *rc = arg;

    rc->conn.recycle_stalled = true;
    rcmsg_warn("rc: peer %d has not answered the disconnect of its idle connection for %.1f s "
               "(is it outside rcmsg calls?): the connection stays until it answers, and new "
               "connections may exceed RCMSG_QP_MAX_ACTIVE=%d meanwhile",
               peer, (double)(rcmsg_clock_us() - rc->eps[peer].t_start) / 1e6,
               rc->config.qp_max_active);
}

/* The recovering peer's QP is back in INIT: reconnect it through the CM (answering
 * the peer's REQ when it asked first). */
static void rc_conn_rejoin(rc_btl_t *rc, int peer);

/* The peer reconnects while connected: its side broke. Ours is drained and replaced (rc_rec.c),
 * then rc_conn_rejoin answers its REQ; without recovery the peer fails. */
static void rc_cm_lost(void *arg, int peer)
{
    rc_rec_start(arg, peer, (rc_cause_t){.kind = RC_CAUSE_PEER}, false);
}

/* A connect failed (the CM logged it naming the peer): the peer fails. */
static void rc_cm_failed(void *arg, int peer)
{
    rc_btl_t *rc = arg;
    rc_ep_t *ep = &rc->eps[peer];
    const char *why;

    if (rc_rec_retry(rc, peer)) {
        rc_conn_rejoin(rc, peer); /* a recovery's reconnect failed in a QP transition: again */
        return;
    }
    rc_disconnect_over(rc, ep);
    ep->connected = false;
    if (!rc->conn.started || !rc->conn.ready) {
        ep->failed = true; /* during init: connect_progress reports it */
        return;
    }
    if (ep->rec.refused != NULL) {
        why = ep->rec.refused; /* rc_rec_connected refused the connect */
    } else if (ep->rec.state != RC_REC_NONE) {
        why = "its connection broke and the reconnect got no answer within "
              "RCMSG_RECOVERY_TIMEOUT, or was refused";
    } else {
        why = "the connection manager got no answer within RCMSG_CM_RETRIES, or was refused";
    }
    rc_ep_fail(rc, peer, why); /* after init: the requests to it fail */
}

/* Lazy: a REQ from a peer whose address this rank has not fetched yet; fetched at the end of
 * this CM poll (rc_conn_held_take), outside the CM's receive loop. */
static void rc_cm_held(void *arg, int peer)
{
    rc_btl_t *rc = arg;

    if (rc->conn.lazy && rc->super.addr_fetch != NULL && !rc->eps[peer].cm_added) {
        rc->conn.held[rc->conn.nheld++] = peer;
    }
}

/* ---- the CM ---------------------------------------------------------------------------- */

rcmsg_status_t rc_cm_start(rc_btl_t *rc)
{
    bool grh = rc->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET || rc->config.gid_index_set;
    rcmsg_rc_cm_where_t where = {.ctx = rc->dev->ctx,
                                 .pd = rc->pd,
                                 .dev_name = rc->dev->name,
                                 .port = rc->port,
                                 .port_attr = &rc->port_attr,
                                 .gid_index = grh ? rc->gid.index : -1,
                                 .gid = &rc->gid.gid,
                                 .gid_type = (int)rc->gid.gid_type,
                                 .channel = rc->channel};
    rcmsg_rc_cm_params_t params = {.self = rc->job.rank,
                                   .size = rc->job.size,
                                   .job = rc->job.id,
                                   .timeout_us = rc->config.cm_timeout_us,
                                   .max_tries = rc->config.cm_retries};
    rcmsg_rc_cm_ops_t ops = {.rtr = rc_cm_rtr,
                             .rts = rc_cm_rts,
                             .idle = rc_cm_idle,
                             .down = rc_cm_down,
                             .resumed = rc_cm_resumed,
                             .failed = rc_cm_failed,
                             .stalled = rc_cm_stalled,
                             .lost = rc_cm_lost,
                             .held = rc_cm_held,
                             .probe = rc_sync_probe_answer,
                             .probed = rc_sync_probed,
                             .arg = rc};

    if (rc->config.control_thread) { /* its packets wake the progress thread, not the app */
        int flags;
        rc->conn.cm_channel = ibv_create_comp_channel(rc->dev->ctx);
        flags = rc->conn.cm_channel != NULL ? fcntl(rc->conn.cm_channel->fd, F_GETFL) : -1;
        if (flags < 0 || fcntl(rc->conn.cm_channel->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
            rcmsg_error("rc: cannot create the progress thread's completion channel on %s: %m",
                        rc->dev->name);
            return RCMSG_ERR_IO;
        }
        where.channel = rc->conn.cm_channel;
    }
    return rcmsg_rc_cm_open(&where, &params, &ops, &rc->cm);
}

static rcmsg_status_t rc_connect_one(rc_btl_t *rc, int peer);

/* The start of the eager connects: init's connects are bounded by RCMSG_LAUNCHER_TIMEOUT, as
 * init's other waits (a peer still fetching addresses in its rcmsg_init answers late). */
static void rc_eager_start(rc_btl_t *rc)
{
    rc->conn.started = true;
    rc->conn.t0 = rcmsg_clock_us();
    if (rc->conn.init_tries > rc->config.cm_retries) {
        rcmsg_rc_cm_set_tries(rc->cm, rc->conn.init_tries);
    }
}

/* An eager connect to a peer just given: a REQ it sent already is answered; the lower rank
 * sends the REQ, the higher waits for it (rc_eager_late). */
static rcmsg_status_t rc_eager_begin(rc_btl_t *rc, int peer)
{
    if (!rc->conn.started) {
        rc_eager_start(rc);
    }
    rc->eps[peer].t_start = rcmsg_clock_us();
    rcmsg_rc_cm_take_held(rc->cm, peer);
    if (rc->job.rank < peer) {
        return rc_connect_one(rc, peer);
    }
    return rc->eps[peer].failed ? RCMSG_ERR_CONNECTION : RCMSG_OK;
}

/* Eager, the higher rank of a pair: the lower rank's REQ did not come within RCMSG_CM_TIMEOUT
 * (lost, or the peer is slow): this side sends its own, bounded as any connect (the CM keeps
 * one connection when both REQs meet). */
static rcmsg_status_t rc_eager_late(rc_btl_t *rc)
{
    uint64_t now = rcmsg_clock_us();

    for (int i = 0; i < rc->job.rank; i++) {
        rc_ep_t *ep = &rc->eps[i];
        if (ep->cm_added && !ep->connected && !ep->failed &&
            rcmsg_rc_cm_state(rc->cm, i) == RC_CM_IDLE &&
            now - ep->t_start >= rc->config.cm_timeout_us && rc_connect_one(rc, i) != RCMSG_OK) {
            return RCMSG_ERR_CONNECTION;
        }
    }
    return RCMSG_OK;
}

void rc_connect_poll(rcmsg_btl_t *btl)
{
    rc_btl_t *rc = rc_btl_of(btl);

    if (rc->conn.started && !rc->conn.lazy && !rc->conn.ready) {
        rcmsg_rc_cm_progress(rc->cm);
        rc_eager_late(rc);
    }
}

static rcmsg_status_t rc_peer_add(rc_btl_t *rc, int peer, const void *buf, size_t len, bool given);

rcmsg_status_t rc_connect(rcmsg_btl_t *btl, int peer, const void *buf, size_t len)
{
    rc_btl_t *rc = rc_btl_of(btl);

    if (peer < 0 || peer >= rc->job.size || peer == rc->job.rank) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    return rc_peer_add(rc, peer, buf, len, true);
}

/* Lazy, a peer wireup did not give (addresses on first use): its address fetched now, through
 * wireup's hook (bounded by RCMSG_LAUNCHER_TIMEOUT); the peer fails when there is none. */
static rcmsg_status_t rc_conn_fetch(rc_btl_t *rc, int peer)
{
    uint8_t buf[RC_ADDR_SIZE];
    size_t len = sizeof(buf);
    rcmsg_status_t status;

    if (rc->eps[peer].cm_added) {
        return RCMSG_OK;
    }
    if (rc->super.addr_fetch == NULL) {
        return RCMSG_ERR_STATE; /* not a peer of this transport */
    }
    status = rc->super.addr_fetch(rc->super.addr_fetch_arg, &rc->super, peer, buf, &len);
    if (status == RCMSG_OK) {
        status = rc_peer_add(rc, peer, buf, len, false);
    }
    if (status == RCMSG_OK) {
        rc->super.addr_later--;
        return RCMSG_OK;
    }
    rc_ep_fail(rc, peer, "its address could not be fetched (logged above)");
    return RCMSG_ERR_CONNECTION;
}

/* Lazy: the peers whose REQ the CM keeps get their address, then the REQ its answer. */
static void rc_conn_held_take(rc_btl_t *rc)
{
    while (rc->conn.nheld > 0) {
        int peer = rc->conn.held[--rc->conn.nheld];
        if (rc_conn_fetch(rc, peer) == RCMSG_OK) {
            rcmsg_rc_cm_take_held(rc->cm, peer);
        }
    }
}

/* The peer's record checked and its CM address given to the CM; eager, its connect begun.
 * given: by wireup's connect (only before the connects started, lazy; before they are all
 * done, eager), else fetched on first use. */
static rcmsg_status_t rc_peer_add(rc_btl_t *rc, int peer, const void *buf, size_t len, bool given)
{
    rc_ep_t *ep;
    rcmsg_rc_addr_t addr;
    rcmsg_rc_cm_addr_t cm_addr; /* checked here; the CM decodes it again */
    rcmsg_rc_cm_payload_t local;
    rcmsg_status_t status;

    ep = &rc->eps[peer];
    rcmsg_debug("rc: address of peer %d: %zu bytes", peer, len);
    status = rcmsg_rc_addr_decode(buf, len, peer, &addr);
    if (status == RCMSG_OK) {
        status = rc_addr_check(rc, peer, &addr);
    }
    if (status == RCMSG_OK) {
        status = rcmsg_rc_cm_addr_decode(addr.cm, sizeof(addr.cm), peer, &cm_addr);
    }
    if (status != RCMSG_OK) {
        return status;
    }
    if (given && (ep->cm_added || (rc->conn.started && (rc->conn.lazy || rc->conn.ready)))) {
        rcmsg_error("rc: peer %d given to connect again, or after the connects started", peer);
        return RCMSG_ERR_STATE;
    }
    local = (rcmsg_rc_cm_payload_t){.buf_size = (uint32_t)rc->buf_size,
                                    .mtu = (uint8_t)rc->port_attr.active_mtu,
                                    .rd_atomic = (uint8_t)rc->rd_atomic};
    status = rcmsg_rc_cm_add_peer(rc->cm, peer, addr.cm, sizeof(addr.cm), &local);
    if (status == RCMSG_OK) {
        ep->cm_added = true;
        rc->conn.npeers++;
    }
    if (status == RCMSG_OK && !rc->conn.lazy) {
        status = rc_eager_begin(rc, peer);
    }
    return status;
}

/* Takes a QP for the peer and sends the CM's REQ. */
static rcmsg_status_t rc_connect_one(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];

    if (ep->qp.qp == NULL) {
        ep->t_start = rcmsg_clock_us();
        if (rc_active_take(rc, peer) != RCMSG_OK) {
            return RCMSG_ERR_IO;
        }
    }
    rc->cm_hot = true;
    rcmsg_rc_cm_set_seq(rc->cm, peer, ep->sent, ep->recvd);
    return rcmsg_rc_cm_connect(rc->cm, peer, ep->qp.qp->qp_num, ep->sq_psn);
}

static void rc_conn_rejoin(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];
    uint64_t now = rcmsg_clock_us();
    /* what is left of RCMSG_RECOVERY_TIMEOUT since the break (rc_rec.c's deadline), not a whole
     * one more: a drain that took long (Soft-RoCE's broken QP with its port down, 3 s of a 3 s
     * timeout) made a recovery last twice its bound */
    uint64_t tries =
        (ep->rec.deadline > now ? ep->rec.deadline - now : 0) / rc->config.cm_timeout_us;

    rc_disconnect_over(rc, ep); /* a DREQ of ours is abandoned: the pair reconnects */
    rc->cm_hot = true;
    rcmsg_rc_cm_set_seq(rc->cm, peer, ep->sent, ep->recvd);
    rcmsg_rc_cm_rejoin(rc->cm, peer, ep->qp.qp->qp_num, ep->sq_psn,
                       tries < 1            ? 1
                       : tries > UINT32_MAX ? UINT32_MAX
                                            : (unsigned)tries);
}

/* The first call, lazy: the pool filled (eager: the connects started with connect(); with no
 * rc peer at all, nothing to start). */
static rcmsg_status_t rc_connect_start(rc_btl_t *rc)
{
    int peers = rc->conn.npeers + rc->super.addr_later;
    int want = rc->config.qp_pool < peers ? rc->config.qp_pool : peers;

    if (!rc->conn.lazy) {
        rc_eager_start(rc);
        return RCMSG_OK;
    }
    rc->conn.started = true;
    rc->conn.t0 = rcmsg_clock_us();
    return rc_pool_fill(rc, want, "lazy connect: RCMSG_QP_POOL at init");
}

rcmsg_status_t rc_connect_progress(rcmsg_btl_t *btl)
{
    rc_btl_t *rc = rc_btl_of(btl);
    int waiting = 0;

    if (!rc->conn.started && rc_connect_start(rc) != RCMSG_OK) {
        return RCMSG_ERR_CONNECTION;
    }
    if (rc->conn.ready) {
        rc_conn_progress(rc);
        return RCMSG_OK;
    }
    rcmsg_rc_cm_progress(rc->cm);
    if (!rc->conn.lazy && rc_eager_late(rc) != RCMSG_OK) {
        return RCMSG_ERR_CONNECTION;
    }
    for (int i = 0; i < rc->job.size && !rc->conn.lazy; i++) {
        if (rc->eps[i].cm_added) {
            if (rc->eps[i].failed) {
                return RCMSG_ERR_CONNECTION; /* logged by the CM, naming the peer */
            }
            waiting += !rc->eps[i].connected;
        }
    }
    if (waiting > 0) {
        return RCMSG_INPROGRESS;
    }
    rc->conn.ready = true;
    rcmsg_rc_cm_set_tries(rc->cm, rc->config.cm_retries);
    rcmsg_debug("rc: %s connect: %d peer(s) %s in %.1f ms, %d qps created",
                rc->conn.lazy ? "lazy" : "eager", rc->conn.npeers,
                rc->conn.lazy ? "known, none connected yet" : "connected through the CM",
                (double)(rcmsg_clock_us() - rc->conn.t0) / 1e3, rc->pool.created);
    return RCMSG_OK;
}

/* ---- connect on demand, recycling ------------------------------------------------------ */

/* The least recently used connection with nothing outstanding (-1: none); when every one has
 * unsignaled sends outstanding, the least recently used is flushed so that it becomes idle. */
static int rc_lru_idle(rc_btl_t *rc)
{
    int best = -1, busy = -1;

    for (int i = 0; i < rc->conn.nactive; i++) {
        int peer = rc->conn.active[i];
        rc_ep_t *ep = &rc->eps[peer];
        if (!ep->connected || ep->failed || rcmsg_rc_cm_state(rc->cm, peer) != RC_CM_CONNECTED) {
            continue;
        }
        if (ep->ring_count > 0) {
            busy = busy < 0 || ep->last_use < rc->eps[busy].last_use ? peer : busy;
        } else if (best < 0 || ep->last_use < rc->eps[best].last_use) {
            best = peer;
        }
    }
    if (best < 0 && busy >= 0) {
        rc_ep_flush(rc, busy);
    }
    return best;
}

/* Above the cap (or at it with a connect waiting): one recycle under way at a time. */
static void rc_recycle(rc_btl_t *rc)
{
    int peer;
    rc_ep_t *ep;

    if (rc->conn.ndisc > 0 || rc->conn.draining || (peer = rc_lru_idle(rc)) < 0) {
        return;
    }
    ep = &rc->eps[peer];
    ep->connected = false; /* nothing more is posted until the peer answers */
    ep->disconnecting = true;
    ep->t_start = rcmsg_clock_us();
    rc->conn.ndisc++;
    rc->cm_hot = true;
    rcmsg_rc_cm_disconnect(rc->cm, peer, ep->sent, ep->recvd);
}

rcmsg_status_t rc_conn_want(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];
    rcmsg_rc_cm_state_t state;

    if (ep->failed) {
        return RCMSG_ERR_CONNECTION;
    }
    if (ep->rec.state != RC_REC_NONE) {
        return RCMSG_ERR_NO_RESOURCE; /* recovering: the replay goes first */
    }
    if (!rc->conn.started) {
        return RCMSG_ERR_STATE;
    }
    if (!ep->cm_added && rc_conn_fetch(rc, peer) != RCMSG_OK) {
        return rc->super.addr_fetch == NULL ? RCMSG_ERR_STATE : RCMSG_ERR_CONNECTION;
    }
    state = rcmsg_rc_cm_state(rc->cm, peer);
    if (state != RC_CM_IDLE) {
        return RCMSG_ERR_NO_RESOURCE; /* under way (either side), or disconnecting */
    }
    if (rc->config.qp_max_active > 0 && ep->qp.qp == NULL &&
        rc->conn.nactive >= rc->config.qp_max_active && !rc->conn.draining &&
        !rc->conn.recycle_stalled) {
        rc_recycle(rc);
        return RCMSG_ERR_NO_RESOURCE;
    }
    return rc_connect_one(rc, peer) == RCMSG_OK ? RCMSG_ERR_NO_RESOURCE : RCMSG_ERR_CONNECTION;
}

void rc_conn_heard(rc_btl_t *rc, int peer)
{
    /* a message from a connection that broke is not a sign of the new one */
    if (!rc->eps[peer].disconnecting && rc->eps[peer].rec.state != RC_REC_DRAIN &&
        peer != rc->conn.quiet_peer) {
        rcmsg_rc_cm_established(rc->cm, peer);
    }
}

/* Below the low watermark (RCMSG_QP_POOL / 2) the pool is refilled up to RCMSG_QP_POOL (never
 * beyond the peers that could still connect), RC_POOL_REFILL_BATCH QPs per call so that one
 * progress call is not held up for long. */
static void rc_refill(rc_btl_t *rc)
{
    int want = rc->config.qp_pool, step, peers = rc->conn.npeers + rc->super.addr_later;

    if (want > peers - rc->conn.nactive) {
        want = peers - rc->conn.nactive;
    }
    step = rc->pool.n + RC_POOL_REFILL_BATCH < want ? rc->pool.n + RC_POOL_REFILL_BATCH : want;
    rc->conn.refilling = step < want;
    if (step > rc->pool.n) {
        rc_pool_fill(rc, step, "below the low watermark, RCMSG_QP_POOL / 2");
    }
}

rcmsg_status_t rc_conn_init(rc_btl_t *rc)
{
    uint64_t init_tries = rc->config.launcher_timeout_us / rc->config.cm_timeout_us; /* no wrap */

    rc->conn.quiet_peer = -1;
    rc->conn.init_tries = init_tries > UINT32_MAX ? UINT32_MAX : (unsigned)init_tries;
    rc->conn.lazy =
        rc->config.connect == RCMSG_CONNECT_LAZY ||
        (rc->config.connect == RCMSG_CONNECT_AUTO && rc->job.size > rc->config.connect_eager_max);
    rc->conn.active = calloc((size_t)rc->job.size, sizeof(*rc->conn.active));
    rc->conn.held = calloc((size_t)rc->job.size, sizeof(*rc->conn.held));
    return rc->conn.active != NULL && rc->conn.held != NULL ? RCMSG_OK : RCMSG_ERR_NO_MEMORY;
}

void rc_conn_close(rc_btl_t *rc)
{
    free(rc->conn.active);
    free(rc->conn.held);
    rc->conn.active = NULL;
    rc->conn.held = NULL;
    if (rc->conn.cm_channel != NULL && ibv_destroy_comp_channel(rc->conn.cm_channel) != 0) {
        rcmsg_warn("ibv_destroy_comp_channel (the CM's) failed: %m");
    }
    rc->conn.cm_channel = NULL;
}

void rc_conn_finalize(rc_btl_t *rc)
{
    rc->conn.draining = true;
}

int rc_conn_progress(rc_btl_t *rc)
{
    int n;

    if (rc_async_port_up(rc)) {
        rcmsg_rc_cm_kick(rc->cm); /* the port is back: reconnects go out now */
    }
    n = rcmsg_rc_cm_progress(rc->cm);
    if (rc->conn.nheld > 0) {
        rc_conn_held_take(rc);
    }
    if (rc->rec.n > 0) {
        rc_rec_progress(rc, rc_conn_rejoin);
    }

    if (rc->conn.lazy && (rc->conn.refilling || rc->pool.n < rc->config.qp_pool / 2)) {
        rc_refill(rc);
    }
    if (rc->config.qp_max_active > 0 && rc->conn.nactive > rc->config.qp_max_active) {
        rc_recycle(rc);
    }
    rc->cm_hot =
        rcmsg_rc_cm_busy(rc->cm) || rc->conn.ndisc > 0 || rc->conn.refilling || rc->rec.n > 0;
    return n;
}
