/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pure part of the CM (rc_cm.h): the CM address and packet codec, and the state machine of
 * one pair (event + state -> actions). No verbs, no logging, no allocation.
 */
#include "config.h"

#include "rc_cm.h"

#include "base/log.h"
#include "base/stats.h"
#include "base/wire.h"

#include <string.h>

/* ---- CM address ------------------------------------------------------------------------ */

void rcmsg_rc_cm_addr_encode(const rcmsg_rc_cm_addr_t *addr, void *buf)
{
    rcmsg_rc_cm_addr_wire_t w;

    memset(&w, 0, sizeof(w));
    w.link_layer = addr->link_layer;
    w.port = addr->port;
    w.gid_type = (uint8_t)(addr->gid_type + 1);
    rcmsg_wire_put_u16(w.lid, addr->lid);
    memcpy(w.gid, addr->gid, sizeof(w.gid));
    rcmsg_wire_put_u32(w.qpn, addr->qpn);
    rcmsg_wire_put_u32(w.qkey, addr->qkey);
    memcpy(buf, &w, sizeof(w));
}

rcmsg_status_t rcmsg_rc_cm_addr_decode(const void *buf, size_t len, int peer,
                                       rcmsg_rc_cm_addr_t *addr)
{
    rcmsg_rc_cm_addr_wire_t w;
    uint32_t qpn;

    if (buf == NULL || len != RC_CM_ADDR_SIZE) {
        rcmsg_error("CM address of peer %d is %zu bytes, not %d", peer, buf != NULL ? len : 0,
                    RC_CM_ADDR_SIZE);
        return RCMSG_ERR_PEER_DATA;
    }
    memcpy(&w, buf, sizeof(w));
    qpn = rcmsg_wire_get_u32(w.qpn);
    if (qpn == 0 || qpn > 0xffffff) {
        rcmsg_error("CM address of peer %d has an invalid UD qp number 0x%x", peer, qpn);
        return RCMSG_ERR_PEER_DATA;
    }
    addr->link_layer = w.link_layer;
    addr->port = w.port;
    addr->gid_type = (int)w.gid_type - 1;
    addr->lid = rcmsg_wire_get_u16(w.lid);
    memcpy(addr->gid, w.gid, sizeof(addr->gid));
    addr->qpn = qpn;
    addr->qkey = rcmsg_wire_get_u32(w.qkey);
    return RCMSG_OK;
}

/* ---- packets --------------------------------------------------------------------------- */

const char *rcmsg_rc_cm_type_name(int type)
{
    switch (type) {
#define RC_CM_TYPE_CASE(name, value)                                                               \
    case value:                                                                                    \
        return #name;
        RCMSG_RC_CM_TYPE_LIST(RC_CM_TYPE_CASE)
#undef RC_CM_TYPE_CASE
    default:
        return "unknown";
    }
}

void rcmsg_rc_cm_pkt_encode(const rcmsg_rc_cm_pkt_t *pkt, void *buf)
{
    rcmsg_rc_cm_pkt_wire_t w;

    memset(&w, 0, sizeof(w));
    rcmsg_wire_put_u32(w.magic, RC_CM_MAGIC);
    w.version = RC_CM_VERSION;
    w.type = (uint8_t)pkt->type;
    rcmsg_wire_put_u32(w.src, (uint32_t)pkt->src);
    rcmsg_wire_put_u32(w.dst, (uint32_t)pkt->dst);
    rcmsg_wire_put_u32(w.attempt, pkt->attempt);
    rcmsg_wire_put_u32(w.floor, pkt->floor);
    rcmsg_wire_put_u64(w.job, pkt->job);
    rcmsg_wire_put_u32(w.qpn, pkt->payload.qpn);
    rcmsg_wire_put_u32(w.psn, pkt->payload.psn);
    rcmsg_wire_put_u32(w.buf_size, pkt->payload.buf_size);
    w.mtu = pkt->payload.mtu;
    w.rd_atomic = pkt->payload.rd_atomic;
    w.status = pkt->payload.status;
    rcmsg_wire_put_u64(w.seq[0], pkt->payload.seq[0]);
    rcmsg_wire_put_u64(w.seq[1], pkt->payload.seq[1]);
    memcpy(buf, &w, sizeof(w));
}

