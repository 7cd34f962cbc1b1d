/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: recovery of a broken connection (RCMSG_RECOVERY, rc_iface.h).
 *
 * A connection breaks when its QP goes to ERR: a completion error, an async event, a QP found
 * in ERR behind its mirror, or the peer reconnecting because its side broke. The errors are
 * classified:
 *   transient  retry exceeded, RNR retry exceeded, the flushes that follow them, a QP found in
 *              ERR (a link flap longer than the retries, a peer too slow to post receives), a
 *              local QP operation error (rxe's completion of a send while its link is down,
 *              often before the port's event; a local bug would repeat at once and is bounded
 *              by RCMSG_RECOVERY_ATTEMPTS)
 *   severe     IBV_EVENT_QP_FATAL, IBV_EVENT_PATH_MIG_ERR, a completion with IBV_WC_FATAL_ERR
 *              (the QP itself is unusable; rxe of Debian 12's kernel completes a SEND so when a
 *              read response arrives for it, its PSNs out of step after retries under link
 *              flaps: rc_recovery part 7 lost a pair to it once in ten runs)
 *   (both are recovered alike, see 3.)
 *   fatal      protection, access, length and every other error, malformed peer data: a bug or
 *              an attack, never retried; the peer fails as without recovery
 *
 * The procedure, per connection, on each side:
 *   1. stop posting (ep->connected = false: the layers above get RCMSG_ERR_NO_RESOURCE and
 *      try again; the requests outstanding stay in the endpoint's ring);
 *   2. drain: the QP goes to ERR and a signaled marker is posted behind the outstanding
 *      requests; every completion until the marker's is taken (successes release their
 *      requests, errors keep them for the replay); then the receive CQ is polled empty, so
 *      every message the broken QP received is delivered before the QP goes;
 *   3. query the QP (state and both PSNs, for the log), destroy it and create a new one in INIT
 *      with a fresh PSN, for either class: a QP reset in place keeps its number, so a packet of
 *      the broken connection still on its way could be taken for the new one (the reason of IB
 *      CM's TimeWait), and on Soft-RoCE a QP reset after an error and connected again
 *      corrupted rendezvous reads under packet loss (in every 30%-loss run, also when the reset
 *      QP was used again only one recovery later; never with a new QP: docs/performance.md);
 *   4. reconnect through the CM (rc_cm.h, "Recovery"): the REQ and the REP carry how many
 *      messages each side sent and received;
 *   5. replay, once the CM connected the pair (rc_cm_rts): the SENDs the peer did not receive
 *      are posted again from their bounce buffers or inline copies, in order and with their
 *      sequence numbers; rendezvous reads are issued again from where they stood (each chunk
 *      is one read); flush markers are dropped. Then posting resumes.
 *   6. the layer above is told of the break when it starts (broke_cb): it reads again, from
 *      their first byte, the rendezvous messages from the peer it was reading (once their reads
 *      in flight are done; the sender keeps its buffer until the FIN). A read that completed on
 *      the broken QP is not trusted: on Soft-RoCE (Debian 12's 6.1 kernel, loaded hosts) the
 *      read that completed just before a QP went to ERR by itself had wrong bytes, twice in CI
 *      runs. A recovery costs one more read of those messages.
 * Messages carry the pair's sequence number in their immediate data (rc_imm): the receiver
 * drops a duplicate and fails the peer on a gap, so nothing is delivered twice or out of order
 * even if a count is off. Control messages of the layers above (rendezvous RTS, FIN, credits)
 * are SENDs like any other.
 *
 * Bounds: RCMSG_RECOVERY_TIMEOUT from the break to the reconnect (a peer that does not answer
 * fails with RCMSG_ERR_CONNECTION); RCMSG_RECOVERY_ATTEMPTS recoveries in a row without a
 * message completing between them, or such a run lasting longer than RCMSG_RECOVERY_TIMEOUT (a
 * lossy link is ridden out for that long).
 */
#include "config.h"

#include "rc_btl.h"
#include "rc_iface.h"

#include "base/clock.h"
#include "base/event.h"
#include "base/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- setup ----------------------------------------------------------------------------- */

rcmsg_status_t rc_rec_setup(rc_btl_t *rc)
{
    unsigned bits = 1;
    size_t inl = rc->super.caps.max_inline;

    while (bits < 31 && (1ull << bits) < (unsigned long long)rc->job.size) {
        bits++;
    }
    rc->rank_bits = bits;
    rc->rank_mask = (uint32_t)((1ull << bits) - 1);
    rc->ctl_bit = (uint32_t)1 << bits; /* rc's own control SENDs (rc_fast.c) */
    rc->seq_shift = bits + 1;
    rc->seq_mask = (uint32_t)((1ull << (32 - rc->seq_shift)) - 1);
    rc->recovery = rc->config.recovery;
    if (rc->recovery && rc->seq_mask / 2 < rc->sq_depth) {
        rcmsg_warn("rc: connection recovery is off: in a job of %d ranks a message carries %u "
                   "bits of sequence number, too few for a send queue of %u "
                   "(RCMSG_QP_SEND_DEPTH); lower RCMSG_QP_SEND_DEPTH to recover connections",
                   rc->job.size, 32 - rc->seq_shift, rc->sq_depth);
        rc->recovery = false;
    }
    rc->read_confirm = rc->config.read_confirm == RCMSG_READ_CONFIRM_YES ||
                       (rc->config.read_confirm == RCMSG_READ_CONFIRM_AUTO && rc->recovery &&
                        rc->dev->attr.vendor_id == RC_VENDOR_RXE);
    if (rc->read_confirm) {
        rcmsg_info("rc: a rendezvous read is trusted once a later request on its connection "
                   "completed (RCMSG_READ_CONFIRM=%s)",
                   rc->config.read_confirm == RCMSG_READ_CONFIRM_AUTO ? "auto: Soft-RoCE" : "yes");
    }
    if (!rc->recovery) {
        return RCMSG_OK;
    }
    rc->rec.peers = calloc((size_t)rc->job.size, sizeof(*rc->rec.peers));
    rc->rec.replay = calloc(rc->sq_depth, sizeof(*rc->rec.replay));
    rc->inl_copy = inl > 0 ? malloc((size_t)rc->wr_total * inl) : NULL;
    if (rc->rec.peers == NULL || rc->rec.replay == NULL || (inl > 0 && rc->inl_copy == NULL)) {
        rcmsg_error("rc: out of memory for the replay buffers of connection recovery");
        return RCMSG_ERR_NO_MEMORY;
    }
    return RCMSG_OK;
}

void rc_rec_close(rc_btl_t *rc)
{
    free(rc->inl_copy);
    free(rc->rec.peers);
    free(rc->rec.replay);
    rc->inl_copy = NULL;
    rc->rec.peers = NULL;
    rc->rec.replay = NULL;
}

/* ---- classification -------------------------------------------------------------------- */

static bool rc_wc_transient(enum ibv_wc_status status)
{
    return status == IBV_WC_RETRY_EXC_ERR || status == IBV_WC_RNR_RETRY_EXC_ERR ||
           status == IBV_WC_WR_FLUSH_ERR || status == IBV_WC_LOC_QP_OP_ERR;
}

static bool rc_event_severe(enum ibv_event_type event)
{
    return event == IBV_EVENT_QP_FATAL || event == IBV_EVENT_PATH_MIG_ERR;
}

bool rc_rec_wc_error(rc_btl_t *rc, int peer, const struct ibv_wc *wc)
{
    rc_ep_t *ep = &rc->eps[peer];
    bool severe = wc->status == IBV_WC_FATAL_ERR;

    if (!rc->recovery || ep->failed || !(severe || rc_wc_transient(wc->status))) {
        return false;
    }
    rc_rec_start(
        rc, peer,
        (rc_cause_t){.kind = RC_CAUSE_WC, .code = (int)wc->status, .vendor = wc->vendor_err},
        severe);
    return ep->rec.state != RC_REC_NONE;
}

void rc_rec_async(rc_btl_t *rc, int peer, enum ibv_event_type event)
{
    if (!rc->recovery || !rc_event_severe(event)) {
        rc_ep_fail(rc, peer, ibv_event_type_str(event));
        return;
    }
    rc_rec_start(rc, peer, (rc_cause_t){.kind = RC_CAUSE_EVENT, .code = (int)event}, true);
}

/* ---- start and drain ------------------------------------------------------------------- */

/* The peer among the connections that recover (rc->rec.peers, walked by rc_rec_progress), once.
 * Its previous recovery may have completed (rc_rec_connected, inside the CM's progress) and
 * this one begun in the same progress call, before rc_rec_progress dropped the entry: the CM
 * took the REP or RTU that reconnected the pair, then the peer's REQ saying its side broke
 * again (frequent on a flapping link). That entry stands for the new recovery; a second one,
 * added at each such turn, overran the job.size slots and corrupted the heap. */
void rc_rec_list(rc_btl_t *rc, int peer)
{
    for (int i = 0; i < rc->rec.n; i++) {
        if (rc->rec.peers[i] == peer) {
            return;
        }
    }
    rc->rec.peers[rc->rec.n++] = peer;
}

void rc_rec_start(rc_btl_t *rc, int peer, rc_cause_t cause, bool severe)
{
    rc_ep_t *ep = &rc->eps[peer];
    struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};
    char why[160];

    if (ep->failed) {
        return;
    }
    if (ep->rec.state != RC_REC_NONE) {
        if (severe && !ep->rec.severe) { /* QP_FATAL handled after the flushes it caused */
            ep->rec.severe = true;
            ep->rec.cause = cause;
        }
        return;
    }
    rc_cause_str(&cause, why, sizeof(why));
    if (!rc->recovery || ep->qp.qp == NULL) {
        rcmsg_error("rc: connection to peer %d broken: %s (%s)", peer, why,
                    rc->recovery ? "no qp" : "RCMSG_RECOVERY=no");
        rc_ep_fail(rc, peer, why);
        return;
    }
    uint64_t now = rcmsg_clock_us();
    if (ep->rec.run >= rc->config.recovery_attempts ||
        (ep->rec.run > 0 && now - ep->rec.run_t0 > rc->config.recovery_timeout_us)) {
        rcmsg_error("rc: connection to peer %d broke again (%s) after %u recoveries in a row in "
                    "%.1f s with no message completed between them (RCMSG_RECOVERY_ATTEMPTS=%u, "
                    "RCMSG_RECOVERY_TIMEOUT %.1f s): the peer fails",
                    peer, why, ep->rec.run, (double)(now - ep->rec.run_t0) / 1e6,
                    rc->config.recovery_attempts, (double)rc->config.recovery_timeout_us / 1e6);
        rc_ep_fail(rc, peer,
                   "broke again and again: recovery gave up (RCMSG_RECOVERY_ATTEMPTS, "
                   "RCMSG_RECOVERY_TIMEOUT)");
        return;
    }
    ep->connected = false;
    ep->rec = (rc_rec_t){.state = RC_REC_DRAIN,
                         .severe = severe,
                         .cause = cause,
                         .old_qpn = ep->qp.qp->qp_num,
                         .t0 = now,
                         .run = ep->rec.run + 1,
                         .run_t0 = ep->rec.run > 0 ? ep->rec.run_t0 : now,
                         .count = ep->rec.count,
                         .breaks = ep->rec.breaks + 1};
    ep->rec.deadline = ep->rec.t0 + rc->config.recovery_timeout_us;
    if (rcmsg_rc_qp_resync(&ep->qp) != IBV_QPS_ERR) {
        rcmsg_rc_qp_modify(&ep->qp, &attr, IBV_QP_STATE);
    }
    ep->rec.drain_last = rc_ep_post_marker(rc, peer); /* NULL: the newest request's own CQE */
    if (ep->rec.drain_last == NULL && ep->ring_count > 0) {
        ep->rec.drain_last = ep->ring[(ep->ring_head + ep->ring_count - 1) % rc->sq_depth];
    }
    rc_rec_list(rc, peer);
    rc->cm_hot = true;
    rc_up_broke(rc, peer);
    rcmsg_info("rc: connection to peer %d broken (%s) on qp 0x%x: recovering, %u request(s) "
               "outstanding",
               peer, why, ep->rec.old_qpn, ep->ring_count);
}

void rc_rec_sq_cqe(rc_btl_t *rc, rc_ep_t *ep, rc_wr_t *wr, bool ok)
{
    bool last = wr == ep->rec.drain_last;

    if (ok) {
        rc_ep_complete_upto(rc, ep, wr, RCMSG_OK); /* done before the QP broke */
    }
    if (last) {
        ep->rec.drain_last = NULL;
    }
}

/* The drain is over: every receive of the broken QP delivered, the QP queried, replaced by a
 * new one and reconnected. */
static void rc_rec_renew(rc_btl_t *rc, int peer, rc_rejoin_fn_t rejoin)
{
    rc_ep_t *ep = &rc->eps[peer];
    enum ibv_qp_state hw;

    rc_rx_drain(rc); /* every message the broken QP received, delivered */
    if (ep->fast.rx.buf != NULL) {
        rc_fast_catch_up(rc, peer); /* and every one it wrote into our ring */
    }
    if (ep->rec.state != RC_REC_DRAIN || ep->failed) {
        return; /* a delivery failed the peer (a gap) */
    }
    rc_fast_drop(rc, peer); /* the rings go with the QP: the replay goes by SEND */
    (void)rcmsg_rc_qp_query(&ep->qp, &hw, &ep->rec.sq_psn, &ep->rec.rq_psn); /* for the log */
    if (rc_pool_renew(rc, peer) != RCMSG_OK) {
        rcmsg_error("rc: connection to peer %d not recovered: no new qp could be created", peer);
        rc_ep_fail(rc, peer, "no new qp could be created for its recovery");
        return;
    }
    ep->rec.state = RC_REC_CONNECT;
    rejoin(rc, peer);
}

void rc_rec_progress(rc_btl_t *rc, rc_rejoin_fn_t rejoin)
{
    for (int i = 0; i < rc->rec.n;) {
        int peer = rc->rec.peers[i];
        rc_ep_t *ep = &rc->eps[peer];

        if (ep->rec.state == RC_REC_DRAIN && ep->rec.drain_last == NULL) {
            rc_rec_renew(rc, peer, rejoin);
        } else if (ep->rec.state == RC_REC_DRAIN && rcmsg_clock_us() > ep->rec.deadline) {
            rcmsg_error("rc: connection to peer %d: the completions of its broken qp 0x%x did "
                        "not all come within RCMSG_RECOVERY_TIMEOUT (%.1f s)",
                        peer, ep->rec.old_qpn, (double)rc->config.recovery_timeout_us / 1e6);
            rc_ep_fail(rc, peer, "its broken qp did not drain within RCMSG_RECOVERY_TIMEOUT");
        }
        if (ep->rec.state == RC_REC_NONE) {
            rc->rec.peers[i] = rc->rec.peers[--rc->rec.n];
            continue;
        }
        i++;
    }
}

bool rc_rec_retry(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];

    if (ep->rec.state != RC_REC_CONNECT || !ep->rec.retry || ep->failed ||
        rcmsg_clock_us() > ep->rec.deadline) {
        return false;
    }
    ep->rec.retry = false;
    if (rc_pool_renew(rc, peer) != RCMSG_OK) {
        return false;
    }
    rcmsg_warn("rc: reconnecting peer %d failed in a qp transition (see above): trying again "
               "with qp 0x%x, %.1f s left of RCMSG_RECOVERY_TIMEOUT",
               peer, ep->qp.qp->qp_num, (double)(ep->rec.deadline - rcmsg_clock_us()) / 1e6);
    return true;
}

