/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CM of a process (rc_cm.h): its UD QP with a small CQ, receive buffers (with the 40 bytes
 * of GRH room UD receives start with) and send buffers in one registered region, the peers' CM
 * addresses, address handles created on first use and kept, and the pairs' state machines
 * (rc_cm_fsm.c) driven by packets and time.
 */
#include "config.h"

#include "rc_cm.h"
#include "rc_device.h"

#include "base/clock.h"
#include "base/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define CM_GRH      40
#define CM_SLOT     128 /* GRH + packet, rounded */
#define CM_NRECV    128
#define CM_NSEND    32
#define CM_SEND_BIT (1ull << 32)

RCMSG_STATIC_ASSERT(CM_GRH + RC_CM_PKT_SIZE <= CM_SLOT, "a CM slot holds the GRH and a packet");

/* A REQ from a peer whose CM address is not known yet (the owner polls the CM while wireup
 * still fetches addresses): the latest one per peer is kept and handled once the address is
 * given (rcmsg_rc_cm_take_held), so that the peer does not wait for its retransmission. */
typedef struct {
    rcmsg_rc_cm_pkt_t pkt;
    uint32_t src_qp;
    bool held;
} cm_held_t;

struct rcmsg_rc_cm {
    rcmsg_rc_cm_params_t params;
    rcmsg_rc_cm_ops_t ops;
    char dev_name[IBV_SYSFS_NAME_MAX];
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_comp_channel *channel;
    int port, gid_index, gid_type;
    uint8_t link_layer;
    uint16_t lid;
    union ibv_gid gid;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    char *bufs; /* CM_NRECV receive slots, then CM_NSEND send slots */
    struct ibv_mr *mr;
    bool send_busy[CM_NSEND];
    int send_next;
    rcmsg_rc_cm_addr_t *peers; /* [size] */
    bool *known;               /* [size]: peers[i] was given */
    struct ibv_ah **ahs;       /* [size]: created on first send */
    rcmsg_rc_cm_conn_t *conns; /* [size] */
    cm_held_t *held;           /* [size]: a REQ that came before the peer's address */
    uint32_t next_attempt;
    uint64_t next_due_us;   /* earliest retransmission (UINT64_MAX: none) */
    bool broken;            /* a completion error: the UD QP is reset and brought up again */
    const char *broke_by;   /* the status of that completion */
    uint64_t repair_log_us; /* the last repair logged at warn level (one a second at most) */
    bool ahs_stale;         /* the port went down and came back: the address handles go once no send
                               is in flight (rcmsg_rc_cm_kick) */
};

/* ---- the UD QP ------------------------------------------------------------------------- */

static rcmsg_status_t cm_post_recv(rcmsg_rc_cm_t *cm, int slot)
{
    struct ibv_sge sge = {.addr = (uintptr_t)(cm->bufs + (size_t)slot * CM_SLOT),
                          .length = CM_SLOT,
                          .lkey = cm->mr->lkey};
    struct ibv_recv_wr wr = {.wr_id = (uint64_t)slot, .sg_list = &sge, .num_sge = 1}, *bad;
    int rc = ibv_post_recv(cm->qp, &wr, &bad);

    if (rc != 0) {
        rcmsg_error("CM: ibv_post_recv on UD qp 0x%x (%s:%d) failed: %s", cm->qp->qp_num,
                    cm->dev_name, cm->port, strerror(rc));
        return RCMSG_ERR_IO;
    }
    return RCMSG_OK;
}