static const char *cm_pkt_check(const rcmsg_rc_cm_pkt_wire_t *w, const rcmsg_rc_cm_pkt_t *p,
                                const rcmsg_rc_cm_params_t *params)
{
    if (rcmsg_wire_get_u32(w->magic) != RC_CM_MAGIC) {
        return "bad magic (not a CM packet)";
    }
    if (w->version != RC_CM_VERSION) {
        return "another CM protocol version";
    }
    if (p->type < RC_CM_REQ || p->type > RC_CM_PROBE_REP) {
        return "unknown packet type";
    }
    if (p->job != params->job) {
        return "from another job";
    }
    if (p->dst != params->self) {
        return "addressed to another rank";
    }
    if (p->src < 0 || p->src >= params->size || p->src == params->self) {
        return "source rank out of range";
    }
    if (p->attempt == 0) {
        return "attempt id 0";
    }
    if ((p->type == RC_CM_REQ || p->type == RC_CM_REP || p->type == RC_CM_PROBE ||
         p->type == RC_CM_PROBE_REP) &&
        (p->payload.qpn == 0 || p->payload.qpn > 0xffffff || p->payload.psn > 0xffffff)) {
        return "invalid qp number or psn";
    }
    if ((p->type == RC_CM_REQ || p->type == RC_CM_REP) &&
        (p->payload.mtu < IBV_MTU_256 || p->payload.mtu > IBV_MTU_4096)) {
        return "invalid MTU code";
    }
    if (p->type == RC_CM_DREP && p->payload.status > RC_CM_DREP_BUSY) {
        return "invalid DREP status";
    }
    return NULL;
}

rcmsg_status_t rcmsg_rc_cm_pkt_decode(const void *buf, size_t len,
                                      const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_pkt_t *pkt,
                                      const char **why_p)
{
    rcmsg_rc_cm_pkt_wire_t w;
    rcmsg_rc_cm_pkt_t p;
    uint32_t src, dst;

    if (buf == NULL || len != RC_CM_PKT_SIZE) {
        *why_p = len < RC_CM_PKT_SIZE ? "too short" : "too long";
        return RCMSG_ERR_PEER_DATA;
    }
    memcpy(&w, buf, sizeof(w));
    src = rcmsg_wire_get_u32(w.src);
    dst = rcmsg_wire_get_u32(w.dst);
    p = (rcmsg_rc_cm_pkt_t){
        .type = w.type,
        .src = src > INT32_MAX ? -1 : (int)src,
        .dst = dst > INT32_MAX ? -1 : (int)dst,
        .attempt = rcmsg_wire_get_u32(w.attempt),
        .floor = rcmsg_wire_get_u32(w.floor),
        .job = rcmsg_wire_get_u64(w.job),
        .payload =
            {
                .qpn = rcmsg_wire_get_u32(w.qpn),
                .psn = rcmsg_wire_get_u32(w.psn),
                .buf_size = rcmsg_wire_get_u32(w.buf_size),
                .mtu = w.mtu,
                .rd_atomic = w.rd_atomic,
                .status = w.status,
                .seq = {rcmsg_wire_get_u64(w.seq[0]), rcmsg_wire_get_u64(w.seq[1])},
            },
    };
    *why_p = cm_pkt_check(&w, &p, params);
    if (*why_p != NULL) {
        return RCMSG_ERR_PEER_DATA;
    }
    *pkt = p;
    return RCMSG_OK;
}

/* ---- state machine --------------------------------------------------------------------- */

static const char *const cm_state_names[] = {
#define RC_CM_STATE_NAME(name) #name,
    RCMSG_RC_CM_STATE_LIST(RC_CM_STATE_NAME)
#undef RC_CM_STATE_NAME
};
RCMSG_ASSERT_COVERS(cm_state_names, RC_CM_STATE_COUNT);

const char *rcmsg_rc_cm_state_name(rcmsg_rc_cm_state_t state)
{
    return (unsigned)state < RC_CM_STATE_COUNT ? cm_state_names[state] : "UNKNOWN";
}