/* ---- replay ---------------------------------------------------------------------------- */

typedef struct {
    unsigned msgs, reads, delivered, atomics;
    unsigned long long bytes, read_bytes;
} rc_replay_t;

/* Keeps in rc->rec.replay the ring's requests the peer lacks (it received `got` SENDs) and releases
 * the others; returns how many were kept, or -1 when the counts cannot be right. */
static int rc_replay_select(rc_btl_t *rc, rc_ep_t *ep, int peer, uint64_t got, rc_replay_t *st)
{
    unsigned sends = 0, n = ep->ring_count;
    int kept = 0;

    for (unsigned i = 0; i < n; i++) {
        rc_wr_t *wr = ep->ring[(ep->ring_head + i) % rc->sq_depth];
        sends += rc_wr_is_msg(wr->type);
        rc->rec.replay[i] = wr;
    }
    if (got > ep->sent || got < ep->sent - sends) {
        rcmsg_error("rc: peer %d says it received %llu messages from this rank, which sent %llu "
                    "and kept the last %u for a replay: %s",
                    peer, (unsigned long long)got, (unsigned long long)ep->sent, sends,
                    got > ep->sent ? "malformed peer data" : "messages were lost");
        return -1;
    }
    ep->ring_head = ep->ring_count = ep->unsignaled = 0;
    for (unsigned i = 0; i < n; i++) {
        rc_wr_t *wr = rc->rec.replay[i];
        bool send = rc_wr_is_msg(wr->type);
        if (wr->type == RC_WR_FLUSH || wr->type == RC_WR_CTL || (send && wr->seq < got)) {
            st->delivered += send;
            rc_wr_put(rc, wr);
            continue;
        }
        if (wr->type == RC_WR_ATOMIC) {
            /* not idempotent, and the peer may have applied it before the break: never
             * posted twice, it fails (at most once; its outcome unknown, docs/rc.md) */
            st->atomics++;
            rc_wr_release(rc, wr, RCMSG_ERR_IO);
            continue;
        }
        st->msgs += send;
        st->bytes += send ? wr->len : 0;
        st->reads += !send;
        st->read_bytes += send ? 0 : wr->len;
        rc->rec.replay[kept++] = wr;
    }
    return kept;
}

