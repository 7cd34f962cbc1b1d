/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CM's codec and state machine (rc_cm.h), without hardware: two simulated ranks exchange
 * encoded packets through a queue that can lose them, with a simulated clock.
 */
#include "config.h"

#include "btl_rc/rc_cm.h"

#include "ck_run.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define JOB     0x1234567890abcdefull
#define TIMEOUT 100000u
#define TRIES   5u
#define QMAX    64

typedef struct {
    rcmsg_rc_cm_params_t params;
    rcmsg_rc_cm_conn_t conn; /* towards the other side */
    int rtr, rts, connected, failed, drops, down, resumed, stalled, lost;
    bool agree; /* what the owner answers to a DREQ (idle, counts match) */
    uint32_t next_attempt;
} side_t;

typedef struct {
    int dst;
    uint8_t bytes[RC_CM_PKT_SIZE];
} wire_pkt_t;

typedef struct {
    side_t side[2];
    wire_pkt_t q[QMAX];
    int nq;
    uint64_t now;
    unsigned loss_pct; /* of packets sent */
    unsigned rng;
    int sent, lost;
} net_t;

static rcmsg_rc_cm_payload_t payload_of(int rank)
{
    return (rcmsg_rc_cm_payload_t){.qpn = 0x100 + (uint32_t)rank,
                                   .psn = 0x1000 + (uint32_t)rank,
                                   .buf_size = 9216,
                                   .mtu = IBV_MTU_1024,
                                   .rd_atomic = 16,
                                   .seq = {7 + (uint64_t)rank, 9}};
}

/* Rank r of {0, 1} of a job of `size` ranks (the other side is rank 1 - r). */
static void net_init(net_t *n, int size, unsigned loss_pct)
{
    memset(n, 0, sizeof(*n));
    for (int r = 0; r < 2; r++) {
        rcmsg_rc_cm_payload_t local = payload_of(r);
        n->side[r].params = (rcmsg_rc_cm_params_t){
            .self = r, .size = size, .job = JOB, .timeout_us = TIMEOUT, .max_tries = TRIES};
        rcmsg_rc_cm_conn_init(&n->side[r].conn, 1 - r, &local);
        n->side[r].next_attempt = 1000 * (unsigned)(r + 1);
    }
    n->now = 1000000;
    n->loss_pct = loss_pct;
    n->rng = 12345;
}

static unsigned net_rand(net_t *n)
{
    n->rng = n->rng * 1103515245u + 12345u;
    return (n->rng >> 16) % 100;
}

static void net_act(net_t *n, int r, const rcmsg_rc_cm_act_t *act)
{
    side_t *s = &n->side[r];

    s->rtr += (act->todo & RC_CM_DO_RTR) != 0;
    s->rts += (act->todo & RC_CM_DO_RTS) != 0;
    s->connected += (act->todo & RC_CM_DO_CONNECTED) != 0;
    s->failed += (act->todo & RC_CM_DO_FAILED) != 0;
    s->drops += (act->todo & RC_CM_DO_DROP) != 0;
    s->down += (act->todo & RC_CM_DO_DOWN) != 0;
    s->resumed += (act->todo & RC_CM_DO_RESUMED) != 0;
    s->stalled += (act->todo & RC_CM_DO_STALLED) != 0;
    s->lost += (act->todo & RC_CM_DO_LOST) != 0;
    if (act->todo & RC_CM_DO_SEND) {
        rcmsg_rc_cm_pkt_t pkt;
        n->sent++;
        if (n->loss_pct > 0 && net_rand(n) < n->loss_pct) {
            n->lost++;
            return;
        }
        ck_assert_int_lt(n->nq, QMAX);
        rcmsg_rc_cm_fsm_packet(&s->params, &s->conn, act->send, &pkt);
        n->q[n->nq].dst = 1 - r;
        rcmsg_rc_cm_pkt_encode(&pkt, n->q[n->nq].bytes);
        n->nq++;
    }
}

static void net_connect(net_t *n, int r)
{
    rcmsg_rc_cm_act_t act;
    side_t *s = &n->side[r];

    rcmsg_rc_cm_fsm_connect(&s->params, &s->conn, ++s->next_attempt, n->now, &act);
    net_act(n, r, &act);
}

/* Delivers packet i of the queue (removing it). */
static void net_deliver(net_t *n, int i)
{
    wire_pkt_t w = n->q[i];
    side_t *s = &n->side[w.dst];
    rcmsg_rc_cm_pkt_t pkt;
    rcmsg_rc_cm_act_t act;
    const char *why = NULL;

    memmove(&n->q[i], &n->q[i + 1], (size_t)(n->nq - i - 1) * sizeof(n->q[0]));
    n->nq--;
    ck_assert_msg(rcmsg_rc_cm_pkt_decode(w.bytes, sizeof(w.bytes), &s->params, &pkt, &why) ==
                      RCMSG_OK,
                  "a packet of the protocol was refused: %s", why);
    if (pkt.type == RC_CM_DREQ) {
        s->conn.agree = s->agree;
    }
    rcmsg_rc_cm_fsm_recv(&s->params, &s->conn, &pkt, n->now, &act);
    net_act(n, w.dst, &act);
}

/* Side r's QP broke and was reset: it reconnects (rcmsg_rc_cm_fsm_rejoin), telling the peer it
 * received `received` messages. */
