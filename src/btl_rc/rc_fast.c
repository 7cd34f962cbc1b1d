/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: eager messages over RDMA WRITE (RCMSG_EAGER_RDMA), the fast path of MVAPICH2's RDMA
 * eager channel and Open MPI openib's eager RDMA, for the peers a rank talks to most.
 *
 * Rings. A ring belongs to one ordered pair: the receiver registers nslots slots of slot_size
 * bytes for one sender, with one MR covering exactly the ring (LOCAL_WRITE | REMOTE_WRITE), and
 * gives its address and rkey to that sender only; a rank writes only into the rings it was given,
 * at addresses it computes inside them, so a write outside a ring is impossible by construction
 * (and the HCA refuses one outside the MR). At most RCMSG_EAGER_RDMA_MAX_PEERS rings per process
 * (RCMSG_EAGER_RDMA=auto); every peer (yes); none (no).
 *
 * Hand-over, through the connection: rc's own control SENDs (ctl_bit in the immediate data, no
 * sequence number, never delivered above, never replayed):
 *
 *   sender                                  receiver
 *   ASK   (after RCMSG_EAGER_RDMA_THRESHOLD  ->  registers a ring (or refuses: nslots 0)
 *          messages; yes: the first)
 *                                           <-  OFFER {addr, rkey, nslots, slot_size}
 *   writes into the ring                    <-  CREDIT {consumed} when half the ring is owed
 *
 * A slot. The sender writes header + payload, padding to 8 bytes and a 16-byte tail {len, seq,
 * ack, flag} ending at the slot's end, with ONE RDMA WRITE (inline when it fits the inline
 * size): the flag is the last word written. This relies, as MVAPICH2's and openib's eager RDMA
 * did, on the responder placing a write's bytes in increasing address order (HCAs over PCIe;
 * rxe copies each packet forwards, and the packets of a write in order); a flag seen only in
 * part (rxe in an emulated guest copies byte by byte) is "not yet". The receiver polls the tail of
 * its next slot of each ring in progress (no receive work request, no completion), delivers the
 * message, clears the flag and moves on. Slots go back to the sender as counts of messages
 * consumed: in the tail of each message the receiver writes to the sender (ack: piggybacked), else
 * in a CREDIT once half the ring is owed. A sender with no free slot (a slow receiver) or a message
 * longer than a slot sends by SEND: never a wait, never a deadlock. So does a message whose write
 * would take one packet more than a SEND of it (rc_fast_extra_packet).
 *
 * Order. A ring message takes the pair's sequence number like a SEND (ep->sent, ep->recvd;
 * rc_rec.c): the tail carries it. The receiver delivers a ring message only when it is the next
 * in sequence (an earlier SEND whose CQE is not polled yet comes first), and a SEND whose
 * number is ahead first takes the ring messages before it (rc_fast_catch_up: on RC a WRITE
 * posted before a SEND has been placed when the SEND completes at the receiver). So the
 * messages of a pair are delivered in the order they were sent, whatever path each took.
 *
 * Recovery and disconnect. The rings go with the connection: when a connection recovers
 * (rc_rec.c), each side, once its broken QP drained (the SENDs delivered and the ring messages
 * before and between them), drops its rings (the MR deregistered: the old rkey is dead) and
 * forgets the ones it was given; the replay re-sends by SEND every message, SEND or ring write,
 * that the peer's count says it lacks (rc_ep_repost: the buffer of a ring write starts with the
 * message); the pair asks again afterwards. An idle connection recycled (RCMSG_QP_MAX_ACTIVE)
 * drops its rings alike (both sides agreed nothing is in flight). A failed peer's ring is no
 * longer polled and is freed at close.
 *
 * Bad input (a tail with a bad flag, length or sequence number, a credit for slots never
 * written, a malformed control message or offer) is refused with an error naming the peer; a
 * ring that can no longer be trusted fails the peer.
 *
 * Byte order: the tail and the control messages are in host order, as the pml's headers (a job
 * is homogeneous).
 */
#include "config.h"

#include "rc_iface.h"