rcmsg_status_t rc_rec_connected(rc_btl_t *rc, int peer, const rcmsg_rc_cm_payload_t *remote)
{
    rc_ep_t *ep = &rc->eps[peer];
    rc_replay_t st = {0};
    char why[160];
    int kept;

    if (ep->rec.state != RC_REC_CONNECT) {
        if (remote->seq[1] == ep->sent) {
            return RCMSG_OK;
        }
        rcmsg_error("rc: peer %d connects saying it received %llu messages from this rank, which "
                    "sent %llu",
                    peer, (unsigned long long)remote->seq[1], (unsigned long long)ep->sent);
        ep->rec.refused = "malformed data: its count of the messages it received from this rank "
                          "is wrong";
        return RCMSG_ERR_PEER_DATA;
    }
    kept = rc_replay_select(rc, ep, peer, remote->seq[1], &st);
    if (kept < 0) {
        ep->rec.refused = "its connection broke and its count of the messages it received from "
                          "this rank, given when it reconnected, leaves no replay possible";
        return RCMSG_ERR_PEER_DATA;
    }
    for (int i = 0; i < kept; i++) {
        if (rc_ep_repost(rc, ep, rc->rec.replay[i], i == kept - 1) != RCMSG_OK) {
            /* not on the QP, so no completion will release them: they fail now (the ones
             * reposted complete flushed when the peer fails) */
            for (int j = i; j < kept; j++) {
                rc_wr_release(rc, rc->rec.replay[j], RCMSG_ERR_CONNECTION);
            }
            ep->rec.state = RC_REC_NONE; /* completions are pending again: no longer drained */
            ep->rec.refused = "its connection broke and, reconnected, the replay of the messages "
                              "it lacked could not be posted (ibv_post_send failed)";
            return RCMSG_ERR_CONNECTION;
        }
    }
    ep->rec.state = RC_REC_NONE;
    ep->rec.count++;
    rc_cause_str(&ep->rec.cause, why, sizeof(why));
    rcmsg_stat_add(peer, RCMSG_STAT_recoveries, 1);
    rcmsg_stats_set_qpn(peer, ep->qp.qp->qp_num);
    rc_up_event(rc, RCMSG_EVENT_RECOVERED, peer, "%s; qp 0x%x -> 0x%x", why, ep->rec.old_qpn,
                ep->qp.qp->qp_num);
    if (st.atomics > 0) {
        rcmsg_error("rc: %u one-sided atomic(s) to peer %d were in flight when its connection "
                    "broke: failed with RCMSG_ERR_IO, not replayed (each was applied at most "
                    "once; whether it was is unknown)",
                    st.atomics, peer);
    }
    rcmsg_warn(
        "rc: connection to peer %d recovered: qp 0x%x -> 0x%x (the peer's 0x%x), cause %s, "
        "psn sq 0x%x rq 0x%x when it broke; replayed %u message(s) (%llu bytes) and %u read(s) or "
        "write(s) (%llu bytes), %u already delivered; in %.1f ms (recovery %llu of this "
        "connection, %s)",
        peer, ep->rec.old_qpn, ep->qp.qp->qp_num, remote->qpn, why, ep->rec.sq_psn, ep->rec.rq_psn,
        st.msgs, st.bytes, st.reads, st.read_bytes, st.delivered,
        (double)(rcmsg_clock_us() - ep->rec.t0) / 1e3, (unsigned long long)ep->rec.count,
        ep->rec.severe ? "severe error, qp re-created" : "transient error, qp re-created");
    return RCMSG_OK;
}