/* Attempt ids compare in serial-number arithmetic: a is after b. */
static bool cm_after(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) > 0;
}

void rcmsg_rc_cm_conn_init(rcmsg_rc_cm_conn_t *conn, int peer, const rcmsg_rc_cm_payload_t *local)
{
    *conn = (rcmsg_rc_cm_conn_t){.peer = peer, .state = RC_CM_IDLE};
    if (local != NULL) {
        conn->local = *local;
    }
}

static void cm_send(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn, int type,
                    uint64_t now_us, rcmsg_rc_cm_act_t *act)
{
    act->todo |= RC_CM_DO_SEND;
    act->send = type;
    if (type == RC_CM_REQ || type == RC_CM_REP || type == RC_CM_DREQ) {
        if (conn->tries > 0) {
            rcmsg_stat_add(conn->peer, RCMSG_STAT_cm_retries, 1);
        }
        conn->tries++;
        conn->due_us = now_us + params->timeout_us;
    }
}

static void cm_drop(rcmsg_rc_cm_act_t *act, const char *why)
{
    act->todo |= RC_CM_DO_DROP;
    act->why = why;
}

/* A new attempt of this side: REQ_SENT and a REQ. */
static void cm_start(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn, uint32_t attempt,
                     uint64_t now_us, rcmsg_rc_cm_act_t *act)
{
    conn->state = RC_CM_REQ_SENT;
    conn->passive = false;
    conn->pending = 0;
    conn->attempt = attempt;
    conn->own_last = attempt;
    conn->tries = 0;
    conn->start_us = now_us;
    cm_send(params, conn, RC_CM_REQ, now_us, act);
}

void rcmsg_rc_cm_fsm_connect(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                             uint32_t attempt, uint64_t now_us, rcmsg_rc_cm_act_t *act)
{
    *act = (rcmsg_rc_cm_act_t){0};
    if (conn->state != RC_CM_IDLE && conn->state != RC_CM_FAILED) {
        return;
    }
    conn->max_tries = 0;
    cm_start(params, conn, attempt, now_us, act);
}

/* A REQ the pair may answer (not stale, not a duplicate): become the passive side. */
static void cm_accept(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                      const rcmsg_rc_cm_pkt_t *pkt, uint64_t now_us, rcmsg_rc_cm_act_t *act)
{
    conn->state = RC_CM_REP_SENT;
    conn->passive = true;
    conn->attempt = pkt->attempt;
    conn->peer_max = pkt->attempt;
    conn->remote = pkt->payload;
    conn->tries = 0;
    conn->start_us = now_us;
    act->todo |= RC_CM_DO_RTR;
    cm_send(params, conn, RC_CM_REP, now_us, act);
}

static void cm_recv_req(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                        const rcmsg_rc_cm_pkt_t *pkt, uint64_t now_us, rcmsg_rc_cm_act_t *act)
{
    if (conn->refuse) {
        conn->attempt = pkt->attempt; /* the REJ names the attempt it refuses */
        cm_send(params, conn, RC_CM_REJ, now_us, act);
        cm_drop(act, "REQ of a peer this side has failed: refused");
        return;
    }
    if (conn->passive && pkt->attempt == conn->attempt &&
        (conn->state == RC_CM_REP_SENT || conn->state == RC_CM_CONNECTED)) {
        if (conn->state == RC_CM_REP_SENT) {
            act->todo |= RC_CM_DO_SEND; /* our REP was lost: the same again */
            act->send = RC_CM_REP;
        } else {
            cm_drop(act, "duplicate REQ of the connected attempt");
        }
        return;
    }
    if (conn->peer_max != 0 && !cm_after(pkt->attempt, conn->peer_max)) {
        cm_drop(act, "stale REQ (an old or abandoned attempt of the peer)");
        return;
    }
    switch (conn->state) {
    case RC_CM_DREQ_SENT:
        /* the peer is idle again: it agreed to our DREQ and its DREP was lost */
        act->todo |= RC_CM_DO_DOWN;
        cm_accept(params, conn, pkt, now_us, act);
        return;
    case RC_CM_REQ_SENT:
        if (params->self < conn->peer) {
            cm_drop(act, "simultaneous connect: the lower rank's REQ (ours) wins");
            return;
        }
        cm_accept(params, conn, pkt, now_us, act); /* ours is abandoned */
        return;
    case RC_CM_CONNECTED:
        /* the peer's side broke and it reconnects: ours is drained first (the owner), and
         * the REQ answered when it rejoins */
        conn->state = RC_CM_LOST;
        conn->pending = pkt->attempt;
        conn->pending_remote = pkt->payload;
        act->todo |= RC_CM_DO_LOST;
        return;
    case RC_CM_LOST:
        if (conn->pending == 0 || !cm_after(conn->pending, pkt->attempt)) {
            conn->pending = pkt->attempt;
            conn->pending_remote = pkt->payload;
        }
        cm_drop(act, "REQ while our side of the broken connection drains (answered after)");
        return;
    default: /* IDLE, FAILED, or REP_SENT for an older attempt of the peer */
        cm_accept(params, conn, pkt, now_us, act);
        return;
    }
}

