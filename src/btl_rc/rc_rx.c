/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the receive side. The SRQ is filled at open (rc_rx_setup); a poll takes the receive
 * CQ's completions and delivers each message to the layer above, checked against its sender's
 * QP and the pair's sequence number; the buffers of handled messages are posted to the SRQ
 * again in batches (rc_rx_repost_held); a drain polls until the CQ is empty (before a QP is
 * reset or replaced: some devices drop the CQEs of a QP that is reset).
 *
 * It is a floor of btl_rc with rc_ep.c: what it reaches above it (an rc control message or
 * ring messages for the fast path, a message from a peer not connected yet for the
 * connections, an error completion for the recovery) goes through rc->up (rc_iface.h).
 */
#include "config.h"

#include "rc_iface.h"
#include "rc_rx.h"

#include "base/stats.h"
#include "base/wire.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static int rc_peer_of_qpn(rc_btl_t *rc, uint32_t qpn)
{
    for (int i = 0; i < rc->job.size; i++) {
        if (rc->eps[i].qp.qp != NULL && rc->eps[i].qp.qp->qp_num == qpn) {
            return i;
        }
    }
    return -1;
}

int rc_rx_old_peer(const rc_btl_t *rc, uint32_t qpn)
{
    unsigned n = rc->rx.nretired < RC_RX_RETIRED ? rc->rx.nretired : RC_RX_RETIRED;

    for (unsigned i = 1; i <= n; i++) { /* the newest first */
        unsigned k = (rc->rx.nretired - i) % RC_RX_RETIRED;
        if (rc->rx.retired[k].qpn == qpn) {
            return rc->rx.retired[k].peer;
        }
    }
    return -1;
}

void rc_rx_retire(rc_btl_t *rc, uint32_t qpn, int peer)
{
    unsigned k = rc->rx.nretired++ % RC_RX_RETIRED;

    rc->rx.retired[k].qpn = qpn;
    rc->rx.retired[k].peer = peer;
}

/* Posts the n receive buffers idx[] (n <= RCMSG_POLL_BATCH_MAX) to the SRQ again, in one
 * call. */
static void rc_repost(rc_btl_t *rc, const int *idx, int n)
{
    struct ibv_sge sge[RCMSG_POLL_BATCH_MAX];
    struct ibv_recv_wr rwr[RCMSG_POLL_BATCH_MAX], *bad = NULL;
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
    err = ibv_post_srq_recv(rc->rx.srq, rwr, &bad);
    if (err != 0) {
        int lost = bad != NULL ? n - (int)(bad - rwr) : n;
        rcmsg_error("ibv_post_srq_recv on %s failed: %s (%d receive buffer(s) lost)", rc->dev->name,
                    strerror(err), lost);
    }
}

static void rc_recv_error(rc_btl_t *rc, const struct ibv_wc *wc)
{
    int peer = rc_peer_of_qpn(rc, wc->qp_num);
    int old = peer < 0 ? rc_rx_old_peer(rc, wc->qp_num) : -1;

    if (wc->status == IBV_WC_WR_FLUSH_ERR &&
        (peer < 0 || rc->eps[peer].failed || rc->eps[peer].rec.state != RC_REC_NONE)) {
        rcmsg_debug("receive flushed on qp 0x%x (peer %d)", wc->qp_num, peer);
    } else if (old >= 0) {
        /* the QP is gone: what it did not deliver is replayed on its successor */
        rcmsg_debug("receive on the replaced qp 0x%x (peer %d) failed after its drain: %s",
                    wc->qp_num, old, ibv_wc_status_str(wc->status));
    } else if (peer < 0 || !rc->up->wc_error(rc, peer, wc)) { /* else: recovered */
        rcmsg_error("receive from peer %d failed: %s (status %d, vendor_err 0x%x) on %s:%d qp "
                    "0x%x (state %s)",
                    peer, ibv_wc_status_str(wc->status), wc->status, wc->vendor_err, rc->dev->name,
                    rc->port, wc->qp_num,
                    peer >= 0 ? rcmsg_rc_qp_state_name(rcmsg_rc_qp_resync(&rc->eps[peer].qp))
                              : "unknown");
        if (peer >= 0) {
            rc_ep_fail(rc, peer, ibv_wc_status_str(wc->status));
        }
    }
}