/* ---- test hooks ------------------------------------------------------------------------ */

/* The endpoint a test hook may break: RCMSG_ERR_INVALID_PARAM without a QP, RCMSG_ERR_STATE
 * while a connect or a recovery is under way (with recovery on, or always when `up`). */
static rcmsg_status_t rc_hook_ep(rc_btl_t *rc, int peer, bool up, rc_ep_t **ep_p)
{
    rc_ep_t *ep;

    if (peer < 0 || peer >= rc->job.size || rc->eps[peer].qp.qp == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    ep = &rc->eps[peer];
    if ((rc->recovery || up) && (!ep->connected || ep->rec.state != RC_REC_NONE)) {
        return RCMSG_ERR_STATE;
    }
    *ep_p = ep;
    return RCMSG_OK;
}

static rcmsg_status_t rc_force_error(rcmsg_btl_t *btl, int peer)
{
    rc_btl_t *rc = rc_btl_of(btl);
    struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};
    rc_ep_t *ep = NULL;
    rcmsg_status_t status = rc_hook_ep(rc, peer, false, &ep);

    if (status != RCMSG_OK) {
        return status;
    }
    rcmsg_log(rc->recovery ? RCMSG_LOG_INFO : RCMSG_LOG_WARN,
              "forcing qp 0x%x (peer %d) from %s into ERR", ep->qp.qp->qp_num, peer,
              rcmsg_rc_qp_state_name(ep->qp.state));
    status = rcmsg_rc_qp_modify(&ep->qp, &attr, IBV_QP_STATE);
    if (status == RCMSG_OK && rc->recovery) {
        rc_rec_start(rc, peer, (rc_cause_t){.kind = RC_CAUSE_HOOK}, false);
    }
    return status;
}