static void net_rejoin(net_t *n, int r, unsigned max_tries, uint64_t received)
{
    rcmsg_rc_cm_act_t act;
    side_t *s = &n->side[r];

    s->conn.local.seq[1] = received;
    rcmsg_rc_cm_fsm_rejoin(&s->params, &s->conn, ++s->next_attempt, max_tries, n->now, &act);
    net_act(n, r, &act);
}

static void net_disconnect(net_t *n, int r)
{
    rcmsg_rc_cm_act_t act;
    side_t *s = &n->side[r];

    rcmsg_rc_cm_fsm_disconnect(&s->params, &s->conn, n->now, &act);
    net_act(n, r, &act);
}

/* Runs until nothing is in flight and nothing is due, advancing the clock; bounded. */
static void net_run(net_t *n)
{
    for (int steps = 0; steps < 10000; steps++) {
        rcmsg_rc_cm_act_t act;
        if (n->nq > 0) {
            net_deliver(n, 0);
            continue;
        }
        n->now += TIMEOUT / 4;
        bool busy = false;
        for (int r = 0; r < 2; r++) {
            rcmsg_rc_cm_conn_t *c = &n->side[r].conn;
            busy |= rcmsg_rc_cm_state_waits(c->state);
            rcmsg_rc_cm_fsm_timer(&n->side[r].params, c, n->now, &act);
            net_act(n, r, &act);
        }
        if (!busy && n->nq == 0) {
            return;
        }
    }
    ck_abort_msg("the exchange did not settle");
}

/* Both sides connected to each other exactly once, each QP towards the other's. */
static void assert_one_connection(net_t *n)
{
    for (int r = 0; r < 2; r++) {
        side_t *s = &n->side[r];
        ck_assert_msg(s->conn.state == RC_CM_CONNECTED, "rank %d is %s", r,
                      rcmsg_rc_cm_state_name(s->conn.state));
        ck_assert_int_eq(s->connected, 1);
        ck_assert_int_eq(s->rts, 1);
        ck_assert_int_eq(s->conn.remote.qpn, payload_of(1 - r).qpn);
        ck_assert_int_eq(s->conn.remote.psn, payload_of(1 - r).psn);
        ck_assert(s->conn.remote.seq[0] == payload_of(1 - r).seq[0]);
        ck_assert_int_eq(s->failed, 0);
    }
    ck_assert_int_eq(n->side[0].conn.attempt, n->side[1].conn.attempt);
    ck_assert(n->side[0].conn.passive != n->side[1].conn.passive);
}

START_TEST(test_codec)
{
    rcmsg_rc_cm_addr_t a = {.link_layer = IBV_LINK_LAYER_ETHERNET,
                            .port = 1,
                            .gid_type = 1,
                            .lid = 0x1234,
                            .qpn = 0xabcdef,
                            .qkey = RC_CM_QKEY},
                       b;
    uint8_t buf[RC_CM_PKT_SIZE];
    rcmsg_rc_cm_params_t params = {.self = 3, .size = 8, .job = JOB};
    rcmsg_rc_cm_pkt_t p = {.type = RC_CM_REP,
                           .src = 5,
                           .dst = 3,
                           .attempt = 0xfffffff0u,
                           .floor = 77,
                           .job = JOB,
                           .payload = payload_of(5)},
                      q;
    const char *why = NULL;

    for (int i = 0; i < 16; i++) {
        a.gid[i] = (uint8_t)(i * 17);
    }
    rcmsg_rc_cm_addr_encode(&a, buf);
    ck_assert_int_eq(buf[0], IBV_LINK_LAYER_ETHERNET);
    ck_assert_int_eq(buf[4], 0x34); /* little-endian */
    ck_assert_int_eq(rcmsg_rc_cm_addr_decode(buf, RC_CM_ADDR_SIZE, 1, &b), RCMSG_OK);
    ck_assert_int_eq(b.link_layer, a.link_layer);
    ck_assert_int_eq(b.port, a.port);
    ck_assert_int_eq(b.gid_type, a.gid_type);
    ck_assert_int_eq(b.lid, a.lid);
    ck_assert(memcmp(b.gid, a.gid, sizeof(a.gid)) == 0);
    ck_assert_int_eq(b.qpn, a.qpn);
    ck_assert_int_eq(b.qkey, a.qkey);
    ck_assert_int_eq(rcmsg_rc_cm_addr_decode(buf, RC_CM_ADDR_SIZE - 1, 1, &b), RCMSG_ERR_PEER_DATA);

    rcmsg_rc_cm_pkt_encode(&p, buf);
    ck_assert_int_eq(rcmsg_rc_cm_pkt_decode(buf, sizeof(buf), &params, &q, &why), RCMSG_OK);
    ck_assert_int_eq(q.type, p.type);
    ck_assert_int_eq(q.src, p.src);
    ck_assert_int_eq(q.dst, p.dst);
    ck_assert_uint_eq(q.attempt, p.attempt);
    ck_assert_uint_eq(q.floor, p.floor);
    ck_assert(q.job == p.job);
    ck_assert_uint_eq(q.payload.qpn, p.payload.qpn);
    ck_assert_uint_eq(q.payload.psn, p.payload.psn);
    ck_assert_uint_eq(q.payload.buf_size, p.payload.buf_size);
    ck_assert_uint_eq(q.payload.mtu, p.payload.mtu);
    ck_assert_uint_eq(q.payload.rd_atomic, p.payload.rd_atomic);
    ck_assert(q.payload.seq[0] == p.payload.seq[0] && q.payload.seq[1] == p.payload.seq[1]);
    ck_assert_int_eq(buf[0], RC_CM_MAGIC & 0xff);
}
END_TEST