/* A message whose sequence number is not the next one from its sender: a duplicate (a replay
 * of what was received already) is dropped; a gap means a message was lost, which RC and the
 * replay never allow: the peer fails. */
static void rc_recv_out_of_seq(rc_btl_t *rc, int peer, uint32_t seq)
{
    rc_ep_t *ep = &rc->eps[peer];
    uint32_t want = (uint32_t)ep->recvd & rc->seq_mask;
    uint32_t ahead = (seq - want) & rc->seq_mask;

    if (ahead > rc->seq_mask / 2) {
        rcmsg_debug("rc: duplicate message %u from peer %d dropped (next expected %u)", seq, peer,
                    want);
        return;
    }
    rcmsg_error("rc: message %u from peer %d arrived where %u was expected: %u message(s) lost; "
                "the peer fails",
                seq, peer, want, ahead);
    rc_ep_fail(rc, peer, "messages lost (a gap in the sequence numbers)");
}

/* A message whose sender rank disagrees with its connection: dropped, and the peer of the QP
 * it arrived on failed (a buggy or hostile rank; never delivered as another rank's). */
static void rc_recv_bad_sender(rc_btl_t *rc, const struct ibv_wc *wc, int qp_peer)
{
    char why[256];

    rcmsg_rc_qp_sender_check(wc->wc_flags & IBV_WC_WITH_IMM,
                             rcmsg_wire_get_be32(&wc->imm_data) & rc->rank_mask, qp_peer,
                             rc->job.rank, rc->job.size, why, sizeof(why));
    rcmsg_error("dropped a %u-byte message on qp 0x%x: %s", wc->byte_len, wc->qp_num, why);
    if (qp_peer >= 0) {
        rc_ep_fail(rc, qp_peer, "malformed data: a message's sender disagrees with its qp");
    }
}

/*
 * Delivers a message from peer (imm: its immediate data), which arrived on peer's QP, or with
 * old on a QP that this rank replaced (rc_rx_retire): it completed after the drain that
 * preceded the QP's destruction (Soft-RoCE's responder may finish a receive under way when the
 * QP went to ERR, and a QP in RTR from an unfinished connect receives until it is destroyed).
 * The recovery's counts rule such a one: the count of messages received that this rank gave in
 * the reconnect excludes it, so the peer replays it unless it saw it acknowledged. The next
 * message from its sender is delivered (its replay is then dropped as a duplicate), and is no
 * sign of the new connection; an earlier one was delivered already, and a later one lacks the
 * ring messages before it (gone with the old connection's rings): both are dropped, the replay
 * brings them. rc's own control messages belong to the old connection's rings: dropped.
 */