/* RESET -> INIT -> RTR -> RTS for a UD QP (no peer: rc_qp.c's table is for RC). */
static rcmsg_status_t cm_qp_up(rcmsg_rc_cm_t *cm)
{
    struct ibv_qp_attr init = {.qp_state = IBV_QPS_INIT,
                               .pkey_index = 0,
                               .port_num = (uint8_t)cm->port,
                               .qkey = RC_CM_QKEY};
    struct ibv_qp_attr rtr = {.qp_state = IBV_QPS_RTR};
    struct ibv_qp_attr rts = {.qp_state = IBV_QPS_RTS, .sq_psn = 0};
    int rc;

    rc = ibv_modify_qp(cm->qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
    if (rc == 0) {
        rc = ibv_modify_qp(cm->qp, &rtr, IBV_QP_STATE);
    }
    if (rc == 0) {
        rc = ibv_modify_qp(cm->qp, &rts, IBV_QP_STATE | IBV_QP_SQ_PSN);
    }
    if (rc != 0) {
        rcmsg_error("CM: bringing UD qp 0x%x on %s:%d up failed: %s", cm->qp->qp_num, cm->dev_name,
                    cm->port, strerror(rc));
        return RCMSG_ERR_IO;
    }
    for (int i = 0; i < CM_NRECV; i++) {
        if (cm_post_recv(cm, i) != RCMSG_OK) {
            return RCMSG_ERR_IO;
        }
    }
    return RCMSG_OK;
}

/*
 * The UD QP went to an error state (a send failed while the link was down, say): it is reset
 * and brought up again with every receive buffer posted anew; what it held is lost, as UD
 * packets may be, and the retransmissions cover it. Its number does not change, so the peers'
 * copies of this CM's address stay valid.
 */
/* The address handles made so far go (cm_ah makes each again on its next send). */
static void cm_ahs_drop(rcmsg_rc_cm_t *cm)
{
    for (int i = 0; cm->ahs != NULL && i < cm->params.size; i++) {
        if (cm->ahs[i] != NULL) {
            ibv_destroy_ah(cm->ahs[i]);
            cm->ahs[i] = NULL;
        }
    }
}

static void cm_qp_repair(rcmsg_rc_cm_t *cm)
{
    struct ibv_qp_attr attr = {.qp_state = IBV_QPS_RESET};
    struct ibv_qp_init_attr init;
    struct ibv_wc wc[16];
    const char *state = "unknown";

    cm->broken = false;
    if (ibv_query_qp(cm->qp, &attr, IBV_QP_STATE, &init) == 0) {
        state = attr.qp_state == IBV_QPS_ERR   ? "ERR"
                : attr.qp_state == IBV_QPS_SQE ? "SQE"
                : attr.qp_state == IBV_QPS_RTS ? "RTS"
                                               : "another state";
    }
    attr = (struct ibv_qp_attr){.qp_state = IBV_QPS_RESET};
    if (ibv_modify_qp(cm->qp, &attr, IBV_QP_STATE) != 0) {
        rcmsg_error("CM: UD qp 0x%x on %s:%d cannot be reset: %m", cm->qp->qp_num, cm->dev_name,
                    cm->port);
        return;
    }
    while (ibv_poll_cq(cm->cq, (int)RCMSG_ARRAY_SIZE(wc), wc) > 0) {
        /* what the broken QP left: dropped */
    }
    memset(cm->send_busy, 0, sizeof(cm->send_busy));
    /* an address handle made before a link flap may keep failing every send (the port's GIDs
     * are deleted and added again with the link): the next sends make new ones */
    cm_ahs_drop(cm);
    if (cm_qp_up(cm) == RCMSG_OK) {
        uint64_t now = rcmsg_clock_us();
        rcmsg_log(now - cm->repair_log_us >= 1000000 ? RCMSG_LOG_WARN : RCMSG_LOG_DEBUG,
                  "CM: UD qp 0x%x on %s:%d was in %s after a completion with %s: reset and "
                  "brought up again",
                  cm->qp->qp_num, cm->dev_name, cm->port, state, cm->broke_by);
        cm->repair_log_us = now;
    }
}

static rcmsg_status_t cm_qp_create(rcmsg_rc_cm_t *cm)
{
    size_t len = (size_t)(CM_NRECV + CM_NSEND) * CM_SLOT;
    struct ibv_qp_init_attr qa = {
        .qp_type = IBV_QPT_UD,
        .cap = {.max_send_wr = CM_NSEND,
                .max_recv_wr = CM_NRECV,
                .max_send_sge = 1,
                .max_recv_sge = 1},
    };

    cm->cq = ibv_create_cq(cm->ctx, CM_NRECV + CM_NSEND, NULL, cm->channel, 0);
    if (cm->cq == NULL) {
        rcmsg_error("CM: ibv_create_cq on %s failed: %m", cm->dev_name);
        return RCMSG_ERR_IO;
    }
    cm->bufs = calloc(1, len);
    if (cm->bufs == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    cm->mr = ibv_reg_mr(cm->pd, cm->bufs, len, IBV_ACCESS_LOCAL_WRITE);
    if (cm->mr == NULL) {
        rcmsg_error("CM: ibv_reg_mr of %zu bytes on %s failed: %m", len, cm->dev_name);
        return RCMSG_ERR_IO;
    }
    qa.send_cq = qa.recv_cq = cm->cq;
    cm->qp = ibv_create_qp(cm->pd, &qa);
    if (cm->qp == NULL) {
        rcmsg_error("CM: ibv_create_qp (UD) on %s failed: %m", cm->dev_name);
        return RCMSG_ERR_IO;
    }
    return cm_qp_up(cm);
}

/* ---- open / close ---------------------------------------------------------------------- */

static rcmsg_status_t cm_alloc(rcmsg_rc_cm_t *cm, int size)
{
    cm->peers = calloc((size_t)size, sizeof(*cm->peers));
    cm->known = calloc((size_t)size, sizeof(*cm->known));
    cm->ahs = calloc((size_t)size, sizeof(*cm->ahs));
    cm->conns = calloc((size_t)size, sizeof(*cm->conns));
    cm->held = calloc((size_t)size, sizeof(*cm->held));
    if (cm->peers == NULL || cm->known == NULL || cm->ahs == NULL || cm->conns == NULL ||
        cm->held == NULL) {
        rcmsg_error("CM: out of memory for the state of %d peers", size);
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < size; i++) {
        rcmsg_rc_cm_conn_init(&cm->conns[i], i, NULL);
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_rc_cm_open(const rcmsg_rc_cm_where_t *where,
                                const rcmsg_rc_cm_params_t *params, const rcmsg_rc_cm_ops_t *ops,
                                rcmsg_rc_cm_t **cm_p)
{
    rcmsg_rc_cm_t *cm = calloc(1, sizeof(*cm));
    rcmsg_status_t status;

    if (cm == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    cm->params = *params;
    cm->ops = *ops;
    snprintf(cm->dev_name, sizeof(cm->dev_name), "%s", where->dev_name);
    cm->ctx = where->ctx;
    cm->pd = where->pd;
    cm->channel = where->channel;
    cm->port = where->port;
    cm->link_layer = where->port_attr->link_layer;
    cm->lid = where->port_attr->lid;
    cm->gid_index = where->gid_index;
    cm->gid_type = where->gid_type;
    if (where->gid != NULL) {
        cm->gid = *where->gid;
    }
    cm->next_due_us = UINT64_MAX;
    if (getrandom(&cm->next_attempt, sizeof(cm->next_attempt), 0) != sizeof(cm->next_attempt)) {
        cm->next_attempt = (uint32_t)rcmsg_clock_us() ^ ((uint32_t)params->self << 20);
    }
    status = cm_alloc(cm, params->size);
    if (status == RCMSG_OK) {
        status = cm_qp_create(cm);
    }
    if (status != RCMSG_OK) {
        rcmsg_rc_cm_close(cm);
        return status;
    }
    rcmsg_debug("CM: UD qp 0x%x on %s:%d, %d receive buffers, retry every %llu us, %u tries",
                cm->qp->qp_num, cm->dev_name, cm->port, CM_NRECV,
                (unsigned long long)params->timeout_us, params->max_tries);
    *cm_p = cm;
    return RCMSG_OK;
}

void rcmsg_rc_cm_close(rcmsg_rc_cm_t *cm)
{
    if (cm == NULL) {
        return;
    }
    cm_ahs_drop(cm);
    if (cm->qp != NULL && ibv_destroy_qp(cm->qp) != 0) {
        rcmsg_warn("CM: ibv_destroy_qp of the UD qp on %s failed: %m", cm->dev_name);
    }
    if (cm->mr != NULL) {
        ibv_dereg_mr(cm->mr);
    }
    if (cm->cq != NULL) {
        ibv_destroy_cq(cm->cq);
    }
    free(cm->bufs);
    free(cm->peers);
    free(cm->known);
    free(cm->ahs);
    free(cm->conns);
    free(cm->held);
    free(cm);
}

/* ---- addresses ------------------------------------------------------------------------- */

void rcmsg_rc_cm_addr_pack(const rcmsg_rc_cm_t *cm, void *buf)
{
    rcmsg_rc_cm_addr_t addr = {
        .link_layer = cm->link_layer,
        .port = (uint8_t)cm->port,
        .gid_type = cm->gid_type,
        .lid = cm->lid,
        .qpn = cm->qp->qp_num,
        .qkey = RC_CM_QKEY,
    };

    memcpy(addr.gid, cm->gid.raw, sizeof(addr.gid));
    rcmsg_rc_cm_addr_encode(&addr, buf);
}

rcmsg_status_t rcmsg_rc_cm_add_peer(rcmsg_rc_cm_t *cm, int peer, const void *buf, size_t len,
                                    const rcmsg_rc_cm_payload_t *local)
{
    rcmsg_rc_cm_addr_t addr;
    rcmsg_status_t status;

    if (peer < 0 || peer >= cm->params.size || peer == cm->params.self) {
        rcmsg_error("CM: peer %d is not a peer of rank %d (%d ranks)", peer, cm->params.self,
                    cm->params.size);
        return RCMSG_ERR_INVALID_PARAM;
    }
    status = rcmsg_rc_cm_addr_decode(buf, len, peer, &addr);
    if (status != RCMSG_OK) {
        return status;
    }
    if (addr.link_layer != cm->link_layer) {
        rcmsg_error("CM: peer %d is on a %s port, this rank on %s: link layers must match", peer,
                    rcmsg_rc_link_layer_name(addr.link_layer),
                    rcmsg_rc_link_layer_name(cm->link_layer));
        return RCMSG_ERR_PEER_DATA;
    }
    cm->peers[peer] = addr;
    cm->known[peer] = true;
    cm->conns[peer].local = *local;
    return RCMSG_OK;
}

void rcmsg_rc_cm_ah_attr(const rcmsg_rc_cm_t *cm, int peer, struct ibv_ah_attr *ah)
{
    const rcmsg_rc_cm_addr_t *a = &cm->peers[peer];

    *ah = (struct ibv_ah_attr){.dlid = a->lid, .port_num = (uint8_t)cm->port};
    if (cm->link_layer == IBV_LINK_LAYER_ETHERNET || cm->gid_index >= 0) {
        ah->is_global = 1;
        memcpy(ah->grh.dgid.raw, a->gid, sizeof(a->gid));
        ah->grh.sgid_index = (uint8_t)(cm->gid_index >= 0 ? cm->gid_index : 0);
        ah->grh.hop_limit = 64;
    }
}

/* Whether a send is in flight (its address handle must live until it completes). */
static bool cm_sending(const rcmsg_rc_cm_t *cm)
{
    for (int i = 0; i < CM_NSEND; i++) {
        if (cm->send_busy[i]) {
            return true;
        }
    }
    return false;
}

static struct ibv_ah *cm_ah(rcmsg_rc_cm_t *cm, int peer)
{
    struct ibv_ah_attr attr;

    if (cm->ahs_stale && !cm_sending(cm)) {
        cm_ahs_drop(cm);
        cm->ahs_stale = false;
    }
    if (cm->ahs[peer] == NULL) {
        rcmsg_rc_cm_ah_attr(cm, peer, &attr);
        cm->ahs[peer] = ibv_create_ah(cm->pd, &attr);
        if (cm->ahs[peer] == NULL && (errno == ENETUNREACH || errno == EHOSTUNREACH ||
                                      errno == ENETDOWN || errno == ETIMEDOUT)) {
            /* the link is down (the port's GIDs gone with it, or the neighbour's address not
             * resolved in time): the retransmissions try again; a connect that still fails
             * says so when its tries run out */
            rcmsg_debug("CM: no address handle towards peer %d on %s:%d yet: %m", peer,
                        cm->dev_name, cm->port);
        } else if (cm->ahs[peer] == NULL) {
            rcmsg_error("CM: ibv_create_ah towards peer %d on %s:%d failed: %m", peer, cm->dev_name,
                        cm->port);
        }
    }
    return cm->ahs[peer];
}

/* ---- sending --------------------------------------------------------------------------- */

/* Sends the packet of `type` for conn. A packet that cannot be posted (no free send slot, no
 * address handle) is lost like any UD packet: the retransmission covers it. */
/* Sends the packet of type `type` for conn; its payload is conn's local one, or *payload. */
static bool cm_send_payload(rcmsg_rc_cm_t *cm, rcmsg_rc_cm_conn_t *conn, int type,
                            const rcmsg_rc_cm_payload_t *payload)
{
    rcmsg_rc_cm_pkt_t pkt;
    struct ibv_ah *ah = cm_ah(cm, conn->peer);
    int slot = cm->send_next, rc;
    char *buf;
    struct ibv_sge sge;
    struct ibv_send_wr wr, *bad;

    if (ah == NULL || cm->send_busy[slot]) {
        rcmsg_debug("CM: %s to peer %d not sent (%s)", rcmsg_rc_cm_type_name(type), conn->peer,
                    ah == NULL ? "no address handle" : "every send slot busy");
        return false;
    }
    rcmsg_rc_cm_fsm_packet(&cm->params, conn, type, &pkt);
    if (payload != NULL) {
        pkt.payload = *payload;
    }
    buf = cm->bufs + (size_t)(CM_NRECV + slot) * CM_SLOT;
    rcmsg_rc_cm_pkt_encode(&pkt, buf);
    sge = (struct ibv_sge){.addr = (uintptr_t)buf, .length = RC_CM_PKT_SIZE, .lkey = cm->mr->lkey};
    wr = (struct ibv_send_wr){
        .wr_id = CM_SEND_BIT | (uint64_t)slot,
        .sg_list = &sge,
        .num_sge = 1,
        .opcode = IBV_WR_SEND,
        .send_flags = IBV_SEND_SIGNALED,
        .wr.ud = {.ah = ah,
                  .remote_qpn = cm->peers[conn->peer].qpn,
                  .remote_qkey = cm->peers[conn->peer].qkey},
    };
    rc = ibv_post_send(cm->qp, &wr, &bad);
    if (rc != 0) {
        rcmsg_debug("CM: posting %s to peer %d failed: %s", rcmsg_rc_cm_type_name(type), conn->peer,
                    strerror(rc));
        return false;
    }
    cm->send_busy[slot] = true;
    cm->send_next = (slot + 1) % CM_NSEND;
    rcmsg_trace("CM: %s sent to peer %d (attempt %u, try %u)", rcmsg_rc_cm_type_name(type),
                conn->peer, conn->attempt, conn->tries);
    return true;
}

static void cm_send(rcmsg_rc_cm_t *cm, rcmsg_rc_cm_conn_t *conn, int type)
{
    (void)cm_send_payload(cm, conn, type, NULL);
}

/* ---- actions --------------------------------------------------------------------------- */

static double cm_secs_since(uint64_t start_us)
{
    return (double)(rcmsg_clock_us() - start_us) / 1e6;
}

static void cm_failed(rcmsg_rc_cm_t *cm, int peer)
{
    if (cm->ops.failed != NULL) {
        cm->ops.failed(cm->ops.arg, peer);
    }
}

/* The QP transitions the state machine asked for conn (RTR, RTS or both): 0 when done, or
 * the owner's non-zero return, logged here (a warning when the owner will try again). */
static int cm_transition(rcmsg_rc_cm_t *cm, rcmsg_rc_cm_conn_t *conn, const rcmsg_rc_cm_act_t *act)
{
    int rc = 0;

    if (act->todo & RC_CM_DO_RTR) {
        rc = cm->ops.rtr(cm->ops.arg, conn->peer, &conn->remote, &conn->local);
    }
    if (rc == 0 && (act->todo & RC_CM_DO_RTS)) {
        rc = cm->ops.rts(cm->ops.arg, conn->peer, &conn->remote);
    }
    if (rc > 0) {
        rcmsg_warn("CM: connecting to peer %d: its RC qp 0x%x could not be connected to qp 0x%x "
                   "(attempt %u); the reconnect tries again",
                   conn->peer, conn->local.qpn, conn->remote.qpn, conn->attempt);
    } else if (rc < 0) {
        rcmsg_error("cannot connect to peer %d: its RC qp 0x%x could not be connected to qp "
                    "0x%x (attempt %u)",
                    conn->peer, conn->local.qpn, conn->remote.qpn, conn->attempt);
    }
    return rc;
}

/* Does what the state machine asked for conn. */
static void cm_act(rcmsg_rc_cm_t *cm, rcmsg_rc_cm_conn_t *conn, const rcmsg_rc_cm_act_t *act)
{
    int peer = conn->peer;

    if (act->todo & RC_CM_DO_DROP) {
        rcmsg_debug("CM: packet from peer %d dropped: %s (state %s, attempt %u)", peer, act->why,
                    rcmsg_rc_cm_state_name(conn->state), conn->attempt);
    }
    if ((act->todo & RC_CM_DO_LOST) && cm->ops.lost != NULL) {
        rcmsg_debug("CM: peer %d reconnects (attempt %u): its side of the connection broke", peer,
                    conn->pending);
        cm->ops.lost(cm->ops.arg, peer);
    }
    if ((act->todo & RC_CM_DO_DOWN) && cm->ops.down != NULL) {
        cm->ops.down(cm->ops.arg, peer);
    }
    if ((act->todo & RC_CM_DO_STALLED) && cm->ops.stalled != NULL) {
        cm->ops.stalled(cm->ops.arg, peer);
    }
    if (act->todo & RC_CM_DO_RESUMED) {
        rcmsg_debug("CM: peer %d is busy: connection kept (attempt %u)", peer, conn->attempt);
        if (cm->ops.resumed != NULL) {
            cm->ops.resumed(cm->ops.arg, peer);
        }
    }
    if (cm_transition(cm, conn, act) != 0) {
        rcmsg_rc_cm_fsm_abort(conn);
        cm_failed(cm, peer);
        return;
    }
    if (act->todo & RC_CM_DO_SEND) {
        if (conn->tries > 1 && act->send != RC_CM_RTU && act->send != RC_CM_DREP &&
            act->send != RC_CM_REJ) {
            rcmsg_debug("CM: retry: %s to peer %d, send %u of %u (attempt %u)",
                        rcmsg_rc_cm_type_name(act->send), peer, conn->tries, cm->params.max_tries,
                        conn->attempt);
        }
        cm_send(cm, conn, act->send);
    }
    if (act->todo & RC_CM_DO_CONNECTED) {
        rcmsg_debug("CM: connected to peer %d: qp 0x%x to qp 0x%x, %s, %u sends, %.3f s", peer,
                    conn->local.qpn, conn->remote.qpn, conn->passive ? "passive" : "active",
                    conn->tries, cm_secs_since(conn->start_us));
    }
    if (act->todo & RC_CM_DO_FAILED) {
        rcmsg_error("cannot connect to peer %d: %s after %u sends in %.1f s (RCMSG_CM_TIMEOUT "
                    "%llu ms x %u, %s); is peer %d alive?",
                    peer, act->why, conn->tries, cm_secs_since(conn->start_us),
                    (unsigned long long)(cm->params.timeout_us / 1000),
                    conn->max_tries != 0 ? conn->max_tries : cm->params.max_tries,
                    conn->max_tries != 0 ? "the reconnect of a broken connection, "
                                           "RCMSG_RECOVERY_TIMEOUT"
                                         : "RCMSG_CM_RETRIES",
                    peer);
        cm_failed(cm, peer);
    }
    if (rcmsg_rc_cm_state_waits(conn->state) && conn->due_us < cm->next_due_us) {
        cm->next_due_us = conn->due_us;
    }
}

/* ---- connect and progress -------------------------------------------------------------- */

rcmsg_status_t rcmsg_rc_cm_connect(rcmsg_rc_cm_t *cm, int peer, uint32_t qpn, uint32_t psn)
{
    rcmsg_rc_cm_act_t act;
    rcmsg_rc_cm_conn_t *conn;

    if (peer < 0 || peer >= cm->params.size || !cm->known[peer]) {
        rcmsg_error("CM: cannot connect to peer %d: its CM address is not known", peer);
        return RCMSG_ERR_INVALID_PARAM;
    }
    conn = &cm->conns[peer];
    if (conn->state != RC_CM_IDLE && conn->state != RC_CM_FAILED) {
        return RCMSG_OK; /* under way, by either side, or connected */
    }
    if (++cm->next_attempt == 0) {
        cm->next_attempt = 1;
    }
    conn->local.qpn = qpn;
    conn->local.psn = psn;
    rcmsg_rc_cm_fsm_connect(&cm->params, conn, cm->next_attempt, rcmsg_clock_us(), &act);
    if (act.todo != 0) {
        rcmsg_debug("CM: connecting to peer %d (attempt %u, qp 0x%x)", peer, cm->next_attempt,
                    cm->conns[peer].local.qpn);
    }
    cm_act(cm, &cm->conns[peer], &act);
    return RCMSG_OK;
}

void rcmsg_rc_cm_set_seq(rcmsg_rc_cm_t *cm, int peer, uint64_t sent, uint64_t received)
{
    cm->conns[peer].local.seq[0] = sent;
    cm->conns[peer].local.seq[1] = received;
}

void rcmsg_rc_cm_rejoin(rcmsg_rc_cm_t *cm, int peer, uint32_t qpn, uint32_t psn, unsigned max_tries)
{
    rcmsg_rc_cm_conn_t *conn = &cm->conns[peer];
    rcmsg_rc_cm_act_t act;
    bool answer = conn->state == RC_CM_LOST && conn->pending != 0;

    if (!answer && ++cm->next_attempt == 0) {
        cm->next_attempt = 1;
    }
    conn->local.qpn = qpn;
    conn->local.psn = psn;
    rcmsg_rc_cm_fsm_rejoin(&cm->params, conn, cm->next_attempt, max_tries, rcmsg_clock_us(), &act);
    rcmsg_debug("CM: reconnecting peer %d (%s, attempt %u, qp 0x%x, %u sends at most)", peer,
                answer ? "answering its REQ" : "our REQ", conn->attempt, qpn, max_tries);
    cm_act(cm, conn, &act);
}

void rcmsg_rc_cm_refuse(rcmsg_rc_cm_t *cm, int peer)
{
    rcmsg_rc_cm_act_t act;

    if (cm->conns[peer].refuse) {
        return;
    }
    rcmsg_rc_cm_fsm_refuse(&cm->params, &cm->conns[peer], rcmsg_clock_us(), &act);
    cm_act(cm, &cm->conns[peer], &act);
}

void rcmsg_rc_cm_kick(rcmsg_rc_cm_t *cm)
{
    uint64_t now = rcmsg_clock_us();

    /* an address handle made before or during the outage may name GIDs the port deleted and
     * added again with the link: its sends can complete and go nowhere (no error, so no repair
     * drops it); the next sends make new ones */
    cm->ahs_stale = true;
    for (int i = 0; i < cm->params.size; i++) {
        if (rcmsg_rc_cm_state_waits(cm->conns[i].state)) {
            cm->conns[i].due_us = now;
            cm->next_due_us = 0; /* due at once, whatever the coarse clock reads */
        }
    }
}

void rcmsg_rc_cm_disconnect(rcmsg_rc_cm_t *cm, int peer, uint64_t sent, uint64_t received)
{
    rcmsg_rc_cm_conn_t *conn = &cm->conns[peer];
    rcmsg_rc_cm_act_t act;

    rcmsg_rc_cm_set_seq(cm, peer, sent, received);
    rcmsg_rc_cm_fsm_disconnect(&cm->params, conn, rcmsg_clock_us(), &act);
    if (act.todo != 0) {
        rcmsg_debug("CM: disconnecting from peer %d (attempt %u, qp 0x%x, %llu sent, %llu "
                    "received)",
                    peer, conn->attempt, conn->local.qpn, (unsigned long long)sent,
                    (unsigned long long)received);
    }
    cm_act(cm, conn, &act);
}

void rcmsg_rc_cm_set_tries(rcmsg_rc_cm_t *cm, unsigned max_tries)
{
    cm->params.max_tries = max_tries;
}

bool rcmsg_rc_cm_busy(const rcmsg_rc_cm_t *cm)
{
    return cm->next_due_us != UINT64_MAX;
}

rcmsg_status_t rcmsg_rc_cm_arm(rcmsg_rc_cm_t *cm)
{
    if (ibv_req_notify_cq(cm->cq, 0) != 0) {
        rcmsg_error("CM: ibv_req_notify_cq on %s failed: %m", cm->dev_name);
        return RCMSG_ERR_IO;
    }
    return RCMSG_OK;
}

const uint8_t *rcmsg_rc_cm_peer_gid(const rcmsg_rc_cm_t *cm, int peer)
{
    return cm->peers[peer].gid;
}

bool rcmsg_rc_cm_conn_passive(const rcmsg_rc_cm_t *cm, int peer)
{
    return cm->conns[peer].passive;
}

rcmsg_rc_cm_state_t rcmsg_rc_cm_state(const rcmsg_rc_cm_t *cm, int peer)
{
    return cm->conns[peer].state;
}

void rcmsg_rc_cm_established(rcmsg_rc_cm_t *cm, int peer)
{
    rcmsg_rc_cm_act_t act;

    rcmsg_rc_cm_fsm_established(&cm->conns[peer], &act);
    if (act.todo != 0) {
        rcmsg_debug("CM: traffic from peer %d on qp 0x%x before its RTU: taken as the RTU", peer,
                    cm->conns[peer].local.qpn);
    }
    cm_act(cm, &cm->conns[peer], &act);
}

bool rcmsg_rc_cm_probe(rcmsg_rc_cm_t *cm, int peer)
{
    rcmsg_rc_cm_conn_t *conn = &cm->conns[peer];

    return conn->state == RC_CM_CONNECTED && cm_send_payload(cm, conn, RC_CM_PROBE, NULL);
}

/* A probe of a connection, or the answer to ours: the owner's (no state changes). */
static void cm_probe_act(rcmsg_rc_cm_t *cm, const rcmsg_rc_cm_pkt_t *pkt, unsigned todo)
{
    rcmsg_rc_cm_conn_t *conn = &cm->conns[pkt->src];

    if ((todo & RC_CM_DO_ANSWER) && cm->ops.probe != NULL) {
        rcmsg_rc_cm_payload_t answer = conn->local;
        cm->ops.probe(cm->ops.arg, pkt->src, &answer);
        rcmsg_debug("CM: probe from peer %d (its qp 0x%x, attempt %u) answered: qp 0x%x, sent "
                    "%llu, received %llu",
                    pkt->src, pkt->payload.qpn, pkt->attempt, answer.qpn,
                    (unsigned long long)answer.seq[0], (unsigned long long)answer.seq[1]);
        (void)cm_send_payload(cm, conn, RC_CM_PROBE_REP, &answer);
    }
    if ((todo & RC_CM_DO_PROBED) && cm->ops.probed != NULL) {
        cm->ops.probed(cm->ops.arg, pkt->src, &pkt->payload);
    }
}

/* A validated packet from a known peer's CM. */
static void cm_handle(rcmsg_rc_cm_t *cm, const rcmsg_rc_cm_pkt_t *pkt)
{
    rcmsg_rc_cm_act_t act;

    rcmsg_trace("CM: %s from peer %d (attempt %u)", rcmsg_rc_cm_type_name(pkt->type), pkt->src,
                pkt->attempt);
    if (pkt->type == RC_CM_DREQ) {
        rcmsg_rc_cm_conn_t *conn = &cm->conns[pkt->src];
        conn->agree = pkt->attempt == conn->attempt &&
                      (conn->state == RC_CM_CONNECTED || conn->state == RC_CM_DREQ_SENT) &&
                      cm->ops.idle != NULL && cm->ops.idle(cm->ops.arg, pkt->src, &pkt->payload);
    }
    rcmsg_rc_cm_fsm_recv(&cm->params, &cm->conns[pkt->src], pkt, rcmsg_clock_us(), &act);
    if (act.todo & (RC_CM_DO_ANSWER | RC_CM_DO_PROBED)) {
        cm_probe_act(cm, pkt, act.todo);
        return;
    }
    cm_act(cm, &cm->conns[pkt->src], &act);
}

static void cm_recv(rcmsg_rc_cm_t *cm, const struct ibv_wc *wc)
{
    const char *buf = cm->bufs + (size_t)wc->wr_id * CM_SLOT, *why = NULL;
    rcmsg_rc_cm_pkt_t pkt;

    if (wc->status != IBV_WC_SUCCESS) {
        cm->broken = true; /* the QP is in error: repaired after the poll, buffers reposted */
        cm->broke_by = ibv_wc_status_str(wc->status);
        rcmsg_debug("CM: a receive completed with %s", cm->broke_by);
        return;
    }
    if (wc->byte_len < CM_GRH) {
        why = "shorter than the GRH";
    } else if (rcmsg_rc_cm_pkt_decode(buf + CM_GRH, wc->byte_len - CM_GRH, &cm->params, &pkt,
                                      &why) == RCMSG_OK) {
        if (!cm->known[pkt.src] && pkt.type == RC_CM_REQ) {
            bool again = cm->held[pkt.src].held;
            cm->held[pkt.src] = (cm_held_t){.pkt = pkt, .src_qp = wc->src_qp, .held = true};
            rcmsg_debug("CM: REQ from peer %d kept until its CM address is known", pkt.src);
            if (!again && cm->ops.held != NULL) {
                cm->ops.held(cm->ops.arg, pkt.src);
            }
            cm_post_recv(cm, (int)wc->wr_id);
            return;
        } else if (!cm->known[pkt.src]) {
            why = "from a peer whose CM address is not known";
        } else if (wc->src_qp != cm->peers[pkt.src].qpn) {
            why = "from a UD qp that is not the CM of its source rank";
        }
    }
    if (why != NULL) {
        rcmsg_debug("CM: packet of %u bytes from UD qp 0x%x dropped: %s", wc->byte_len, wc->src_qp,
                    why);
    } else {
        cm_handle(cm, &pkt);
    }
    cm_post_recv(cm, (int)wc->wr_id);
}

void rcmsg_rc_cm_take_held(rcmsg_rc_cm_t *cm, int peer)
{
    cm_held_t *h = &cm->held[peer];

    if (!h->held || !cm->known[peer]) {
        return;
    }
    h->held = false;
    if (h->src_qp != cm->peers[peer].qpn) {
        rcmsg_debug("CM: the REQ kept for peer %d came from UD qp 0x%x, not its CM: dropped", peer,
                    h->src_qp);
        return;
    }
    rcmsg_debug("CM: the REQ peer %d sent before its address was known is answered now", peer);
    cm_handle(cm, &h->pkt);
}

/* Sends again what is due, fails what ran out of tries; O(peers), only when something is due
 * (by the coarse clock, which is never ahead: a retry goes out up to a tick late, and the
 * check makes no system call). */
static int cm_timers(rcmsg_rc_cm_t *cm)
{
    uint64_t now;
    rcmsg_rc_cm_act_t act;
    int n = 0;

    if (rcmsg_clock_coarse_us() < cm->next_due_us) {
        return 0;
    }
    now = rcmsg_clock_us();
    cm->next_due_us = UINT64_MAX;
    for (int i = 0; i < cm->params.size; i++) {
        rcmsg_rc_cm_conn_t *conn = &cm->conns[i];
        if (!rcmsg_rc_cm_state_waits(conn->state)) {
            continue;
        }
        rcmsg_rc_cm_fsm_timer(&cm->params, conn, now, &act);
        n += act.todo != 0;
        cm_act(cm, conn, &act);
        if (rcmsg_rc_cm_state_waits(conn->state) && conn->due_us < cm->next_due_us) {
            cm->next_due_us = conn->due_us;
        }
    }
    return n;
}

int rcmsg_rc_cm_progress(rcmsg_rc_cm_t *cm)
{
    struct ibv_wc wc[16];
    int n, events = 0;

    while ((n = ibv_poll_cq(cm->cq, (int)RCMSG_ARRAY_SIZE(wc), wc)) > 0) {
        for (int i = 0; i < n; i++) {
            if (wc[i].wr_id & CM_SEND_BIT) {
                cm->send_busy[wc[i].wr_id & ~CM_SEND_BIT] = false;
                if (wc[i].status != IBV_WC_SUCCESS) {
                    rcmsg_debug("CM: a send completed with %s", ibv_wc_status_str(wc[i].status));
                    cm->broken = true;
                    cm->broke_by = ibv_wc_status_str(wc[i].status);
                }
            } else {
                cm_recv(cm, &wc[i]);
            }
        }
        events += n;
    }
    if (n < 0) {
        rcmsg_error("CM: ibv_poll_cq on %s failed", cm->dev_name);
    }
    if (cm->broken) {
        cm_qp_repair(cm);
    }
    return events + cm_timers(cm);
}

rcmsg_status_t rcmsg_rc_cm_connect_wait(rcmsg_rc_cm_t *cm, int peer, uint32_t qpn, uint32_t psn)
{
    rcmsg_status_t status = rcmsg_rc_cm_connect(cm, peer, qpn, psn);

    while (status == RCMSG_OK && cm->conns[peer].state != RC_CM_CONNECTED &&
           cm->conns[peer].state != RC_CM_FAILED) {
        rcmsg_rc_cm_progress(cm);
    }
    if (status != RCMSG_OK) {
        return status;
    }
    return cm->conns[peer].state == RC_CM_CONNECTED ? RCMSG_OK : RCMSG_ERR_CONNECTION;
}