/* One change to a good packet, and the reason it must be refused for. */
static void refuse(rcmsg_rc_cm_pkt_t p, size_t len, int byte, uint8_t value, const char *want)
{
    rcmsg_rc_cm_params_t params = {.self = 3, .size = 8, .job = JOB};
    uint8_t buf[RC_CM_PKT_SIZE + 8] = {0};
    rcmsg_rc_cm_pkt_t q;
    const char *why = NULL;

    rcmsg_rc_cm_pkt_encode(&p, buf);
    if (byte >= 0) {
        buf[byte] = value;
    }
    ck_assert_int_eq(rcmsg_rc_cm_pkt_decode(buf, len, &params, &q, &why), RCMSG_ERR_PEER_DATA);
    ck_assert_msg(why != NULL && strstr(why, want) != NULL, "refused for '%s', expected '%s'", why,
                  want);
}

START_TEST(test_malformed)
{
    rcmsg_rc_cm_pkt_t p = {
        .type = RC_CM_REQ, .src = 5, .dst = 3, .attempt = 9, .job = JOB, .payload = payload_of(5)};
    rcmsg_rc_cm_pkt_t other_job = p, to_other = p, from_self = p, from_far = p, no_attempt = p,
                      bad_qpn = p, bad_mtu = p;

    refuse(p, RC_CM_PKT_SIZE - 1, -1, 0, "too short");
    refuse(p, RC_CM_PKT_SIZE + 1, -1, 0, "too long");
    refuse(p, 0, -1, 0, "too short");
    refuse(p, RC_CM_PKT_SIZE, 0, 0x00, "magic");
    refuse(p, RC_CM_PKT_SIZE, 4, RC_CM_VERSION + 1, "version");
    refuse(p, RC_CM_PKT_SIZE, 5, 9, "type");
    other_job.job = JOB + 1;
    refuse(other_job, RC_CM_PKT_SIZE, -1, 0, "another job");
    to_other.dst = 4;
    refuse(to_other, RC_CM_PKT_SIZE, -1, 0, "another rank");
    from_self.src = 3;
    refuse(from_self, RC_CM_PKT_SIZE, -1, 0, "source rank");
    from_far.src = 8;
    refuse(from_far, RC_CM_PKT_SIZE, -1, 0, "source rank");
    refuse(p, RC_CM_PKT_SIZE, 11, 0x80, "source rank"); /* negative as a signed rank */
    no_attempt.attempt = 0;
    refuse(no_attempt, RC_CM_PKT_SIZE, -1, 0, "attempt");
    bad_qpn.payload.qpn = 0x1000000;
    refuse(bad_qpn, RC_CM_PKT_SIZE, -1, 0, "qp number");
    bad_mtu.payload.mtu = 9;
    refuse(bad_mtu, RC_CM_PKT_SIZE, -1, 0, "MTU");
}
END_TEST

START_TEST(test_connect)
{
    net_t n;

    net_init(&n, 2, 0);
    net_connect(&n, 1);
    ck_assert_int_eq(n.side[1].conn.state, RC_CM_REQ_SENT);
    net_deliver(&n, 0); /* REQ: rank 0 answers */
    ck_assert_int_eq(n.side[0].conn.state, RC_CM_REP_SENT);
    ck_assert_int_eq(n.side[0].rtr, 1);
    ck_assert_int_eq(n.side[0].rts, 0);
    net_deliver(&n, 0); /* REP: rank 1 is connected */
    ck_assert_int_eq(n.side[1].conn.state, RC_CM_CONNECTED);
    ck_assert_int_eq(n.side[1].rtr, 1);
    net_deliver(&n, 0); /* RTU */
    assert_one_connection(&n);
    ck_assert_int_eq(n.sent, 3);
    /* connecting a connected pair does nothing */
    net_connect(&n, 0);
    ck_assert_int_eq(n.nq, 0);
}
END_TEST

/* Every packet lost once: each is sent again, duplicates are answered, one connection. */
START_TEST(test_loss_retransmit)
{
    net_t n;
    rcmsg_rc_cm_act_t act;

    net_init(&n, 2, 0);
    net_connect(&n, 0);
    n.nq = 0; /* the REQ is lost */
    n.now += TIMEOUT;
    rcmsg_rc_cm_fsm_timer(&n.side[0].params, &n.side[0].conn, n.now, &act);
    ck_assert(act.todo & RC_CM_DO_SEND);
    ck_assert_int_eq(act.send, RC_CM_REQ);
    net_act(&n, 0, &act);
    net_deliver(&n, 0);
    n.nq = 0; /* the REP is lost */
    n.now += TIMEOUT;
    rcmsg_rc_cm_fsm_timer(&n.side[0].params, &n.side[0].conn, n.now, &act);
    net_act(&n, 0, &act); /* REQ again: the duplicate gets the same REP */
    net_deliver(&n, 0);
    ck_assert_int_eq(n.side[1].rtr, 1);
    ck_assert_int_eq(n.nq, 1);
    net_deliver(&n, 0); /* REP */
    n.nq = 0;           /* the RTU is lost */
    n.now += TIMEOUT;
    rcmsg_rc_cm_fsm_timer(&n.side[1].params, &n.side[1].conn, n.now, &act);
    ck_assert_int_eq(act.send, RC_CM_REP);
    net_act(&n, 1, &act);
    net_deliver(&n, 0); /* the duplicate REP gets another RTU */
    net_deliver(&n, 0);
    assert_one_connection(&n);
}
END_TEST