#include "base/stats.h"
#include "base/wire.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define RC_FAST_FLAG      0x57464352u /* "RCFW" */
#define RC_FAST_ALIGN     8
#define RC_FAST_SLOTS_MAX 65536u
#define RC_FAST_SLOT_MAX  (1u << 20)

typedef struct {
    uint32_t len;  /* of the message (header and payload) before the padding */
    uint32_t seq;  /* the pair's sequence number (low 32 bits) */
    uint32_t ack;  /* messages the writer consumed of the ring it gave the reader (low 32 bits) */
    uint32_t flag; /* RC_FAST_FLAG: written last; cleared by the reader */
} rc_fast_tail_t;

RCMSG_STATIC_ASSERT(sizeof(rc_fast_tail_t) == 16, "a slot's tail is 16 bytes");

enum { RC_FAST_ASK = 1, RC_FAST_OFFER = 2, RC_FAST_CREDIT = 3 };

typedef struct {
    uint8_t type;
    uint8_t pad[3];
    uint32_t nslots; /* OFFER: 0 means refused */
    uint32_t slot_size;
    uint32_t rkey;
    uint64_t addr;
    uint64_t consumed; /* CREDIT */
} rc_fast_ctl_msg_t;

RCMSG_STATIC_ASSERT(sizeof(rc_fast_ctl_msg_t) == 32, "an rc control message is 32 bytes");

/* ---- setup ----------------------------------------------------------------------------- */