static rcmsg_status_t rc_force_fatal(rcmsg_btl_t *btl, int peer)
{
    rc_btl_t *rc = rc_btl_of(btl);
    struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};
    rc_ep_t *ep = NULL;
    rcmsg_status_t status = rc_hook_ep(rc, peer, false, &ep);

    if (status != RCMSG_OK) {
        return status;
    }
    rcmsg_info("forcing qp 0x%x (peer %d) into ERR with a simulated %s", ep->qp.qp->qp_num, peer,
               ibv_event_type_str(IBV_EVENT_QP_FATAL));
    if (rcmsg_rc_qp_modify(&ep->qp, &attr, IBV_QP_STATE) != RCMSG_OK) {
        return RCMSG_ERR_IO;
    }
    /* what the async thread does with the device's event (rc_async.c) */
    atomic_store_explicit(&ep->async_event, (int)IBV_EVENT_QP_FATAL + 1, memory_order_release);
    atomic_store_explicit(&rc->async_pending, 1, memory_order_release);
    return RCMSG_OK;
}

static rcmsg_status_t rc_force_qp_err(rcmsg_btl_t *btl, int peer)
{
    rc_btl_t *rc = rc_btl_of(btl);
    struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};
    rc_ep_t *ep = NULL;
    rcmsg_status_t status = rc_hook_ep(rc, peer, true, &ep);

    if (status != RCMSG_OK) {
        return status;
    }
    rcmsg_info("test hook: qp 0x%x (peer %d) moved to ERR with ibv_modify_qp, mirror left at %s",
               ep->qp.qp->qp_num, peer, rcmsg_rc_qp_state_name(ep->qp.state));
    if (ibv_modify_qp(ep->qp.qp, &attr, IBV_QP_STATE) != 0) { /* not through the mirror */
        rcmsg_error("test hook: ibv_modify_qp of qp 0x%x to ERR failed: %m", ep->qp.qp->qp_num);
        return RCMSG_ERR_IO;
    }
    return RCMSG_OK;
}