/* The RTU lost and the peer's first message on the QP arrives instead: taken as the RTU. */
START_TEST(test_established)
{
    net_t n;
    rcmsg_rc_cm_act_t act;

    net_init(&n, 2, 0);
    rcmsg_rc_cm_fsm_established(&n.side[0].conn, &act); /* nothing to establish yet */
    ck_assert_int_eq(act.todo, 0);
    net_connect(&n, 0);
    net_deliver(&n, 0);
    net_deliver(&n, 0);
    ck_assert_int_eq(n.side[0].conn.state, RC_CM_CONNECTED);
    rcmsg_rc_cm_fsm_established(&n.side[0].conn, &act); /* the active side: nothing */
    ck_assert_int_eq(act.todo, 0);
    n.nq = 0; /* the RTU is lost */
    rcmsg_rc_cm_fsm_established(&n.side[1].conn, &act);
    ck_assert_int_eq(act.todo, RC_CM_DO_RTS | RC_CM_DO_CONNECTED);
    net_act(&n, 1, &act);
    assert_one_connection(&n);
    n.now += 10 * TIMEOUT; /* and no REP is sent again */
    rcmsg_rc_cm_fsm_timer(&n.side[1].params, &n.side[1].conn, n.now, &act);
    ck_assert_int_eq(act.todo, 0);
}
END_TEST

/* 30% loss, random: still one connection, many seeds. */
START_TEST(test_loss_random)
{
    int ok = 0;

    for (unsigned seed = 1; seed <= 200; seed++) {
        net_t n;
        net_init(&n, 2, 30);
        n.side[0].params.max_tries = n.side[1].params.max_tries = 30;
        n.rng = seed;
        net_connect(&n, (int)(seed % 2));
        if (seed % 3 == 0) {
            net_connect(&n, (int)(1 - seed % 2));
        }
        net_run(&n);
        assert_one_connection(&n);
        ok += n.lost > 0;
    }
    ck_assert_int_gt(ok, 100); /* loss did happen */
}
END_TEST

START_TEST(test_simultaneous)
{
    for (int order = 0; order < 2; order++) {
        net_t n;
        wire_pkt_t stale;

        net_init(&n, 4, 0);
        net_connect(&n, 0);
        net_connect(&n, 1);
        ck_assert_int_eq(n.nq, 2);
        stale = n.q[1]; /* rank 1's REQ, to rank 0 */
        ck_assert_int_eq(stale.dst, 0);
        net_deliver(&n, order); /* either REQ arrives first */
        net_run(&n);
        assert_one_connection(&n);
        ck_assert(!n.side[0].conn.passive); /* the lower rank's REQ won */
        ck_assert_int_eq(n.side[0].rtr, 1);
        ck_assert_int_eq(n.side[1].rtr, 1);
        /* the abandoned REQ arriving late connects nothing */
        n.q[n.nq++] = stale;
        net_deliver(&n, 0);
        ck_assert_int_eq(n.nq, 0);
        ck_assert_int_eq(n.side[0].rtr, 1);
        ck_assert_int_eq(n.side[0].conn.state, RC_CM_CONNECTED);
        /* nor later, once the pair is no longer connected (a disconnect): the REP's floor
         * told rank 0 that rank 1 abandoned it */
        n.side[0].conn.state = RC_CM_IDLE;
        n.q[n.nq++] = stale;
        net_deliver(&n, 0);
        ck_assert_int_eq(n.nq, 0);
        ck_assert_int_eq(n.side[0].rtr, 1);
        ck_assert_int_eq(n.side[0].conn.state, RC_CM_IDLE);
    }
}
END_TEST

/* A REP of an old attempt never connects: after a failed attempt and a new one. */
START_TEST(test_stale_attempt)
{
    net_t n;
    wire_pkt_t old_rep;

    net_init(&n, 2, 0);
    net_connect(&n, 0);
    net_deliver(&n, 0); /* rank 1 answers attempt 1 */
    old_rep = n.q[0];
    n.nq = 0;
    for (unsigned i = 0; i < TRIES; i++) { /* every REQ lost: rank 0 gives up */
        rcmsg_rc_cm_act_t act;
        n.now += TIMEOUT;
        rcmsg_rc_cm_fsm_timer(&n.side[0].params, &n.side[0].conn, n.now, &act);
        net_act(&n, 0, &act);
        n.nq = 0;
    }
    ck_assert_int_eq(n.side[0].conn.state, RC_CM_FAILED);
    net_connect(&n, 0); /* a new attempt */
    n.nq = 0;
    n.q[n.nq++] = old_rep;
    net_deliver(&n, 0);
    ck_assert_int_eq(n.side[0].conn.state, RC_CM_REQ_SENT);
    ck_assert_int_eq(n.side[0].rtr, 0);
    ck_assert_int_eq(n.side[0].drops, 1);
    net_run(&n); /* the new attempt connects */
    ck_assert_int_eq(n.side[0].conn.state, RC_CM_CONNECTED);
    ck_assert_int_eq(n.side[1].conn.state, RC_CM_CONNECTED);
    ck_assert_int_eq(n.side[0].conn.attempt, n.side[1].conn.attempt);
    ck_assert_int_eq(n.side[1].rtr, 2); /* answered both attempts */
}
END_TEST