static void cm_recv_rep(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                        const rcmsg_rc_cm_pkt_t *pkt, uint64_t now_us, rcmsg_rc_cm_act_t *act)
{
    if (conn->passive || pkt->attempt != conn->attempt) {
        cm_drop(act, "REP of another attempt");
        return;
    }
    if (conn->state == RC_CM_CONNECTED) {
        cm_send(params, conn, RC_CM_RTU, now_us, act); /* our RTU was lost */
        return;
    }
    if (conn->state != RC_CM_REQ_SENT) {
        cm_drop(act, "REP while no REQ is outstanding");
        return;
    }
    if (pkt->floor != 0 && (conn->peer_max == 0 || cm_after(pkt->floor, conn->peer_max))) {
        conn->peer_max = pkt->floor; /* the peer's own REQs up to floor are abandoned */
    }
    conn->remote = pkt->payload;
    conn->state = RC_CM_CONNECTED;
    act->todo |= RC_CM_DO_RTR | RC_CM_DO_RTS | RC_CM_DO_CONNECTED;
    cm_send(params, conn, RC_CM_RTU, now_us, act);
}

static void cm_recv_rej(rcmsg_rc_cm_conn_t *conn, const rcmsg_rc_cm_pkt_t *pkt,
                        rcmsg_rc_cm_act_t *act)
{
    if (conn->passive || conn->state != RC_CM_REQ_SENT || pkt->attempt != conn->attempt) {
        cm_drop(act, "REJ of another attempt");
        return;
    }
    conn->state = RC_CM_FAILED;
    act->todo |= RC_CM_DO_FAILED;
    act->why = "the peer refused (it has failed this rank)";
}

static void cm_recv_rtu(rcmsg_rc_cm_conn_t *conn, const rcmsg_rc_cm_pkt_t *pkt,
                        rcmsg_rc_cm_act_t *act)
{
    if (!conn->passive || pkt->attempt != conn->attempt) {
        cm_drop(act, "RTU of another attempt");
        return;
    }
    if (conn->state != RC_CM_REP_SENT) {
        cm_drop(act, conn->state == RC_CM_CONNECTED ? "duplicate RTU"
                                                    : "RTU while no REP is "
                                                      "outstanding");
        return;
    }
    conn->state = RC_CM_CONNECTED;
    act->todo |= RC_CM_DO_RTS | RC_CM_DO_CONNECTED;
}

/* A DREQ: agreed (conn->agree, set by the owner) in CONNECTED or DREQ_SENT (both sides wanted
 * it): down and a DREP ok; else a DREP busy. In IDLE after that connection: our DREP was lost. */