static rcmsg_status_t rc_force_stuck(rcmsg_btl_t *btl, int peer, bool marker)
{
    rc_btl_t *rc = rc_btl_of(btl);
    struct ibv_qp_attr attr = {.qp_state = IBV_QPS_SQD};
    rc_ep_t *ep = NULL;
    rcmsg_status_t status = rc_hook_ep(rc, peer, true, &ep);

    if (status != RCMSG_OK) {
        return status;
    }
    /* the ring emptied first: the watch looks at the oldest request, the marker or the next
     * SEND */
    (void)rc_ep_flush(rc, peer);
    for (uint64_t t0 = rcmsg_clock_us(); ep->ring_count > 0;) {
        if (rcmsg_clock_us() - t0 > 2000000 || !ep->connected || ep->rec.state != RC_REC_NONE) {
            return RCMSG_ERR_STATE;
        }
        rc_send_poll(rc);
    }
    rcmsg_info("test hook: qp 0x%x (peer %d) moved to SQD: it neither completes nor fails what "
               "is posted from now on",
               ep->qp.qp->qp_num, peer);
    if (rcmsg_rc_qp_modify(&ep->qp, &attr, IBV_QP_STATE) != RCMSG_OK) {
        return RCMSG_ERR_IO;
    }
    if (!marker) {
        return RCMSG_OK;
    }
    return rc_ep_post_marker(rc, peer) != NULL ? RCMSG_OK : RCMSG_ERR_NO_RESOURCE;
}