/* Nobody answers: exactly max_tries sends, then failed, after TRIES x TIMEOUT. */
START_TEST(test_retry_bound)
{
    net_t n;
    uint64_t start;

    net_init(&n, 2, 100);
    start = n.now;
    net_connect(&n, 0);
    net_run(&n);
    ck_assert_int_eq(n.side[0].conn.state, RC_CM_FAILED);
    ck_assert_int_eq(n.side[0].failed, 1);
    ck_assert_int_eq(n.sent, (int)TRIES);
    ck_assert_uint_ge(n.now - start, (uint64_t)TRIES * TIMEOUT);
    ck_assert_uint_le(n.now - start, (uint64_t)(TRIES + 1) * TIMEOUT);
    ck_assert_int_eq(n.side[1].conn.state, RC_CM_IDLE);
}
END_TEST

/* A connected pair, both sides agreeing: one DREQ and one DREP, both down once, IDLE; then a
 * message reconnects it with a new attempt id. */
START_TEST(test_disconnect)
{
    net_t n;
    uint32_t first;

    net_init(&n, 2, 0);
    net_connect(&n, 0);
    net_run(&n);
    first = n.side[0].conn.attempt;
    n.side[1].agree = true;
    n.sent = 0;
    net_disconnect(&n, 0);
    ck_assert_int_eq(n.side[0].conn.state, RC_CM_DREQ_SENT);
    net_run(&n);
    for (int r = 0; r < 2; r++) {
        ck_assert_int_eq(n.side[r].conn.state, RC_CM_IDLE);
        ck_assert_int_eq(n.side[r].down, 1);
        ck_assert_int_eq(n.side[r].resumed, 0);
    }
    ck_assert_int_eq(n.sent, 2);
    net_connect(&n, 1); /* the other side's next message */
    net_run(&n);
    ck_assert_int_eq(n.side[0].conn.state, RC_CM_CONNECTED);
    ck_assert_int_eq(n.side[1].conn.state, RC_CM_CONNECTED);
    ck_assert_int_eq(n.side[0].conn.attempt, n.side[1].conn.attempt);
    ck_assert_uint_ne(n.side[0].conn.attempt, first);
    ck_assert_int_eq(n.side[0].connected, 2);
    ck_assert_int_eq(n.side[1].connected, 2);
}
END_TEST

/* The peer has something outstanding: DREP busy, the connection stays, nobody goes down. */
START_TEST(test_disconnect_busy)
{
    net_t n;

    net_init(&n, 2, 0);
    net_connect(&n, 1);
    net_run(&n);
    n.side[0].agree = false;
    net_disconnect(&n, 1);
    net_run(&n);
    ck_assert_int_eq(n.side[0].conn.state, RC_CM_CONNECTED);
    ck_assert_int_eq(n.side[1].conn.state, RC_CM_CONNECTED);
    ck_assert_int_eq(n.side[1].resumed, 1);
    ck_assert_int_eq(n.side[0].down + n.side[1].down, 0);
}
END_TEST

/* The DREP is lost: the DREQ sent again is answered again (the peer is IDLE already); or the
 * peer's next REQ arrives first, which stands for the DREP: down, then answered. */
START_TEST(test_disconnect_drep_lost)
{
    for (int variant = 0; variant < 2; variant++) {
        net_t n;

        net_init(&n, 2, 0);
        net_connect(&n, 0);
        net_run(&n);
        n.side[1].agree = true;
        net_disconnect(&n, 0);
        net_deliver(&n, 0); /* the DREQ: rank 1 agrees, goes down, answers */
        ck_assert_int_eq(n.side[1].conn.state, RC_CM_IDLE);
        ck_assert_int_eq(n.nq, 1);
        n.nq = 0; /* the DREP is lost */
        if (variant == 1) {
            net_connect(&n, 1);
        }
        net_run(&n);
        ck_assert_int_eq(n.side[0].down, 1);
        ck_assert_int_eq(n.side[1].down, 1);
        ck_assert_int_eq(n.side[0].conn.state, variant == 0 ? RC_CM_IDLE : RC_CM_CONNECTED);
        ck_assert_int_eq(n.side[1].conn.state, variant == 0 ? RC_CM_IDLE : RC_CM_CONNECTED);
        ck_assert_int_eq(n.side[0].failed + n.side[1].failed, 0);
    }
}
END_TEST

/* Both sides disconnect at once, both agreeing: each goes down exactly once. */
START_TEST(test_disconnect_both)
{
    net_t n;

    net_init(&n, 2, 0);
    net_connect(&n, 0);
    net_run(&n);
    n.side[0].agree = n.side[1].agree = true;
    net_disconnect(&n, 0);
    net_disconnect(&n, 1);
    net_run(&n);
    for (int r = 0; r < 2; r++) {
        ck_assert_int_eq(n.side[r].conn.state, RC_CM_IDLE);
        ck_assert_int_eq(n.side[r].down, 1);
    }
}
END_TEST