static void cm_recv_dreq(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                         const rcmsg_rc_cm_pkt_t *pkt, uint64_t now_us, rcmsg_rc_cm_act_t *act)
{
    if (pkt->attempt != conn->attempt) {
        cm_drop(act, "DREQ of another connection");
        return;
    }
    switch (conn->state) {
    case RC_CM_IDLE:
        conn->local.status = RC_CM_DREP_OK;
        cm_send(params, conn, RC_CM_DREP, now_us, act);
        return;
    case RC_CM_CONNECTED:
    case RC_CM_DREQ_SENT:
        if (conn->agree) {
            conn->state = RC_CM_IDLE;
            conn->local.status = RC_CM_DREP_OK;
            act->todo |= RC_CM_DO_DOWN;
        } else {
            conn->local.status = RC_CM_DREP_BUSY;
        }
        cm_send(params, conn, RC_CM_DREP, now_us, act);
        return;
    default:
        cm_drop(act, "DREQ while not connected");
        return;
    }
}

static void cm_recv_drep(rcmsg_rc_cm_conn_t *conn, const rcmsg_rc_cm_pkt_t *pkt,
                         rcmsg_rc_cm_act_t *act)
{
    if (conn->state != RC_CM_DREQ_SENT || pkt->attempt != conn->attempt) {
        cm_drop(act, "DREP without our DREQ outstanding");
        return;
    }
    if (pkt->payload.status == RC_CM_DREP_OK) {
        conn->state = RC_CM_IDLE;
        act->todo |= RC_CM_DO_DOWN;
    } else {
        conn->state = RC_CM_CONNECTED;
        act->todo |= RC_CM_DO_RESUMED;
    }
}

void rcmsg_rc_cm_fsm_rejoin(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                            uint32_t attempt, unsigned max_tries, uint64_t now_us,
                            rcmsg_rc_cm_act_t *act)
{
    rcmsg_rc_cm_pkt_t req = {
        .type = RC_CM_REQ, .src = conn->peer, .dst = params->self, .job = params->job};

    *act = (rcmsg_rc_cm_act_t){0};
    conn->max_tries = max_tries;
    if (conn->state == RC_CM_LOST && conn->pending != 0) {
        req.attempt = conn->pending;
        req.payload = conn->pending_remote;
        conn->pending = 0;
        cm_accept(params, conn, &req, now_us, act);
        return;
    }
    if (conn->state == RC_CM_FAILED && conn->passive && conn->attempt == conn->peer_max) {
        /* our answer to the peer's REQ failed here (a QP transition), before any REP: the
         * peer still waits for that attempt, and a REQ of ours would lose to it when the
         * peer is the lower rank, so the same REQ is answered again with the new QP */
        req.attempt = conn->attempt;
        req.payload = conn->remote;
        cm_accept(params, conn, &req, now_us, act);
        return;
    }
    cm_start(params, conn, attempt, now_us, act);
}

void rcmsg_rc_cm_fsm_refuse(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                            uint64_t now_us, rcmsg_rc_cm_act_t *act)
{
    *act = (rcmsg_rc_cm_act_t){0};
    conn->refuse = true;
    if (conn->state == RC_CM_LOST && conn->pending != 0) {
        conn->attempt = conn->pending;
        cm_send(params, conn, RC_CM_REJ, now_us, act);
    }
    conn->pending = 0;
    conn->state = RC_CM_FAILED;
}

void rcmsg_rc_cm_fsm_disconnect(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                                uint64_t now_us, rcmsg_rc_cm_act_t *act)
{
    *act = (rcmsg_rc_cm_act_t){0};
    if (conn->state != RC_CM_CONNECTED) {
        return;
    }
    conn->state = RC_CM_DREQ_SENT;
    conn->tries = 0;
    conn->start_us = now_us;
    cm_send(params, conn, RC_CM_DREQ, now_us, act);
}

/* A PROBE or its PROBE_REP: taken only by a pair connected in the attempt it names. */
static void cm_recv_probe(const rcmsg_rc_cm_conn_t *conn, const rcmsg_rc_cm_pkt_t *pkt,
                          rcmsg_rc_cm_act_t *act)
{
    if (conn->state != RC_CM_CONNECTED) {
        cm_drop(act, "a probe of a pair that is not connected");
    } else if (pkt->attempt != conn->attempt) {
        cm_drop(act, "a probe of another attempt than the connected one");
    } else {
        act->todo |= pkt->type == RC_CM_PROBE ? RC_CM_DO_ANSWER : RC_CM_DO_PROBED;
    }
}