/* The test hooks, called by the application: inside the gate, as the ops (rc_gate.h). */
rcmsg_status_t rcmsg_rc_btl_force_error(rcmsg_btl_t *btl, int peer)
{
    rcmsg_status_t s;

    rc_gate_enter(&rc_btl_of(btl)->gate);
    s = rc_force_error(btl, peer);
    rc_gate_exit(&rc_btl_of(btl)->gate);
    return s;
}

rcmsg_status_t rcmsg_rc_btl_force_fatal(rcmsg_btl_t *btl, int peer)
{
    rcmsg_status_t s;

    rc_gate_enter(&rc_btl_of(btl)->gate);
    s = rc_force_fatal(btl, peer);
    rc_gate_exit(&rc_btl_of(btl)->gate);
    return s;
}

rcmsg_status_t rcmsg_rc_btl_force_qp_err(rcmsg_btl_t *btl, int peer)
{
    rcmsg_status_t s;

    rc_gate_enter(&rc_btl_of(btl)->gate);
    s = rc_force_qp_err(btl, peer);
    rc_gate_exit(&rc_btl_of(btl)->gate);
    return s;
}

rcmsg_status_t rcmsg_rc_btl_force_stuck(rcmsg_btl_t *btl, int peer, bool marker)
{
    rcmsg_status_t s;

    rc_gate_enter(&rc_btl_of(btl)->gate);
    s = rc_force_stuck(btl, peer, marker);
    rc_gate_exit(&rc_btl_of(btl)->gate);
    return s;
}

uint64_t rcmsg_rc_btl_recoveries(rcmsg_btl_t *btl, int peer)
{
    rc_btl_t *rc = rc_btl_of(btl);

    return peer >= 0 && peer < rc->job.size ? rc->eps[peer].rec.count : 0;
}

uint64_t rcmsg_rc_btl_breaks(rcmsg_btl_t *btl, int peer)
{
    rc_btl_t *rc = rc_btl_of(btl);

    return peer >= 0 && peer < rc->job.size ? rc->eps[peer].rec.breaks : 0;
}

unsigned rcmsg_rc_btl_outstanding(rcmsg_btl_t *btl, int peer)
{
    rc_btl_t *rc = rc_btl_of(btl);
    unsigned n;

    if (peer < 0 || peer >= rc->job.size) {
        return 0;
    }
    rc_gate_enter(&rc->gate); /* the progress thread may own the endpoint */
    n = rc->eps[peer].ring_count;
    rc_gate_exit(&rc->gate);
    return n;
}