/* A DREQ of an earlier connection (a late duplicate) never takes down the next one. */
START_TEST(test_disconnect_stale)
{
    net_t n;
    wire_pkt_t old_dreq;

    net_init(&n, 2, 0);
    net_connect(&n, 0);
    net_run(&n);
    n.side[1].agree = true;
    net_disconnect(&n, 0);
    old_dreq = n.q[0];
    net_run(&n);
    net_connect(&n, 0);
    net_run(&n);
    ck_assert_int_eq(n.side[1].conn.state, RC_CM_CONNECTED);
    n.q[n.nq++] = old_dreq;
    net_deliver(&n, 0);
    ck_assert_int_eq(n.side[1].conn.state, RC_CM_CONNECTED);
    ck_assert_int_eq(n.side[1].down, 1);
    ck_assert_int_eq(n.nq, 0);
}
END_TEST

/* A peer that does not answer a DREQ (alive but outside rcmsg): the DREQ is never given up
 * (the connection stays frozen, stalled reported once after max_tries sends); when the peer
 * comes back and answers, the pair goes down normally. */
START_TEST(test_disconnect_stalled)
{
    net_t n;

    net_init(&n, 2, 0);
    net_connect(&n, 0);
    net_run(&n);
    n.loss_pct = 100;
    n.sent = 0;
    net_disconnect(&n, 0);
    for (unsigned i = 0; i < 3 * TRIES; i++) {
        rcmsg_rc_cm_act_t act;
        n.now += TIMEOUT;
        rcmsg_rc_cm_fsm_timer(&n.side[0].params, &n.side[0].conn, n.now, &act);
        net_act(&n, 0, &act);
    }
    ck_assert_int_eq(n.side[0].conn.state, RC_CM_DREQ_SENT);
    ck_assert_int_eq(n.side[0].failed, 0);
    ck_assert_int_eq(n.side[0].stalled, 1);
    ck_assert_int_eq(n.sent, (int)(3 * TRIES) + 1);
    n.loss_pct = 0; /* the peer is back */
    n.side[1].agree = true;
    n.now += TIMEOUT;
    net_run(&n);
    ck_assert_int_eq(n.side[0].conn.state, RC_CM_IDLE);
    ck_assert_int_eq(n.side[1].conn.state, RC_CM_IDLE);
    ck_assert_int_eq(n.side[0].down, 1);
    ck_assert_int_eq(n.side[1].down, 1);
}
END_TEST

/* Side `broken` of a connected pair broke: its REQ of a new attempt takes the other side to
 * LOST (told once, the REQ kept unanswered while it drains); the other side's rejoin answers the
 * kept REQ; both are connected again on the new attempt, each knowing the other's counts. */
static void rejoin_one(int broken)
{
    net_t n;
    int other = 1 - broken;
    uint32_t first;

    net_init(&n, 2, 0);
    net_connect(&n, 0);
    net_run(&n);
    first = n.side[0].conn.attempt;
    net_rejoin(&n, broken, 50, 41);
    ck_assert_int_eq(n.side[broken].conn.state, RC_CM_REQ_SENT);
    net_deliver(&n, 0);
    ck_assert_int_eq(n.side[other].conn.state, RC_CM_LOST);
    ck_assert_int_eq(n.side[other].lost, 1);
    ck_assert_int_eq(n.nq, 0); /* not answered while it drains */
    n.now += TIMEOUT + 1;      /* the REQ is sent again, and dropped again */
    rcmsg_rc_cm_act_t act;
    rcmsg_rc_cm_fsm_timer(&n.side[broken].params, &n.side[broken].conn, n.now, &act);
    net_act(&n, broken, &act);
    net_deliver(&n, 0);
    ck_assert_int_eq(n.side[other].conn.state, RC_CM_LOST);
    ck_assert_int_eq(n.side[other].lost, 1);
    net_rejoin(&n, other, 50, 23); /* drained: the kept REQ is answered */
    ck_assert_int_eq(n.side[other].conn.state, RC_CM_REP_SENT);
    net_run(&n);
    for (int r = 0; r < 2; r++) {
        ck_assert_int_eq(n.side[r].conn.state, RC_CM_CONNECTED);
        ck_assert_int_eq(n.side[r].connected, 2);
        ck_assert_int_eq(n.side[r].failed, 0);
    }
    ck_assert_int_eq(n.side[0].conn.attempt, n.side[1].conn.attempt);
    ck_assert_uint_ne(n.side[0].conn.attempt, first);
    ck_assert(!n.side[broken].conn.passive && n.side[other].conn.passive);
    ck_assert(n.side[other].conn.remote.seq[1] == 41); /* what each side replays from */
    ck_assert(n.side[broken].conn.remote.seq[1] == 23);
}

START_TEST(test_rejoin)
{
    rejoin_one(0);
    rejoin_one(1);
}
END_TEST

/* Both sides broke at once (a link flap): both rejoin with a REQ; the lower rank's wins, one
 * connection results, nobody is told LOST. */
START_TEST(test_rejoin_both)
{
    net_t n;

    net_init(&n, 2, 0);
    net_connect(&n, 1);
    net_run(&n);
    net_rejoin(&n, 0, 50, 1);
    net_rejoin(&n, 1, 50, 2);
    net_run(&n);
    ck_assert_int_eq(n.side[0].conn.state, RC_CM_CONNECTED);
    ck_assert_int_eq(n.side[1].conn.state, RC_CM_CONNECTED);
    ck_assert_int_eq(n.side[0].conn.attempt, n.side[1].conn.attempt);
    ck_assert(!n.side[0].conn.passive && n.side[1].conn.passive);
    ck_assert_int_eq(n.side[0].lost + n.side[1].lost, 0);
    ck_assert_int_eq(n.side[1].conn.remote.seq[1], 1);
    ck_assert_int_eq(n.side[0].conn.remote.seq[1], 2);
}
END_TEST