void rcmsg_rc_cm_fsm_recv(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                          const rcmsg_rc_cm_pkt_t *pkt, uint64_t now_us, rcmsg_rc_cm_act_t *act)
{
    *act = (rcmsg_rc_cm_act_t){0};
    switch (pkt->type) {
    case RC_CM_REQ:
        cm_recv_req(params, conn, pkt, now_us, act);
        break;
    case RC_CM_REP:
        cm_recv_rep(params, conn, pkt, now_us, act);
        break;
    case RC_CM_RTU:
        cm_recv_rtu(conn, pkt, act);
        break;
    case RC_CM_DREQ:
        cm_recv_dreq(params, conn, pkt, now_us, act);
        break;
    case RC_CM_DREP:
        cm_recv_drep(conn, pkt, act);
        break;
    case RC_CM_REJ:
        cm_recv_rej(conn, pkt, act);
        break;
    case RC_CM_PROBE:
    case RC_CM_PROBE_REP:
        cm_recv_probe(conn, pkt, act);
        break;
    default:
        cm_drop(act, "unknown packet type");
        break;
    }
}

void rcmsg_rc_cm_fsm_timer(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                           uint64_t now_us, rcmsg_rc_cm_act_t *act)
{
    *act = (rcmsg_rc_cm_act_t){0};
    if (!rcmsg_rc_cm_state_waits(conn->state) || now_us < conn->due_us) {
        return;
    }
    unsigned max_tries = conn->max_tries != 0 ? conn->max_tries : params->max_tries;

    if (conn->tries >= max_tries && conn->state == RC_CM_DREQ_SENT) {
        /* never given up: a DREQ abandoned here could still reach the peer (a live process
         * that is not calling rcmsg holds it in its queue) and take down a connection this
         * side would be using again; the connection stays frozen and the DREQ is resent */
        act->todo |= conn->tries == max_tries ? RC_CM_DO_STALLED : 0;
        cm_send(params, conn, RC_CM_DREQ, now_us, act);
        return;
    }
    if (conn->tries >= max_tries) {
        act->todo |= RC_CM_DO_FAILED;
        act->why = conn->state == RC_CM_DREQ_SENT ? "no DREP answered our DREQ"
                   : conn->passive                ? "no RTU answered our REP"
                                                  : "no REP answered our REQ";
        conn->state = RC_CM_FAILED;
        return;
    }
    cm_send(params, conn,
            conn->state == RC_CM_REQ_SENT   ? RC_CM_REQ
            : conn->state == RC_CM_REP_SENT ? RC_CM_REP
                                            : RC_CM_DREQ,
            now_us, act);
}

void rcmsg_rc_cm_fsm_established(rcmsg_rc_cm_conn_t *conn, rcmsg_rc_cm_act_t *act)
{
    *act = (rcmsg_rc_cm_act_t){0};
    if (conn->passive && conn->state == RC_CM_REP_SENT) {
        conn->state = RC_CM_CONNECTED;
        act->todo |= RC_CM_DO_RTS | RC_CM_DO_CONNECTED;
    }
}

void rcmsg_rc_cm_fsm_abort(rcmsg_rc_cm_conn_t *conn)
{
    conn->state = RC_CM_FAILED;
}

void rcmsg_rc_cm_fsm_packet(const rcmsg_rc_cm_params_t *params, const rcmsg_rc_cm_conn_t *conn,
                            int type, rcmsg_rc_cm_pkt_t *pkt)
{
    *pkt = (rcmsg_rc_cm_pkt_t){
        .type = type,
        .src = params->self,
        .dst = conn->peer,
        .attempt = conn->attempt,
        .floor = type == RC_CM_REP ? conn->own_last : 0,
        .job = params->job,
    };
    if (type != RC_CM_RTU) {
        pkt->payload = conn->local;
    }
}

bool rcmsg_rc_cm_state_waits(rcmsg_rc_cm_state_t state)
{
    return state == RC_CM_REQ_SENT || state == RC_CM_REP_SENT || state == RC_CM_DREQ_SENT;
}