rcmsg_status_t rc_fast_setup(rc_btl_t *rc)
{
    const rc_config_t *c = &rc->config;

    if (c->eager_rdma == RCMSG_EAGER_RDMA_NO || rc->job.size < 2) {
        return RCMSG_OK;
    }
    if (c->eager_rdma_slot_size % 64 != 0 || c->eager_rdma_slot_size > rc->buf_size) {
        rcmsg_error("RCMSG_EAGER_RDMA_SLOT_SIZE=%zu: it must be a multiple of 64 and at most "
                    "RCMSG_SRQ_BUF_SIZE (%zu)",
                    c->eager_rdma_slot_size, rc->buf_size);
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (c->eager_rdma == RCMSG_EAGER_RDMA_AUTO && !c->wait_poll) {
        rcmsg_info("rc: eager rdma off: RCMSG_WAIT_MODE sleeps on completion events, which a ring "
                   "write does not raise (RCMSG_EAGER_RDMA=yes polls the rings instead of "
                   "sleeping)");
        return RCMSG_OK;
    }
    rc->fast.max = c->eager_rdma == RCMSG_EAGER_RDMA_YES ? rc->job.size : c->eager_rdma_max_peers;
    rc->fast.threshold = c->eager_rdma == RCMSG_EAGER_RDMA_YES ? 0 : c->eager_rdma_threshold;
    if (rc->fast.max == 0) {
        return RCMSG_OK;
    }
    rc->fast.rx = calloc((size_t)rc->job.size, sizeof(*rc->fast.rx));
    if (rc->fast.rx == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    rc->fast.on = true;
    rcmsg_info("rc: eager rdma %s: rings of %u x %zu-byte slots (messages up to %zu bytes), at "
               "most %d, asked after %u message(s)",
               c->eager_rdma == RCMSG_EAGER_RDMA_YES ? "forced on" : "automatic",
               c->eager_rdma_slots, c->eager_rdma_slot_size,
               c->eager_rdma_slot_size - sizeof(rc_fast_tail_t), rc->fast.max, rc->fast.threshold);
    return RCMSG_OK;
}

/* ---- rings ----------------------------------------------------------------------------- */

static rcmsg_status_t rc_fast_ring_new(rc_btl_t *rc, int peer)
{
    rc_fast_t *f = &rc->eps[peer].fast;
    uint32_t nslots = rc->config.eager_rdma_slots;
    uint32_t slot_size = (uint32_t)rc->config.eager_rdma_slot_size;
    size_t len = (size_t)nslots * slot_size;
    void *buf = NULL;
    struct ibv_mr *mr;

    if (posix_memalign(&buf, 4096, len) != 0) {
        rcmsg_error("rc: no memory for an eager rdma ring of %zu bytes for peer %d", len, peer);
        return RCMSG_ERR_NO_MEMORY;
    }
    memset(buf, 0, len);
    mr = ibv_reg_mr(rc->pd, buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (mr == NULL) {
        int err = errno;
        rcmsg_error("rc: ibv_reg_mr of the %zu-byte eager rdma ring for peer %d on %s failed: "
                    "%s%s (the peer keeps sending by SEND)",
                    len, peer, rc->dev->name, strerror(err),
                    err == ENOMEM ? " (locked memory limit too low? check 'ulimit -l')" : "");
        free(buf);
        return RCMSG_ERR_NO_MEMORY;
    }
    f->rx.buf = buf;
    f->rx.mr = mr;
    f->rx.nslots = nslots;
    f->rx.slot_size = slot_size;
    f->rx.consumed = f->rx.returned = 0;
    f->rx.offer_pending = false;
    f->rx.idx = rc->fast.nrx;
    rc->fast.rx[rc->fast.nrx++] = peer;
    rcmsg_debug("rc: eager rdma ring of %u x %u bytes at %p (rkey 0x%x) registered for peer %d "
                "(%d ring(s))",
                nslots, slot_size, buf, mr->rkey, peer, rc->fast.nrx);
    return RCMSG_OK;
}

static void rc_fast_ring_free(rc_btl_t *rc, int peer)
{
    rc_fast_t *f = &rc->eps[peer].fast;
    int last;

    if (f->rx.buf == NULL) {
        return;
    }
    if (ibv_dereg_mr(f->rx.mr) != 0) {
        rcmsg_warn("rc: ibv_dereg_mr of the eager rdma ring of peer %d failed: %m", peer);
    }
    free(f->rx.buf);
    last = rc->fast.rx[--rc->fast.nrx];
    rc->fast.rx[f->rx.idx] = last;
    rc->eps[last].fast.rx.idx = f->rx.idx;
    memset(&f->rx, 0, sizeof(f->rx));
}

void rc_fast_drop(rc_btl_t *rc, int peer)
{
    rc_fast_t *f = &rc->eps[peer].fast;

    if (f->rx.buf != NULL || f->tx.state != RC_FAST_NONE) {
        rcmsg_debug("rc: eager rdma rings with peer %d dropped (received %llu from its ring, wrote "
                    "%llu into the peer's)",
                    peer, (unsigned long long)f->rx.consumed, (unsigned long long)f->tx.written);
    }
    rc_fast_ring_free(rc, peer);
    memset(&f->tx, 0, sizeof(f->tx));
    f->count = 0;
}

void rc_fast_close(rc_btl_t *rc)
{
    while (rc->fast.nrx > 0) {
        rc_fast_ring_free(rc, rc->fast.rx[rc->fast.nrx - 1]);
    }
    free(rc->fast.rx);
    rc->fast.rx = NULL;
}

/* ---- control messages ------------------------------------------------------------------ */

/* Posts an rc control message to peer (RCMSG_ERR_NO_RESOURCE: not now). */
static rcmsg_status_t rc_fast_ctl_post(rc_btl_t *rc, int peer, const rc_fast_ctl_msg_t *m)
{
    rc_ep_t *ep = &rc->eps[peer];
    struct ibv_sge sge = {.addr = (uintptr_t)m, .length = sizeof(*m)};
    struct ibv_send_wr swr = {.opcode = IBV_WR_SEND_WITH_IMM, .sg_list = &sge, .num_sge = 1};
    rc_wr_t *wr;

    if (!ep->connected || ep->failed) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    wr = rc_wr_take(rc, ep, RC_WR_CTL, peer);
    if (wr == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    wr->len = sizeof(*m);
    if (sizeof(*m) <= rc->super.caps.max_inline) {
        swr.send_flags = IBV_SEND_INLINE;
    } else {
        char *buf;
        if (rc->sbuf_nfree == 0) {
            rc_wr_put(rc, wr);
            return RCMSG_ERR_NO_RESOURCE;
        }
        wr->sbuf = rc->sbuf_free[--rc->sbuf_nfree];
        buf = rc->sbufs + (size_t)wr->sbuf * rc->buf_size;
        memcpy(buf, m, sizeof(*m));
        sge.addr = (uintptr_t)buf;
        sge.lkey = rc->smr->lkey;
    }
    rcmsg_wire_put_be32(&swr.imm_data, (uint32_t)rc->job.rank | rc->ctl_bit);
    return rc_post(rc, ep, wr, &swr);
}

static void rc_fast_offer(rc_btl_t *rc, int peer)
{
    rc_fast_t *f = &rc->eps[peer].fast;
    rc_fast_ctl_msg_t m = {.type = RC_FAST_OFFER,
                           .nslots = f->rx.nslots,
                           .slot_size = f->rx.slot_size,
                           .rkey = f->rx.mr->rkey,
                           .addr = (uintptr_t)f->rx.buf};

    f->rx.offer_pending = rc_fast_ctl_post(rc, peer, &m) != RCMSG_OK;
}

static void rc_fast_credit(rc_btl_t *rc, int peer)
{
    rc_fast_t *f = &rc->eps[peer].fast;
    rc_fast_ctl_msg_t m = {.type = RC_FAST_CREDIT, .consumed = f->rx.consumed};

    if (rc_fast_ctl_post(rc, peer, &m) == RCMSG_OK) {
        f->rx.returned = f->rx.consumed;
    }
}

/* The peer asks for a ring: registered and offered, or refused (nslots 0). */
static void rc_fast_on_ask(rc_btl_t *rc, int peer)
{
    rc_fast_t *f = &rc->eps[peer].fast;

    if (f->rx.buf == NULL &&
        (!rc->fast.on || rc->fast.nrx >= rc->fast.max || rc_fast_ring_new(rc, peer) != RCMSG_OK)) {
        rc_fast_ctl_msg_t m = {.type = RC_FAST_OFFER};
        rcmsg_debug("rc: eager rdma ring asked by peer %d refused (%s)", peer,
                    !rc->fast.on ? "RCMSG_EAGER_RDMA off here" : "RCMSG_EAGER_RDMA_MAX_PEERS");
        (void)rc_fast_ctl_post(rc, peer, &m); /* lost: the peer keeps sending by SEND */
        return;
    }
    rc_fast_offer(rc, peer);
}

/* log2 of a path MTU in bytes (a power of two), 0 when not known. */
static unsigned rc_fast_mtu_shift(uint32_t path_mtu)
{
    return path_mtu > 0 && (path_mtu & (path_mtu - 1)) == 0 ? (unsigned)__builtin_ctz(path_mtu) : 0;
}

/* Would a write of wlen bytes (the message, its padding and the tail) take one packet more than
 * a SEND of the message's total bytes? At a path MTU of 1024 that is a message of 977-992 bytes
 * with the pml's header: over rxe its second packet cost 14 us of a 28 us one-way trip
 * (docs/performance.md, "Packets"). */
static inline bool rc_fast_extra_packet(unsigned mtu_shift, size_t wlen, size_t total)
{
    return mtu_shift != 0 && ((wlen - 1) >> mtu_shift) != ((total - 1) >> mtu_shift);
}

static void rc_fast_on_offer(rc_btl_t *rc, int peer, const rc_fast_ctl_msg_t *m)
{
    rc_fast_t *f = &rc->eps[peer].fast;
    uint64_t len = (uint64_t)m->nslots * m->slot_size;

    if (f->tx.state != RC_FAST_ASKED) {
        rcmsg_debug("rc: eager rdma offer of peer %d not asked for (a recovery since): ignored",
                    peer);
        return;
    }
    if (m->nslots == 0) {
        f->tx.state = RC_FAST_REFUSED;
        rcmsg_debug("rc: peer %d refused an eager rdma ring: messages to it go by SEND", peer);
        return;
    }
    if (m->nslots < 2 || m->nslots > RC_FAST_SLOTS_MAX || m->slot_size % RC_FAST_ALIGN != 0 ||
        m->slot_size < 64 || m->slot_size > RC_FAST_SLOT_MAX || m->addr == 0 ||
        m->addr + len < m->addr) {
        f->tx.state = RC_FAST_REFUSED;
        rcmsg_error("rc: peer %d offered a malformed eager rdma ring (%u slots of %u bytes at "
                    "0x%llx): refused, messages to it go by SEND",
                    peer, m->nslots, m->slot_size, (unsigned long long)m->addr);
        return;
    }
    f->tx.raddr = m->addr;
    f->tx.rkey = m->rkey;
    f->tx.nslots = m->nslots;
    f->tx.slot_size = m->slot_size;
    f->tx.mtu_shift = rc_fast_mtu_shift(rc->eps[peer].path_mtu);
    f->tx.written = f->tx.freed = 0;
    f->tx.state = RC_FAST_ACTIVE;
    rcmsg_stat_add(peer, RCMSG_STAT_rdmaw_rings, 1);
    rcmsg_debug("rc: writing eager messages into peer %d's ring of %u x %u bytes (rkey 0x%x; "
                "path mtu %u)",
                peer, m->nslots, m->slot_size, m->rkey, rc->eps[peer].path_mtu);
}

/* The peer consumed `ack` messages of its ring in all (low 32 bits): its slots come back. False
 * when it says more than was written. An older count (a CREDIT overtaken by a tail) is ignored. */
static bool rc_fast_ack(rc_btl_t *rc, int peer, uint32_t ack)
{
    rc_fast_t *f = &rc->eps[peer].fast;
    uint32_t d = ack - (uint32_t)f->tx.freed;

    if (f->tx.state != RC_FAST_ACTIVE) {
        return true;
    }
    if (d <= (uint32_t)(f->tx.written - f->tx.freed)) {
        f->tx.freed += d;
        return true;
    }
    return (int32_t)d < 0;
}

void rc_fast_ctl(rc_btl_t *rc, int peer, const void *data, size_t len)
{
    rc_ep_t *ep = &rc->eps[peer];
    rc_fast_ctl_msg_t m;

    if (len != sizeof(m)) {
        rcmsg_error("rc: a %zu-byte control message from peer %d (%zu expected): malformed peer "
                    "data; the peer fails",
                    len, peer, sizeof(m));
        rc_ep_fail(rc, peer, "malformed data: an rc control message of a wrong length");
        return;
    }
    memcpy(&m, data, sizeof(m));
    if (ep->rec.state == RC_REC_DRAIN || ep->failed) {
        return; /* the rings are dropped at the end of the drain: the pair asks again (a
                 * message of the new connection may come before its RTU: it is taken) */
    }
    switch (m.type) {
    case RC_FAST_ASK:
        rc_fast_on_ask(rc, peer);
        return;
    case RC_FAST_OFFER:
        rc_fast_on_offer(rc, peer, &m);
        return;
    case RC_FAST_CREDIT:
        if (rc_fast_ack(rc, peer, (uint32_t)m.consumed)) {
            return;
        }
        rcmsg_error("rc: peer %d gives back %llu eager rdma slots in all, but this rank wrote "
                    "only %llu into its ring: malformed peer data; the peer fails",
                    peer, (unsigned long long)m.consumed, (unsigned long long)ep->fast.tx.written);
        break;
    default:
        rcmsg_error("rc: control message of unknown type %u from peer %d: malformed peer data; "
                    "the peer fails",
                    m.type, peer);
        break;
    }
    rc_ep_fail(rc, peer, "malformed data: a bad rc control message");
}

/* ---- send ------------------------------------------------------------------------------ */

/* No ring yet: counts the message towards the threshold and asks for one there. */
static rcmsg_status_t rc_fast_no_ring(rc_btl_t *rc, rc_ep_t *ep, int peer)
{
    rc_fast_t *f = &ep->fast;
    rc_fast_ctl_msg_t m = {.type = RC_FAST_ASK};
    rcmsg_status_t status;

    if (f->tx.state != RC_FAST_NONE || f->count++ < rc->fast.threshold) {
        return RCMSG_ERR_UNSUPPORTED;
    }
    status = rc_fast_ctl_post(rc, peer, &m);
    if (status == RCMSG_OK) {
        f->tx.state = RC_FAST_ASKED;
    }
    /* a post that failed the peer fails the send; else (asked, no free slot, or a QP broken
     * behind its mirror, marked for the recovery by rc_post) the message goes by SEND */
    return status == RCMSG_ERR_CONNECTION ? status : RCMSG_ERR_UNSUPPORTED;
}

/* Header, payload, padding and tail into buf, as they go into the slot; the tail's length. */
static void rc_fast_compose(char *buf, const void *hdr, size_t hdr_len, const void *payload,
                            size_t len, size_t padded, const rc_fast_tail_t *tail)
{
    memcpy(buf, hdr, hdr_len);
    if (len > 0) {
        memcpy(buf + hdr_len, payload, len);
    }
    memset(buf + hdr_len + len, 0, padded - hdr_len - len);
    memcpy(buf + padded, tail, sizeof(*tail));
}

rcmsg_status_t rc_fast_send(rc_btl_t *rc, rc_ep_t *ep, int peer, const void *hdr, size_t hdr_len,
                            const void *payload, size_t len)
{
    rc_fast_t *f = &ep->fast;
    size_t total = hdr_len + len;
    size_t padded = (total + RC_FAST_ALIGN - 1) & ~(size_t)(RC_FAST_ALIGN - 1);
    size_t wlen = padded + sizeof(rc_fast_tail_t);
    char stack[4096 + sizeof(rc_fast_tail_t)] __attribute__((aligned(8)));
    struct ibv_sge sge;
    struct ibv_send_wr swr = {.opcode = IBV_WR_RDMA_WRITE, .sg_list = &sge, .num_sge = 1};
    rc_fast_tail_t tail;
    bool inl = wlen <= rc->super.caps.max_inline;
    rc_wr_t *wr;
    char *buf;
    rcmsg_status_t status;

    if (__builtin_expect(f->tx.state != RC_FAST_ACTIVE, 0)) {
        return rc_fast_no_ring(rc, ep, peer);
    }
    if (wlen > f->tx.slot_size || wlen > rc->buf_size ||
        f->tx.written - f->tx.freed >= f->tx.nslots ||
        rc_fast_extra_packet(f->tx.mtu_shift, wlen, total)) {
        return RCMSG_ERR_UNSUPPORTED; /* by SEND: rc_send counts it (rdmaw_fallbacks) */
    }
    if (!inl && rc->sbuf_nfree == 0) {
        return RCMSG_ERR_UNSUPPORTED; /* rc_send gets the bounce buffers back */
    }
    wr = rc_wr_take(rc, ep, inl ? RC_WR_FAST_INLINE : RC_WR_FAST, peer);
    if (wr == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    RCMSG_STATIC_ASSERT(sizeof(stack) >= 4096 + sizeof(rc_fast_tail_t),
                        "an inline write (RCMSG_QP_MAX_INLINE <= 4k) fits the stack buffer");
    if (inl) { /* the inline copy is kept for a replay by SEND: the message comes first */
        buf = rc->inl_copy != NULL ? rc_inl_copy(rc, wr) : stack;
        swr.send_flags = IBV_SEND_INLINE;
    } else {
        wr->sbuf = rc->sbuf_free[--rc->sbuf_nfree];
        buf = rc->sbufs + (size_t)wr->sbuf * rc->buf_size;
    }
    tail = (rc_fast_tail_t){.len = (uint32_t)total,
                            .seq = (uint32_t)ep->sent, /* rc_post gives it ep->sent */
                            .ack = (uint32_t)f->rx.consumed,
                            .flag = RC_FAST_FLAG};
    rc_fast_compose(buf, hdr, hdr_len, payload, len, padded, &tail);
    sge = (struct ibv_sge){
        .addr = (uintptr_t)buf, .length = (uint32_t)wlen, .lkey = inl ? 0 : rc->smr->lkey};
    swr.wr.rdma.remote_addr = f->tx.raddr +
                              (uint64_t)(f->tx.written % f->tx.nslots) * f->tx.slot_size +
                              f->tx.slot_size - wlen;
    swr.wr.rdma.rkey = f->tx.rkey;
    wr->len = (uint32_t)total;
    status = rc_post(rc, ep, wr, &swr);
    if (status == RCMSG_OK) {
        f->tx.written++;
        if (f->rx.buf != NULL) {
            f->rx.returned = f->rx.consumed; /* the tail's ack gave them back */
        }
        rcmsg_stat_add(peer, RCMSG_STAT_rdmaw_sent, 1);
    }
    return status;
}

/* ---- receive --------------------------------------------------------------------------- */

static void rc_fast_bad(rc_btl_t *rc, int peer, uint64_t msg, const char *what)
{
    rcmsg_error("rc: peer %d wrote a malformed message %llu into its eager rdma ring: %s; the "
                "peer fails",
                peer, (unsigned long long)msg, what);
    rc_ep_fail(rc, peer, "malformed data in its eager rdma ring");
}

/* Delivers the peer's ring messages that are next in sequence; returns how many. */
static int rc_fast_deliver(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];
    char *const ring = ep->fast.rx.buf;
    int n = 0;

    while (ep->fast.rx.buf == ring && ring != NULL && !ep->failed) {
        uint32_t slot_size = ep->fast.rx.slot_size;
        uint64_t msg = ep->fast.rx.consumed;
        char *end = ring + (size_t)(msg % ep->fast.rx.nslots + 1) * slot_size;
        rc_fast_tail_t *t = (rc_fast_tail_t *)(end - sizeof(*t));
        rc_fast_tail_t tail;
        int32_t ahead;

        if (*(volatile uint32_t *)&t->flag != RC_FAST_FLAG) {
            break; /* not written yet, or being written (a part of the flag's bytes) */
        }
        atomic_thread_fence(memory_order_acquire); /* the message was written before the flag */
        memcpy(&tail, t, sizeof(tail));
        ahead = (int32_t)(tail.seq - (uint32_t)ep->recvd);
        if (ahead > 0) {
            break; /* a SEND before it: delivered first, from the receive CQ */
        }
        if (ahead < 0 || tail.len > slot_size - sizeof(tail) || !rc_fast_ack(rc, peer, tail.ack)) {
            rc_fast_bad(rc, peer, msg,
                        ahead < 0 ? "its sequence number is one delivered already"
                        : tail.len > slot_size - sizeof(tail)
                            ? "its length exceeds the slot"
                            : "it gives back slots this rank never wrote");
            break;
        }
        ep->recvd++;
        ep->rec.run = 0;
        ep->last_use = ++rc->use_tick;
        rcmsg_stat_add(peer, RCMSG_STAT_rdmaw_recv, 1);
        /* its answer (stop) is not taken (caps.stops 0): the stop was tried here, and its
         * gain over rc is unmeasured (docs/performance.md) */
        rc_up_recv(rc, peer, (char *)t - ((tail.len + RC_FAST_ALIGN - 1) & ~(RC_FAST_ALIGN - 1)),
                   tail.len);
        n++;
        if (ep->fast.rx.buf != ring) {
            break; /* dropped meanwhile (its memory is gone) */
        }
        t->flag = 0;
        ep->fast.rx.consumed++;
        if (ep->fast.rx.consumed - ep->fast.rx.returned >= ep->fast.rx.nslots / 2) {
            rc_fast_credit(rc, peer);
        }
    }
    return n;
}

void rc_fast_catch_up(rc_btl_t *rc, int peer)
{
    (void)rc_fast_deliver(rc, peer);
}

int rc_fast_poll(rc_btl_t *rc)
{
    int n = 0;

    for (int i = 0; i < rc->fast.nrx; i++) {
        int peer = rc->fast.rx[i];
        rc_fast_t *f = &rc->eps[peer].fast;

        n += rc_fast_deliver(rc, peer);
        if (f->rx.buf == NULL || !rc->eps[peer].connected) {
            continue;
        }
        if (__builtin_expect(f->rx.offer_pending, 0)) {
            rc_fast_offer(rc, peer);
        } else if (__builtin_expect(f->rx.consumed - f->rx.returned >= f->rx.nslots / 2, 0)) {
            rc_fast_credit(rc, peer);
        }
    }
    return n;
}
