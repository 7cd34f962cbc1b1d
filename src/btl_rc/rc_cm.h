/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rc connection manager (CM): RC QPs connected through one unreliable-datagram (UD) QP per
 * process, with a protocol after IB CM's REQ / REP / RTU (Open MPI's udcm works the same way).
 * A rank needs only each peer's fixed-size CM address (RC_CM_ADDR_SIZE bytes: LID, GID, port,
 * UD qp number, qkey), so the address data of a job is O(N) in total.
 *
 *   active (connect)                          passive
 *   REQ  {attempt a, qpn, psn, mtu, ...}  ->  QP INIT -> RTR
 *   QP INIT -> RTR -> RTS                 <-  REP  {attempt a, qpn, psn, mtu, ..., floor}
 *   RTU  {attempt a}                      ->  QP RTR -> RTS
 *
 * Disconnect (an idle connection recycled, RCMSG_QP_MAX_ACTIVE), like IB CM's DREQ / DREP:
 *
 *   DREQ {attempt a, sent, received}      ->  agrees when this side is idle too (nothing
 *                                             outstanding) and has received all that was sent
 *                                             and sent all that was received: QP to RESET
 *   QP to RESET                           <-  DREP {attempt a, ok}   (or busy: stays connected)
 *
 * Once both sides agreed, every message sent on the connection has been received, so nothing is
 * lost or reordered; a later message reconnects with a new attempt. A REQ from the peer while
 * our DREQ waits for its DREP means the peer agreed (its DREP was lost): the QP goes down and
 * the REQ is answered. A DREQ is never given up (a peer outside rcmsg answers it when it comes
 * back): after RCMSG_CM_RETRIES sends the owner is told once (stalled) and it is sent on.
 *
 * UD loses packets: REQ (by the active side) and REP (by the passive side, until the RTU) are
 * sent again every RCMSG_CM_TIMEOUT; after RCMSG_CM_RETRIES sends without an answer the connect
 * fails (RCMSG_ERR_CONNECTION, logged with the peer). A duplicate REQ is answered with the same
 * REP, a duplicate REP with another RTU.
 *
 * Attempt ids: each process numbers the connect attempts it starts (never 0). Every packet
 * names the attempt it belongs to; a REP or RTU of another attempt than the current one is
 * dropped, so a packet of an old attempt never connects a QP.
 *
 * Recovery (rc_rec.c): when one side's RC QP breaks, that side drains it, replaces it by a new QP
 * and starts a new attempt whose REQ carries its counts (seq: sent, received). A REQ of a new
 * attempt while CONNECTED means the peer's side broke: the pair goes to LOST (the owner is told,
 * drains and replaces its own QP) and the REQ is kept, unanswered; once drained, the owner rejoins
 * and the kept REQ is answered (the REP carries this side's counts). Each side then replays what
 * the other's counts say it lacks. A rejoin gets its own budget of sends (RCMSG_RECOVERY_TIMEOUT).
 *
 *   broken side                               other side
 *   drain, QP to RESET -> INIT
 *   REQ  {attempt b, qpn, psn, seq}       ->  CONNECTED -> LOST: drain, RESET -> INIT, then
 *   RTR, RTS, replay                      <-  REP  {attempt b, qpn, psn, seq}  (RTR)
 *   RTU                                   ->  RTS, replay
 *
 * A side that has failed the peer for good (rcmsg_rc_cm_refuse) answers each of its REQs with a
 * REJ, so the peer's connect or reconnect fails at once instead of after its budget.
 *
 * Probe (rc_sync.c): a connected side whose oldest SEND has had no completion far beyond the
 * device's retries cannot tell a receive-not-ready wait (the peer's receive buffers all taken:
 * it computes, RCMSG_IB_RNR_RETRY=7 retries forever) from a send queue the device stopped
 * serving. It asks the peer:
 *
 *   PROBE      {attempt a, its qpn}        ->  posts its receive buffers again (the messages
 *                                              they held are taken and kept for its application)
 *   PROBE_REP  {attempt a, its qpn, seq}   <-
 *
 * Only a pair CONNECTED in that same attempt answers or takes an answer (another is dropped, at
 * debug level); nothing changes state. The answer's qpn must be the QP the asker sends to; its
 * seq are the peer's counts (sent to, received from the asker).
 *
 * Simultaneous connect (both ranks send a REQ): the lower rank's REQ wins. The lower rank
 * drops the higher rank's REQ; the higher rank abandons its own attempt and answers. Its REP
 * carries `floor`, the last attempt id it started itself: the lower rank drops any REQ of the
 * peer up to that id that arrives late, so exactly one connection results.
 *
 * Every packet received is validated (length, magic, version, type, ranks, the job's id,
 * attempt) and a refused one is logged at debug level with the reason.
 *
 * The pure part (rc_cm_fsm.c: codec and state machine, packet in + state -> actions) needs no
 * device, allocates and logs nothing (but a bad CM address) and is unit-tested; rc_cm.c owns the UD
 * QP, its buffers and address handles, and calls back its owner to move the RC QP of a peer to RTR
 * and RTS (with rc_qp.c's table).
 */
#ifndef RCMSG_BTL_RC_CM_H
#define RCMSG_BTL_RC_CM_H

#include "base/compiler.h"

#include <infiniband/verbs.h>
#include <rcmsg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RC_CM_MAGIC     0x4d43524du /* "MRCM" little-endian on the wire */
#define RC_CM_VERSION   1
#define RC_CM_ADDR_SIZE 32
#define RC_CM_HDR_SIZE  32
#define RC_CM_PKT_SIZE  64
#define RC_CM_QKEY      0x52434d47u

/* ---- the CM address (what a rank publishes) --------------------------------------------- */

typedef struct {
    uint8_t link_layer;
    uint8_t port;
    uint8_t gid_type; /* gid type + 1; 0: not known */
    uint8_t pad;
    uint8_t lid[2];
    uint8_t pad2[2];
    uint8_t gid[16];
    uint8_t qpn[4]; /* the UD QP */
    uint8_t qkey[4];
} rcmsg_rc_cm_addr_wire_t;

RCMSG_STATIC_ASSERT(sizeof(rcmsg_rc_cm_addr_wire_t) == RC_CM_ADDR_SIZE,
                    "the CM address must be RC_CM_ADDR_SIZE bytes");

typedef struct {
    uint8_t link_layer;
    uint8_t port;
    int gid_type; /* -1: not known */
    uint16_t lid;
    uint8_t gid[16];
    uint32_t qpn, qkey;
} rcmsg_rc_cm_addr_t;

void rcmsg_rc_cm_addr_encode(const rcmsg_rc_cm_addr_t *addr, void *buf);
/* RCMSG_ERR_PEER_DATA, logged naming the peer, when len is not RC_CM_ADDR_SIZE or the qp
 * number is not a 24-bit non-zero value. */
rcmsg_status_t rcmsg_rc_cm_addr_decode(const void *buf, size_t len, int peer,
                                       rcmsg_rc_cm_addr_t *addr);

/* ---- packets ---------------------------------------------------------------------------- */

#define RCMSG_RC_CM_TYPE_LIST(X)                                                                   \
    X(REQ, 1) X(REP, 2) X(RTU, 3) X(DREQ, 4) X(DREP, 5) X(REJ, 6) X(PROBE, 7) X(PROBE_REP, 8)

typedef enum {
#define RC_CM_TYPE_ENUM(name, value) RC_CM_##name = value,
    RCMSG_RC_CM_TYPE_LIST(RC_CM_TYPE_ENUM)
#undef RC_CM_TYPE_ENUM
} rcmsg_rc_cm_type_t;

const char *rcmsg_rc_cm_type_name(int type);

/* DREP's answer. */
enum { RC_CM_DREP_OK = 0, RC_CM_DREP_BUSY = 1 };

/* What a side tells the other about its RC QP (REQ, REP, DREQ, DREP; zero in RTU). */
typedef struct {
    uint32_t qpn, psn;
    uint32_t buf_size; /* receive buffer size of the owner: must be the same on both */
    uint8_t mtu;       /* enum ibv_mtu: the sender's active MTU */
    uint8_t rd_atomic; /* outstanding RDMA reads the sender's QP takes */
    uint8_t status;    /* DREP: RC_CM_DREP_OK or RC_CM_DREP_BUSY */
    uint64_t seq[2];   /* the pair's sequence state: messages sent to / received from the peer */
} rcmsg_rc_cm_payload_t;

/* On the wire: a 32-byte header and a 32-byte payload. */
typedef struct {
    uint8_t magic[4];
    uint8_t version;
    uint8_t type;
    uint8_t pad[2];
    uint8_t src[4];
    uint8_t dst[4];
    uint8_t attempt[4];
    uint8_t floor[4]; /* REP: the last attempt id the sender started itself (0: none) */
    uint8_t job[8];
    /* payload */
    uint8_t qpn[4];
    uint8_t psn[4];
    uint8_t buf_size[4];
    uint8_t mtu;
    uint8_t rd_atomic;
    uint8_t status;
    uint8_t pad2;
    uint8_t seq[2][8];
} rcmsg_rc_cm_pkt_wire_t;

RCMSG_STATIC_ASSERT(sizeof(rcmsg_rc_cm_pkt_wire_t) == RC_CM_PKT_SIZE,
                    "a CM packet must be RC_CM_PKT_SIZE bytes");
RCMSG_STATIC_ASSERT(offsetof(rcmsg_rc_cm_pkt_wire_t, qpn) == RC_CM_HDR_SIZE,
                    "the CM header must be RC_CM_HDR_SIZE bytes");

typedef struct {
    int type;
    int src, dst;
    uint32_t attempt, floor;
    uint64_t job;
    rcmsg_rc_cm_payload_t payload;
} rcmsg_rc_cm_pkt_t;

/* What the CM of one process checks packets against. */
typedef struct {
    int self, size;      /* this rank, the job's size */
    uint64_t job;        /* the job's identity: a packet of another job is refused */
    uint64_t timeout_us; /* RCMSG_CM_TIMEOUT */
    unsigned max_tries;  /* RCMSG_CM_RETRIES: sends of a REQ or REP before giving up */
} rcmsg_rc_cm_params_t;

void rcmsg_rc_cm_pkt_encode(const rcmsg_rc_cm_pkt_t *pkt, void *buf);

/*
 * Decodes and validates a packet of len bytes. RCMSG_OK, or RCMSG_ERR_PEER_DATA with *why_p
 * set to a static sentence naming what is wrong (length, magic, version, type, job, ranks).
 * Attempt ids are checked by the state machine. Logs nothing.
 */
rcmsg_status_t rcmsg_rc_cm_pkt_decode(const void *buf, size_t len,
                                      const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_pkt_t *pkt,
                                      const char **why_p);

/* ---- the state machine of one pair (pure) ---------------------------------------------- */

#define RCMSG_RC_CM_STATE_LIST(X)                                                                  \
    X(IDLE) X(REQ_SENT) X(REP_SENT) X(CONNECTED) X(DREQ_SENT) X(FAILED) X(LOST)

typedef enum {
#define RC_CM_STATE_ENUM(name) RC_CM_##name,
    RCMSG_RC_CM_STATE_LIST(RC_CM_STATE_ENUM)
#undef RC_CM_STATE_ENUM
        RC_CM_STATE_COUNT
} rcmsg_rc_cm_state_t;

const char *rcmsg_rc_cm_state_name(rcmsg_rc_cm_state_t state);

typedef struct {
    int peer;
    rcmsg_rc_cm_state_t state;
    bool passive;      /* answering the peer's REQ (else: this side sent the REQ) */
    uint32_t attempt;  /* id of the current attempt (0: none yet) */
    uint32_t own_last; /* the last attempt id this side started towards the peer (0: none) */
    uint32_t peer_max; /* REQs of the peer up to this attempt id are stale (0: none known) */
    bool agree;        /* set by the owner before a DREQ is given to the machine: idle, counts
                          match (rcmsg_rc_cm_ops_t.idle) */
    uint32_t pending;  /* LOST: the attempt of the peer's REQ that waits for the rejoin (0: none) */
    rcmsg_rc_cm_payload_t pending_remote; /* and what that REQ said */
    unsigned max_tries;                   /* sends of this attempt (0: params->max_tries) */
    bool refuse;       /* the owner failed the peer for good: its REQs get a REJ */
    unsigned tries;    /* sends of the current REQ, REP or DREQ */
    uint64_t due_us;   /* when it is sent again */
    uint64_t start_us; /* when the attempt began (for the logs) */
    rcmsg_rc_cm_payload_t local, remote;
} rcmsg_rc_cm_conn_t;

/* What the caller does after an event, in this order: RTR, RTS, SEND, then report. */
enum {
    RC_CM_DO_RTR = 1 << 0,       /* move the RC QP to RTR towards conn->remote */
    RC_CM_DO_RTS = 1 << 1,       /* move it to RTS */
    RC_CM_DO_SEND = 1 << 2,      /* send the packet of type act->send */
    RC_CM_DO_CONNECTED = 1 << 3, /* the connection is up */
    RC_CM_DO_FAILED = 1 << 4,    /* the connect failed (act->why) */
    RC_CM_DO_DROP = 1 << 5,      /* the packet was refused (act->why) */
    RC_CM_DO_DOWN = 1 << 6,      /* disconnected: the RC QP goes back to RESET (first of all) */
    RC_CM_DO_RESUMED = 1 << 7,   /* the peer refused our DREQ: connected again */
    RC_CM_DO_STALLED = 1 << 8,   /* our DREQ went unanswered max_tries times (sent on) */
    RC_CM_DO_LOST = 1 << 9,      /* the peer reconnects a connected pair: its side broke */
    RC_CM_DO_ANSWER = 1 << 10,   /* a PROBE of this connection: answer it (PROBE_REP) */
    RC_CM_DO_PROBED = 1 << 11,   /* the PROBE_REP to our PROBE: give it to the owner */
};

typedef struct {
    unsigned todo;   /* RC_CM_DO_* */
    int send;        /* rcmsg_rc_cm_type_t, with RC_CM_DO_SEND */
    const char *why; /* with RC_CM_DO_DROP or RC_CM_DO_FAILED: a static sentence */
} rcmsg_rc_cm_act_t;

/* A pair in IDLE whose local QP is described by local. */
void rcmsg_rc_cm_conn_init(rcmsg_rc_cm_conn_t *conn, int peer, const rcmsg_rc_cm_payload_t *local);

/*
 * Starts a connect with the new attempt id `attempt` (not 0). From IDLE or FAILED: REQ_SENT
 * and a REQ to send. In any other state nothing is done (an attempt is under way, by either
 * side, or the pair is connected).
 */
void rcmsg_rc_cm_fsm_connect(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                             uint32_t attempt, uint64_t now_us, rcmsg_rc_cm_act_t *act);

/*
 * Starts a disconnect of a CONNECTED pair: DREQ_SENT and a DREQ to send, telling the peer
 * conn->local.seq (set by the caller: messages sent to and received from the peer). Nothing in
 * any other state.
 */
void rcmsg_rc_cm_fsm_disconnect(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                                uint64_t now_us, rcmsg_rc_cm_act_t *act);

/*
 * Reconnects a pair whose local QP broke and was replaced (recovery) with the new attempt id
 * `attempt`, allowed max_tries sends (0: params'). In LOST with the peer's REQ kept: that REQ
 * is accepted (RTR, REP). In any other state a new attempt starts (REQ_SENT, REQ).
 */
void rcmsg_rc_cm_fsm_rejoin(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                            uint32_t attempt, unsigned max_tries, uint64_t now_us,
                            rcmsg_rc_cm_act_t *act);

/* The owner failed the peer for good: FAILED, and every REQ of the peer from now on (and the
 * one LOST kept) is answered with a REJ. */
void rcmsg_rc_cm_fsm_refuse(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                            uint64_t now_us, rcmsg_rc_cm_act_t *act);

/* A validated packet from conn->peer (pkt->src). For a DREQ, conn->agree must be set. */
void rcmsg_rc_cm_fsm_recv(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                          const rcmsg_rc_cm_pkt_t *pkt, uint64_t now_us, rcmsg_rc_cm_act_t *act);

/* Time passes: a REQ, REP or DREQ due is sent again, or the attempt fails after max_tries
 * sends; a DREQ never fails (RC_CM_DO_STALLED once, and it is sent on). */
void rcmsg_rc_cm_fsm_timer(const rcmsg_rc_cm_params_t *params, rcmsg_rc_cm_conn_t *conn,
                           uint64_t now_us, rcmsg_rc_cm_act_t *act);

/*
 * The RC QP of the pair received a packet from the peer (a receive completion, or the device's
 * IBV_EVENT_COMM_EST): the peer is connected, so on the passive side a lost RTU is taken as
 * received (RTS, connected), as IB CM does. Nothing in any other state.
 */
void rcmsg_rc_cm_fsm_established(rcmsg_rc_cm_conn_t *conn, rcmsg_rc_cm_act_t *act);

/* Does a pair in this state wait for an answer (a REQ, REP or DREQ to send again)? */
bool rcmsg_rc_cm_state_waits(rcmsg_rc_cm_state_t state);

/* The caller could not do what an action asked (a QP transition failed): the attempt fails. */
void rcmsg_rc_cm_fsm_abort(rcmsg_rc_cm_conn_t *conn);

/* The packet of type `type` this side sends for conn. */
void rcmsg_rc_cm_fsm_packet(const rcmsg_rc_cm_params_t *params, const rcmsg_rc_cm_conn_t *conn,
                            int type, rcmsg_rc_cm_pkt_t *pkt);

/* ---- the CM of a process (rc_cm.c) ------------------------------------------------------ */

typedef struct rcmsg_rc_cm rcmsg_rc_cm_t;

/* What the CM asks its owner to do with the RC QP of a peer. rtr and rts return 0 when done,
 * or non-zero when the transition failed (the callee logged why) and the attempt fails:
 * negative when the connect is over (the CM logs an error), positive when the owner will try
 * again (a recovery's reconnect; the CM logs a warning) from its failed callback. */
typedef struct {
    /* INIT -> RTR towards remote; the owner gives the peer a QP first if it has none, and
     * writes that QP's qpn and psn in *local (what the REP tells the peer) */
    int (*rtr)(void *arg, int peer, const rcmsg_rc_cm_payload_t *remote,
               rcmsg_rc_cm_payload_t *local);
    int (*rts)(void *arg, int peer, const rcmsg_rc_cm_payload_t *remote);
    /* a DREQ from the peer: is this side idle (nothing outstanding) with remote->seq[0]
     * received and remote->seq[1] sent? Then it stops posting to the peer. */
    bool (*idle)(void *arg, int peer, const rcmsg_rc_cm_payload_t *remote);
    void (*down)(void *arg, int peer);    /* both agreed: the RC QP back to RESET */
    void (*resumed)(void *arg, int peer); /* the peer refused our DREQ: post again */
    void (*failed)(void *arg, int peer);  /* a connect failed (logged) */
    void (*stalled)(void *arg, int peer); /* our DREQ went unanswered RCMSG_CM_RETRIES times */
    void (*lost)(void *arg, int peer);    /* the peer's side of the connection broke */
    /* a REQ came from a peer whose CM address is not known: kept for rcmsg_rc_cm_take_held
     * (NULL: nothing told) */
    void (*held)(void *arg, int peer);
    /* the peer probes the connection ("Probe" above): the owner fills *answer (its QP's qpn, its
     * counts in seq) after posting its receive buffers (NULL: probes are not answered) */
    void (*probe)(void *arg, int peer, rcmsg_rc_cm_payload_t *answer);
    /* the peer's answer to our probe (NULL: answers dropped) */
    void (*probed)(void *arg, int peer, const rcmsg_rc_cm_payload_t *answer);
    void *arg;
} rcmsg_rc_cm_ops_t;

/* Where the CM lives: the RC device's context, PD and port, and the GID used on it. */
typedef struct {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    const char *dev_name;
    int port;
    const struct ibv_port_attr *port_attr;
    int gid_index; /* -1: no GRH (InfiniBand without RCMSG_GID_INDEX) */
    const union ibv_gid *gid;
    int gid_type;
    struct ibv_comp_channel *channel; /* completion events of the CM's CQ (NULL: none) */
} rcmsg_rc_cm_where_t;

rcmsg_status_t rcmsg_rc_cm_open(const rcmsg_rc_cm_where_t *where,
                                const rcmsg_rc_cm_params_t *params, const rcmsg_rc_cm_ops_t *ops,
                                rcmsg_rc_cm_t **cm_p);
void rcmsg_rc_cm_close(rcmsg_rc_cm_t *cm);

/* This process's CM address (RC_CM_ADDR_SIZE bytes at buf). */
void rcmsg_rc_cm_addr_pack(const rcmsg_rc_cm_t *cm, void *buf);

/* The CM address of a peer (its rcmsg_rc_cm_addr_pack); local describes this rank (its qpn
 * and psn are given per connect). */
rcmsg_status_t rcmsg_rc_cm_add_peer(rcmsg_rc_cm_t *cm, int peer, const void *addr, size_t len,
                                    const rcmsg_rc_cm_payload_t *local);

/* A REQ the peer sent before its CM address was given (the CM polled while wireup still
 * fetches addresses: the latest one is kept) is handled now; call after add_peer, once the
 * owner is ready for the rtr op. Nothing when none was kept. */
void rcmsg_rc_cm_take_held(rcmsg_rc_cm_t *cm, int peer);

/* The address vector of an RC QP towards the peer (for INIT -> RTR). */
void rcmsg_rc_cm_ah_attr(const rcmsg_rc_cm_t *cm, int peer, struct ibv_ah_attr *ah);

/* Starts connecting the peer with the local RC QP qpn, first psn psn (nothing when an attempt
 * is under way or it is connected). */
rcmsg_status_t rcmsg_rc_cm_connect(rcmsg_rc_cm_t *cm, int peer, uint32_t qpn, uint32_t psn);

/* Connects the peer and progresses the CM until it is connected (RCMSG_OK) or the attempt
 * failed (RCMSG_ERR_CONNECTION, logged naming the peer). */
rcmsg_status_t rcmsg_rc_cm_connect_wait(rcmsg_rc_cm_t *cm, int peer, uint32_t qpn, uint32_t psn);

/* The counts this side tells the peer in its next REQ (messages sent to it, received from it);
 * a REP carries what the rtr op writes. */
void rcmsg_rc_cm_set_seq(rcmsg_rc_cm_t *cm, int peer, uint64_t sent, uint64_t received);

/* Reconnects the peer after this side's QP broke and was replaced (rcmsg_rc_cm_fsm_rejoin), with
 * the local QP qpn, first psn psn and max_tries sends. */
void rcmsg_rc_cm_rejoin(rcmsg_rc_cm_t *cm, int peer, uint32_t qpn, uint32_t psn,
                        unsigned max_tries);

/* The owner failed the peer for good (rcmsg_rc_cm_fsm_refuse). */
void rcmsg_rc_cm_refuse(rcmsg_rc_cm_t *cm, int peer);

/* Asks the peer of a connected pair about the connection ("Probe" above): true when the PROBE
 * was posted (false: not CONNECTED, or no send slot; the caller asks again later). */
bool rcmsg_rc_cm_probe(rcmsg_rc_cm_t *cm, int peer);

/* Every packet waiting for an answer is sent again now, and the address handles towards the
 * peers are made again (the port came back up). */
void rcmsg_rc_cm_kick(rcmsg_rc_cm_t *cm);

/* Starts disconnecting a connected peer, telling it `sent` messages were sent to it and
 * `received` received from it (nothing in another state). */
void rcmsg_rc_cm_disconnect(rcmsg_rc_cm_t *cm, int peer, uint64_t sent, uint64_t received);

/* The sends of a REQ or REP before a connect fails (RCMSG_CM_RETRIES; rcmsg_init's eager
 * connects use a longer budget). */
void rcmsg_rc_cm_set_tries(rcmsg_rc_cm_t *cm, unsigned max_tries);

/* Does the CM have a retransmission pending (an attempt under way)? Then progress polls it at
 * once rather than sleeping. */
bool rcmsg_rc_cm_busy(const rcmsg_rc_cm_t *cm);

/* Asks for a completion event on the CM's CQ (its completion channel, given at open). */
rcmsg_status_t rcmsg_rc_cm_arm(rcmsg_rc_cm_t *cm);

rcmsg_rc_cm_state_t rcmsg_rc_cm_state(const rcmsg_rc_cm_t *cm, int peer);

/* The GID in the peer's CM address (16 bytes). */
const uint8_t *rcmsg_rc_cm_peer_gid(const rcmsg_rc_cm_t *cm, int peer);

/* Did the peer start the current (or last) connection (this side answered its REQ)? */
bool rcmsg_rc_cm_conn_passive(const rcmsg_rc_cm_t *cm, int peer);

/* The owner saw traffic from the peer on its RC QP (rcmsg_rc_cm_fsm_established). */
void rcmsg_rc_cm_established(rcmsg_rc_cm_t *cm, int peer);

/* Receives and answers CM packets, sends again what is due; returns the events handled. */
int rcmsg_rc_cm_progress(rcmsg_rc_cm_t *cm);

#endif /* RCMSG_BTL_RC_CM_H */