/* Rejoins under 30% loss, many times in a row: every one ends connected, on one attempt. */
START_TEST(test_rejoin_loss)
{
    net_t n;

    net_init(&n, 2, 30);
    net_connect(&n, 0);
    net_run(&n);
    for (int i = 0; i < 50; i++) {
        int broken = i % 2, other = 1 - broken;
        net_rejoin(&n, broken, 200, (uint64_t)i);
        for (int steps = 0; steps < 1000 && n.side[other].conn.state == RC_CM_CONNECTED; steps++) {
            rcmsg_rc_cm_act_t act;
            if (n.nq > 0) {
                net_deliver(&n, 0);
                continue;
            }
            n.now += TIMEOUT;
            rcmsg_rc_cm_fsm_timer(&n.side[broken].params, &n.side[broken].conn, n.now, &act);
            net_act(&n, broken, &act);
        }
        ck_assert_int_eq(n.side[other].conn.state, RC_CM_LOST);
        net_rejoin(&n, other, 200, (uint64_t)i + 1000);
        net_run(&n);
        ck_assert_int_eq(n.side[0].conn.state, RC_CM_CONNECTED);
        ck_assert_int_eq(n.side[1].conn.state, RC_CM_CONNECTED);
        ck_assert_int_eq(n.side[0].conn.attempt, n.side[1].conn.attempt);
        ck_assert(n.side[other].conn.remote.seq[1] == (uint64_t)i);
        ck_assert(n.side[broken].conn.remote.seq[1] == (uint64_t)i + 1000);
    }
    ck_assert_int_eq(n.side[0].failed + n.side[1].failed, 0);
}
END_TEST

/* The peer is gone: the rejoin fails after its own budget of sends, not the params'. */
START_TEST(test_rejoin_gone)
{
    net_t n;

    net_init(&n, 2, 0);
    net_connect(&n, 0);
    net_run(&n);
    n.sent = 0;
    net_rejoin(&n, 0, 7, 0);
    n.loss_pct = 100;
    net_run(&n);
    ck_assert_int_eq(n.side[0].conn.state, RC_CM_FAILED);
    ck_assert_int_eq(n.side[0].failed, 1);
    ck_assert_int_eq(n.sent, 7);
    ck_assert_int_ne(TRIES, 7);
}
END_TEST

/* Side `first` broke and rejoins; the other drains and answers its REQ (passive). Side
 * `failing` then fails its QP transition to RTR (rxe resolving the address under loss) before
 * sending anything (the passive side before its REP, the active one on the REP, before its
 * RTU), and rejoins again with a new QP (rc_rec_retry). Whichever side and rank that is, the
 * pair ends connected on one attempt, without a failure. */
static void rejoin_rtr_fails(int first, int failing)
{
    net_t n;
    int answering = 1 - first;

    net_init(&n, 2, 0);
    net_connect(&n, 0);
    net_run(&n);
    net_rejoin(&n, first, 50, 1);
    net_deliver(&n, 0);
    ck_assert_int_eq(n.side[answering].conn.state, RC_CM_LOST);
    net_rejoin(&n, answering, 50, 2); /* RTR, then the REP */
    ck_assert_int_eq(n.nq, 1);
    if (failing == first) {
        net_deliver(&n, 0); /* the REP: RTR, RTS, then the RTU */
    }
    n.nq = 0; /* what the failing side sends after the failed RTR is never sent */
    rcmsg_rc_cm_fsm_abort(&n.side[failing].conn); /* what cm_act does then */
    net_rejoin(&n, failing, 50, 3);
    net_run(&n);
    for (int r = 0; r < 2; r++) {
        ck_assert_msg(n.side[r].conn.state == RC_CM_CONNECTED, "first %d failing %d: rank %d %s",
                      first, failing, r, rcmsg_rc_cm_state_name(n.side[r].conn.state));
        ck_assert_int_eq(n.side[r].failed, 0);
    }
    ck_assert_int_eq(n.side[0].conn.attempt, n.side[1].conn.attempt);
}

START_TEST(test_rejoin_rtr_fails)
{
    for (int first = 0; first < 2; first++) {
        for (int failing = 0; failing < 2; failing++) {
            rejoin_rtr_fails(first, failing);
        }
    }
}
END_TEST

/* A side that failed its peer for good answers the peer's reconnect with a REJ: the rejoin
 * fails at once (one REQ sent), whether the REQ comes after the refusal or was kept in LOST. */
START_TEST(test_refuse)
{
    for (int kept = 0; kept < 2; kept++) {
        net_t n;
        rcmsg_rc_cm_act_t act;

        net_init(&n, 2, 0);
        net_connect(&n, 0);
        net_run(&n);
        n.sent = 0;
        if (!kept) {
            rcmsg_rc_cm_fsm_refuse(&n.side[1].params, &n.side[1].conn, n.now, &act);
            net_act(&n, 1, &act);
            ck_assert_int_eq(n.nq, 0);
        }
        net_rejoin(&n, 0, 50, 0);
        if (kept) {
            net_deliver(&n, 0);
            ck_assert_int_eq(n.side[1].conn.state, RC_CM_LOST);
            rcmsg_rc_cm_fsm_refuse(&n.side[1].params, &n.side[1].conn, n.now, &act);
            net_act(&n, 1, &act);
        }
        net_run(&n);
        ck_assert_int_eq(n.side[0].conn.state, RC_CM_FAILED);
        ck_assert_int_eq(n.side[0].failed, 1);
        ck_assert_int_eq(n.side[1].conn.state, RC_CM_FAILED);
        ck_assert_int_eq(n.side[1].failed, 0);
        ck_assert_int_eq(n.sent, 2); /* one REQ, one REJ */
    }
}
END_TEST