static inline __attribute__((always_inline)) void
rc_recv_deliver(rc_btl_t *rc, const struct ibv_wc *wc, int peer, uint32_t imm, bool old)
{
    rc_ep_t *ep = &rc->eps[peer];
    uint32_t seq = imm >> rc->seq_shift;
    char *buf = rc->rbufs + (size_t)wc->wr_id * rc->buf_size;

    if (__builtin_expect(old, 0) &&
        (ep->failed || (imm & rc->ctl_bit) != 0 || seq != ((uint32_t)ep->recvd & rc->seq_mask))) {
        rcmsg_info("rc: message %u from peer %d on its replaced qp 0x%x dropped (next expected "
                   "%llu%s): the replay covers it",
                   seq, peer, wc->qp_num, (unsigned long long)ep->recvd,
                   (imm & rc->ctl_bit) != 0 ? ", an rc control message" : "");
        return;
    }
    if (__builtin_expect((imm & rc->ctl_bit) != 0, 0)) {
        rc->up->ctl(rc, peer, buf, wc->byte_len);
        return;
    }
    if (__builtin_expect(seq != ((uint32_t)ep->recvd & rc->seq_mask), 0) &&
        ep->fast.rx.buf != NULL) {
        rc->up->catch_up(rc, peer); /* ring messages written before this SEND */
    }
    if (__builtin_expect(seq != ((uint32_t)ep->recvd & rc->seq_mask), 0)) {
        rc_recv_out_of_seq(rc, peer, seq);
        return;
    }
    ep->recvd++;
    if (__builtin_expect(old, 0)) {
        rcmsg_info("rc: message %u from peer %d delivered from its replaced qp 0x%x (after its "
                   "drain)",
                   seq, peer, wc->qp_num);
    } else {
        ep->rec.run = 0; /* the connection works: recoveries in a row start again from 0 */
        ep->last_use = ++rc->use_tick;
        if (__builtin_expect(!ep->connected, 0)) {
            rc->up->heard(rc, peer);
        }
    }
    rc_up_recv(rc, peer, buf, wc->byte_len);
}

/* Delivers a receive completion; its buffer is then free to be posted again. The sender is
 * the rank in the immediate data, checked against the QP it arrived on (O(1) when they
 * agree: that rank's QP has this number, tested inline; rcmsg_rc_qp_sender_check rules the
 * rest), or else a QP this rank replaced lately. */
static void rc_recv_done(rc_btl_t *rc, const struct ibv_wc *wc)
{
    bool has_imm = (wc->wc_flags & IBV_WC_WITH_IMM) != 0;
    uint32_t imm = rcmsg_wire_get_be32(&wc->imm_data);
    uint32_t sender = imm & rc->rank_mask;
    int qp_peer, old;
    bool on_own_qp;

    if (__builtin_expect(wc->status != IBV_WC_SUCCESS, 0)) {
        rcmsg_stat_status(rc_peer_of_qpn(rc, wc->qp_num), (int)wc->status);
        rc_recv_error(rc, wc);
        return;
    }
    on_own_qp = has_imm && sender < (uint32_t)rc->job.size && rc->eps[sender].qp.qp != NULL &&
                rc->eps[sender].qp.qp->qp_num == wc->qp_num;
    if (__builtin_expect(on_own_qp && sender != (uint32_t)rc->job.rank, 1)) {
        rc_recv_deliver(rc, wc, (int)sender, imm, false); /* what the check below passes */
        return;
    }
    qp_peer = on_own_qp ? (int)sender : rc_peer_of_qpn(rc, wc->qp_num);
    if (rcmsg_rc_qp_sender_check(has_imm, sender, qp_peer, rc->job.rank, rc->job.size, NULL, 0) ==
        RCMSG_OK) {
        rc_recv_deliver(rc, wc, qp_peer, imm, false);
        return;
    }
    old = qp_peer < 0 ? rc_rx_old_peer(rc, wc->qp_num) : -1;
    if (old >= 0 && has_imm && sender == (uint32_t)old) {
        rc_recv_deliver(rc, wc, old, imm, true);
        return;
    }
    rc_recv_bad_sender(rc, wc, qp_peer);
}

/* Posts the receive buffers held back by rc_rx_poll, in one call (none while the btl
 * closes). */
void rc_rx_repost_held(rc_btl_t *rc)
{
    if (!rc->closing) {
        rc_repost(rc, rc->rx.repost, rc->rx.nrepost);
    }
    rc->rx.nrepost = 0;
}