/* A probe of the connection (rc_cm.h, "Probe"): answered, its answer taken, only by a pair
 * connected in the probe's attempt; no state changes. */
static unsigned probe_to(net_t *n, int r, int type, uint32_t attempt)
{
    side_t *from = &n->side[1 - r], *s = &n->side[r];
    uint8_t buf[RC_CM_PKT_SIZE];
    rcmsg_rc_cm_pkt_t pkt;
    rcmsg_rc_cm_act_t act;
    rcmsg_rc_cm_state_t before = s->conn.state;
    const char *why = NULL;

    rcmsg_rc_cm_fsm_packet(&from->params, &from->conn, type, &pkt);
    pkt.attempt = attempt;
    rcmsg_rc_cm_pkt_encode(&pkt, buf);
    ck_assert_int_eq(rcmsg_rc_cm_pkt_decode(buf, sizeof(buf), &s->params, &pkt, &why), RCMSG_OK);
    ck_assert_int_eq(pkt.type, type);
    rcmsg_rc_cm_fsm_recv(&s->params, &s->conn, &pkt, n->now, &act);
    ck_assert_int_eq(s->conn.state, before);
    ck_assert(!(act.todo & ~(unsigned)(RC_CM_DO_ANSWER | RC_CM_DO_PROBED | RC_CM_DO_DROP)));
    return act.todo;
}

START_TEST(test_probe)
{
    net_t n;
    rcmsg_rc_cm_pkt_t p = {.type = RC_CM_PROBE,
                           .src = 5,
                           .dst = 3,
                           .attempt = 9,
                           .job = JOB,
                           .payload = payload_of(5)};

    net_init(&n, 2, 0);
    ck_assert_uint_eq(probe_to(&n, 0, RC_CM_PROBE, 1), RC_CM_DO_DROP); /* not connected */
    net_connect(&n, 1);
    while (n.nq > 0) {
        net_deliver(&n, 0);
    }
    assert_one_connection(&n);
    ck_assert_uint_eq(probe_to(&n, 0, RC_CM_PROBE, n.side[0].conn.attempt), RC_CM_DO_ANSWER);
    ck_assert_uint_eq(probe_to(&n, 1, RC_CM_PROBE_REP, n.side[1].conn.attempt), RC_CM_DO_PROBED);
    ck_assert_uint_eq(probe_to(&n, 0, RC_CM_PROBE, n.side[0].conn.attempt + 1), RC_CM_DO_DROP);
    ck_assert_uint_eq(probe_to(&n, 1, RC_CM_PROBE_REP, n.side[1].conn.attempt - 1), RC_CM_DO_DROP);
    assert_one_connection(&n);
    /* a probe names a valid qp like a REQ; a type past PROBE_REP is unknown */
    p.payload.qpn = 0;
    refuse(p, RC_CM_PKT_SIZE, -1, 0, "qp number");
    p.type = RC_CM_PROBE_REP; /* the answer names a qp the asker compares with its own */
    refuse(p, RC_CM_PKT_SIZE, -1, 0, "qp number");
    p.payload.qpn = 0x1000000;
    refuse(p, RC_CM_PKT_SIZE, -1, 0, "qp number");
    p.type = RC_CM_PROBE;
    p.payload.qpn = 0x123;
    refuse(p, RC_CM_PKT_SIZE, 5, RC_CM_PROBE_REP + 1, "type");
}
END_TEST

static Suite *rc_cm_suite(void)
{
    Suite *s = suite_create("rc_cm");
    TCase *tc = tcase_create("cm");

    tcase_add_test(tc, test_codec);
    tcase_add_test(tc, test_malformed);
    tcase_add_test(tc, test_connect);
    tcase_add_test(tc, test_loss_retransmit);
    tcase_add_test(tc, test_established);
    tcase_add_test(tc, test_loss_random);
    tcase_add_test(tc, test_simultaneous);
    tcase_add_test(tc, test_stale_attempt);
    tcase_add_test(tc, test_retry_bound);
    tcase_add_test(tc, test_disconnect);
    tcase_add_test(tc, test_disconnect_busy);
    tcase_add_test(tc, test_disconnect_drep_lost);
    tcase_add_test(tc, test_disconnect_both);
    tcase_add_test(tc, test_disconnect_stale);
    tcase_add_test(tc, test_disconnect_stalled);
    tcase_add_test(tc, test_rejoin);
    tcase_add_test(tc, test_rejoin_both);
    tcase_add_test(tc, test_rejoin_loss);
    tcase_add_test(tc, test_rejoin_gone);
    tcase_add_test(tc, test_rejoin_rtr_fails);
    tcase_add_test(tc, test_refuse);
    tcase_add_test(tc, test_probe);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return ck_run(rc_cm_suite());
}