/*
 * The buffer of a message just handled is held back rather than posted at once: a ping-pong's
 * reply would wait for the post (a locked ring write in the provider, some 160 instructions),
 * and one post of repost_defer buffers costs little more than one of a single buffer. A poll
 * that would leave repost_defer held posts what is held, as does rc_arm before a wait sleeps;
 * so between polls the SRQ lacks fewer than repost_defer buffers more than before (a batch
 * being handled lacks its own, as it always did), and none while the rank sleeps. A poll
 * that finds nothing does not post them (in a ping-pong that was one post per message). A buffer
 * is held only once its message was handled (the pml copies a message out before its callback
 * returns), so a poll nested in a callback (progress from the pml, rc_sync's, a drain) posts only
 * buffers of handled messages.
 */
int rc_rx_poll(rc_btl_t *rc)
{
    struct ibv_wc wc[RCMSG_POLL_BATCH_MAX];
    int n;

    RCMSG_STATIC_ASSERT(RCMSG_ARRAY_SIZE(wc) >= RCMSG_POLL_BATCH_MAX &&
                            RCMSG_ARRAY_SIZE(rc->rx.repost) == RCMSG_POLL_BATCH_MAX,
                        "a poll takes up to RCMSG_POLL_BATCH completions into wc[]; rc_repost "
                        "posts the held buffers, at most RCMSG_POLL_BATCH_MAX, in one call");
    if (__builtin_expect(rc->defer.n != 0, 0) && !rc->gate.in_thread) {
        rc_defer_flush(rc); /* what the progress thread took is older than what the CQ holds */
    }
    n = ibv_poll_cq(rc->rcq, (int)rc->poll_batch, wc);
    if (n <= 0) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        rc_recv_done(rc, &wc[i]);
        if (rc->rx.nrepost == (int)RCMSG_ARRAY_SIZE(rc->rx.repost)) {
            rc_rx_repost_held(rc);
        }
        rc->rx.repost[rc->rx.nrepost++] = (int)wc[i].wr_id;
    }
    if (rc->rx.nrepost >= rc->rx.defer) {
        rc_rx_repost_held(rc);
    }
    return n;
}

void rc_rx_drain(rc_btl_t *rc)
{
    int n, taken = 0;

    /* the CQ holds at most nrbufs entries: once that many are taken, the rest came later */
    while (taken < rc->nrbufs && (n = rc_rx_poll(rc)) > 0) {
        taken += n;
    }
}

rcmsg_status_t rc_rx_setup(rc_btl_t *rc)
{
    struct ibv_srq_init_attr sattr = {
        .attr = {.max_wr = (uint32_t)rc->nrbufs, .max_sge = 1},
    };
    struct ibv_srq_attr limit = {.srq_limit = (uint32_t)rc->nrbufs / 8};

    rc->rx.defer = rc->nrbufs / 16 < 1 ? 1 : rc->nrbufs / 16;
    if (rc->rx.defer > RC_REPOST_DEFER_MAX) {
        rc->rx.defer = RC_REPOST_DEFER_MAX;
    }
    rc->rx.srq = ibv_create_srq(rc->pd, &sattr);
    if (rc->rx.srq == NULL) {
        rcmsg_error("ibv_create_srq(%d) on %s failed: %m", rc->nrbufs, rc->dev->name);
        return RCMSG_ERR_IO;
    }
    for (int i = 0; i < rc->nrbufs;) {
        int idx[RCMSG_POLL_BATCH_MAX], n = 0;

        while (n < RCMSG_POLL_BATCH_MAX && i < rc->nrbufs) {
            idx[n++] = i++;
        }
        rc_repost(rc, idx, n);
    }
    if (ibv_modify_srq(rc->rx.srq, &limit, IBV_SRQ_LIMIT) != 0) {
        rcmsg_debug("srq limit not supported on %s: %m", rc->dev->name);
    }
    return RCMSG_OK;
}

void rc_rx_close(rc_btl_t *rc)
{
    if (rc->rx.srq != NULL && ibv_destroy_srq(rc->rx.srq) != 0) {
        rcmsg_warn("ibv_destroy_srq failed: %m");
    }
    rc->rx.srq = NULL;
}
