/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP state cache kept in step with the hardware, and rc's part of the state dump.
 *
 * rcmsg never queries a QP per operation: each QP's state is mirrored (rc_qp.c) and every
 * transition goes through the mirror. A QP can still leave its state behind the mirror's back
 * (a device or driver error that raises no completion and no event, a tool, a test hook), so
 * every RCMSG_QP_SYNC_INTERVAL each connected QP is queried (all of them in one pass, from
 * progress every RC_CM_POLL_EVERY calls and before a wait sleeps: off the hot path). A QP found
 * in another state is logged with both and handled as a broken connection (rc_rec.c), after the
 * completions already queued were taken: an error status they carry decides the class. After
 * any error the recovery re-reads the QP (rcmsg_rc_qp_resync in rc_rec_start).
 */
#include "config.h"

#include "rc_btl.h"
#include "rc_iface.h"

#include "base/clock.h"
#include "base/log.h"
#include "base/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the QP to peer is up and watched by the sync: connected, not failed, not recovering. */
static bool rc_sync_watched(const rc_btl_t *rc, int peer)
{
    const rc_ep_t *ep = &rc->eps[peer];

    return ep->qp.qp != NULL && ep->connected && !ep->failed && ep->rec.state == RC_REC_NONE;
}

/* One connected QP: recovered (or its peer failed) when the device disagrees with the mirror. */
static void rc_sync_ep(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];
    enum ibv_qp_state hw;
    int err;

    rcmsg_rstat_add(RCMSG_RSTAT_qp_syncs, 1);
    err = rcmsg_rc_qp_query(&ep->qp, &hw, NULL, NULL);
    if (err != 0) {
        rcmsg_debug("rc: qp state sync: ibv_query_qp of qp 0x%x (peer %d) failed: %s",
                    ep->qp.qp->qp_num, peer, strerror(err));
        return;
    }
    if (hw == ep->qp.state) {
        return;
    }
    rcmsg_rstat_add(RCMSG_RSTAT_qp_sync_mismatches, 1);
    rcmsg_warn("rc: qp 0x%x to peer %d: hardware says %s, mirror %s (qp state sync, "
               "RCMSG_QP_SYNC_INTERVAL); %s",
               ep->qp.qp->qp_num, peer, rcmsg_rc_qp_state_name(hw),
               rcmsg_rc_qp_state_name(ep->qp.state),
               rc->recovery ? "recovering" : "the peer fails (RCMSG_RECOVERY=no)");
    /* the completions queued so far first: an error among them classifies the break */
    rc_send_poll(rc);
    rc_rx_poll(rc);
    if (ep->connected && !ep->failed && ep->rec.state == RC_REC_NONE) {
        rc_rec_start(rc, peer, (rc_cause_t){.kind = RC_CAUSE_SYNC, .code = (int)hw}, false);
    }
}

/* Slack over the device's retry time before a send queue counts as stuck: a guest or a process
 * descheduled for seconds must not make a recovery. */
#define RC_STUCK_SLACK_US 5000000u
/* The slowest transfer rate a request is granted (bytes per us): 10 MB/s. */
#define RC_STUCK_RATE 10u

/* How long the requests of a ring (len bytes in all) may wait for a completion: the device
 * tries a request RCMSG_IB_RETRY_COUNT + 1 times, 4.096 us x 2^RCMSG_IB_TIMEOUT each (IBA lets
 * the timer run to 4x that: counted), bounded RNR retries too, then fails it; plus the time
 * the bytes take at RC_STUCK_RATE, and the slack. */
static uint64_t rc_stuck_bound_us(const rc_btl_t *rc, uint64_t len)
{
    double attempt_us = 4 * 4.096 * (double)(UINT64_C(1) << rc->config.ib_timeout);
    double rnr_us = rc->config.rnr_retry < 7 ? 655360.0 * (rc->config.rnr_retry + 1) : 0;

    return (uint64_t)(attempt_us * (rc->config.retry_count + 1) + rnr_us) + len / RC_STUCK_RATE +
           RC_STUCK_SLACK_US;
}

/* Whether a request may wait without a bound: a SEND meets receive-not-ready NAKs while the
 * peer's receive buffers are all taken (a peer that computes), and RCMSG_IB_RNR_RETRY=7 retries
 * them forever. */
static bool rc_may_wait_rnr(const rc_btl_t *rc, const rc_wr_t *wr)
{
    return rc->config.rnr_retry == 7 &&
           (wr->type == RC_WR_SEND || wr->type == RC_WR_SEND_INLINE || wr->type == RC_WR_CTL);
}

/* The oldest outstanding request of ep when a completion is due (some request is signaled: an
 * unsignaled tail completes only with a later signaled request), else NULL; *len_p: the
 * ring's bytes. */
static const rc_wr_t *rc_due_head(const rc_btl_t *rc, const rc_ep_t *ep, uint64_t *len_p)
{
    bool due = false;

    *len_p = 0;
    if (ep->ring_count == 0) {
        return NULL;
    }
    for (unsigned i = 0; i < ep->ring_count; i++) {
        const rc_wr_t *wr = ep->ring[(ep->ring_head + i) % rc->sq_depth];
        due = due || wr->signaled;
        *len_p += wr->len;
    }
    return due ? ep->ring[ep->ring_head] : NULL;
}

/* A SEND at the head that may wait on the peer's receive buffers is probed once it has waited
 * this long (the peer's answer posts them again: sends to a rank that computes move on), and
 * again as often while it stays there. */
#define RC_STUCK_PROBE_US 1000000u
/* How long a SEND may still wait after the peer answered a probe: its receive buffers are
 * posted again, so the device's next receive-not-ready retry (at most 655 ms after the last,
 * IBA's longest RNR timer) delivers it; the rest is slack. */
#define RC_STUCK_CONFIRM_US 2000000u

/* A SEND at the head, there for now - w->since: the peer is probed every RC_STUCK_PROBE_US. */
static void rc_sync_probe_send(rc_btl_t *rc, int peer, rc_stuck_t *w, uint64_t now)
{
    rc_ep_t *ep = &rc->eps[peer];

    if (now - w->since < RC_STUCK_PROBE_US ||
        (w->probed_us != 0 && now - w->probed_us < RC_STUCK_PROBE_US)) {
        return;
    }
    if (rcmsg_rc_cm_probe(rc->cm, peer)) {
        rcmsg_log(w->probed_us == 0 ? RCMSG_LOG_INFO : RCMSG_LOG_DEBUG,
                  "rc: qp 0x%x to peer %d: its oldest request, a SEND, without a completion for "
                  "%.1f s (RCMSG_IB_RNR_RETRY=7: it may wait on the peer's receive buffers); the "
                  "peer is probed",
                  ep->qp.qp->qp_num, peer, (double)(now - w->since) / 1e6);
        w->probed_us = now;
    }
}

/* One connected QP: recovered when its oldest request stayed outstanding, a completion due,
 * beyond the bound: the device neither completed nor failed it (a SEND that may wait on RNR:
 * only once the probed peer said, RC_STUCK_CONFIRM_US before, that its buffers are posted). */
static void rc_sync_stuck(rc_btl_t *rc, int peer, uint64_t now)
{
    rc_ep_t *ep = &rc->eps[peer];
    rc_stuck_t *w = &rc->sync.stuck[peer];
    uint64_t len, bound;
    const rc_wr_t *head = rc_due_head(rc, ep, &len);
    bool send;

    if (head == NULL || head != w->head || head->gen != w->gen) {
        *w = (rc_stuck_t){.head = head, .gen = head != NULL ? head->gen : 0, .since = now};
        return;
    }
    send = rc_may_wait_rnr(rc, head);
    if (send) {
        rc_sync_probe_send(rc, peer, w, now);
    }
    bound = rc_stuck_bound_us(rc, len);
    if (now - w->since <= bound ||
        (send && (w->answered_us == 0 || now - w->answered_us <= RC_STUCK_CONFIRM_US))) {
        return;
    }
    /* the completions queued so far first: one may retire the head */
    rc_send_poll(rc);
    rc_rx_poll(rc);
    if (!rc_sync_watched(rc, peer) || rc_due_head(rc, ep, &len) != head || head->gen != w->gen) {
        return;
    }
    w->head = NULL;
    rcmsg_warn("rc: qp 0x%x to peer %d: %u request(s) outstanding, the oldest (%s%s) without a "
               "completion for %.1f s, beyond the device's retries (RCMSG_IB_TIMEOUT %u, "
               "RCMSG_IB_RETRY_COUNT %u: %.1f s with the bytes and the slack)%s; %s",
               ep->qp.qp->qp_num, peer, ep->ring_count, rc_wr_type_name(head->type),
               head->held ? ", held" : "", (double)(now - w->since) / 1e6, rc->config.ib_timeout,
               rc->config.retry_count, (double)bound / 1e6,
               send ? ", and the peer, probed, posted its receive buffers" : "",
               rc->recovery ? "recovering" : "the peer fails (RCMSG_RECOVERY=no)");
    rc_rec_start(rc, peer,
                 (rc_cause_t){.kind = send ? RC_CAUSE_PROBED : RC_CAUSE_STUCK,
                              .code = (int)((now - w->since) / 1000000)},
                 false);
}

void rc_sync_probe_answer(void *arg, int peer, rcmsg_rc_cm_payload_t *answer)
{
    rc_btl_t *rc = arg;
    rc_ep_t *ep = &rc->eps[peer];

    /* the messages the receive buffers hold are taken (kept for the application when the
     * progress thread answers), and the buffers posted again: an RNR wait ends. Not before
     * the layer above is there (rcmsg_init's closing barrier polls the CM before the pml is
     * set up): nothing could take them; the wait ends with init. */
    if (rc->super.recv_cb != NULL) {
        rc_rx_drain(rc);
        rc_rx_repost_held(rc);
    }
    if (ep->qp.qp != NULL) {
        answer->qpn = ep->qp.qp->qp_num;
    }
    answer->seq[0] = ep->sent;
    answer->seq[1] = ep->recvd;
}

void rc_sync_probed(void *arg, int peer, const rcmsg_rc_cm_payload_t *answer)
{
    rc_btl_t *rc = arg;
    rc_ep_t *ep = &rc->eps[peer];
    rc_stuck_t *w = rc->sync.stuck != NULL ? &rc->sync.stuck[peer] : NULL;
    struct ibv_qp_attr attr;
    struct ibv_qp_init_attr init;

    if (w == NULL || w->probed_us == 0 || !rc_sync_watched(rc, peer)) {
        return; /* not ours, or the connection moved on */
    }
    if (w->answered_us != 0) {
        return; /* the first answer to this SEND counts */
    }
    w->answered_us = rcmsg_clock_coarse_us();
    rcmsg_info("rc: peer %d answered the probe of qp 0x%x: its qp 0x%x, it received %llu of "
               "the %llu messages this rank sent; its receive buffers are posted",
               peer, ep->qp.qp->qp_num, answer->qpn, (unsigned long long)answer->seq[1],
               (unsigned long long)ep->sent);
    memset(&attr, 0, sizeof(attr));
    if (ibv_query_qp(ep->qp.qp, &attr, IBV_QP_DEST_QPN, &init) == 0 &&
        attr.dest_qp_num != answer->qpn) {
        rcmsg_warn("rc: qp 0x%x to peer %d sends to qp 0x%x, but the peer's qp is 0x%x; %s",
                   ep->qp.qp->qp_num, peer, attr.dest_qp_num, answer->qpn,
                   rc->recovery ? "recovering" : "the peer fails (RCMSG_RECOVERY=no)");
        w->head = NULL;
        rc_rec_start(rc, peer,
                     (rc_cause_t){.kind = RC_CAUSE_PAIRED,
                                  .code = (int)answer->qpn,
                                  .vendor = attr.dest_qp_num},
                     false);
    }
}

void rc_sync_tick(rc_btl_t *rc)
{
    uint64_t now;

    if (rc->config.qp_sync_us == 0) {
        return;
    }
    now = rcmsg_clock_coarse_us();
    if (now < rc->sync.next_us) {
        return;
    }
    rc->sync.next_us = now + rc->config.qp_sync_us;
    if (rc->sync.stuck == NULL) {
        rc->sync.stuck = calloc((size_t)rc->job.size, sizeof(*rc->sync.stuck));
    }
    for (int peer = 0; peer < rc->job.size; peer++) {
        if (rc_sync_watched(rc, peer)) {
            rc_sync_ep(rc, peer);
        }
        if (rc->sync.stuck != NULL && rc_sync_watched(rc, peer)) { /* (still, after the sync) */
            rc_sync_stuck(rc, peer, now);
        }
    }
}

int rc_sync_probe(rc_btl_t *rc)
{
    uint64_t now = rcmsg_clock_coarse_us();

    if (rc->config.liveness_us == 0 || rc->conn.draining) {
        return -1;
    }
    if (now < rc->sync.probe_next_us) {
        return (int)((rc->sync.probe_next_us - now) / 1000 + 1);
    }
    rc->sync.probe_next_us = now + rc->config.liveness_us;
    if (rc->sync.probe_recvd == NULL &&
        (rc->sync.probe_recvd = calloc((size_t)rc->job.size, sizeof(uint64_t))) == NULL) {
        return -1; /* no memory: the waits still probe */
    }
    for (int peer = 0; peer < rc->job.size; peer++) {
        rc_ep_t *ep = &rc->eps[peer];
        if (ep->qp.qp == NULL || !ep->connected || ep->failed || ep->disconnecting ||
            ep->rec.state != RC_REC_NONE) {
            continue;
        }
        if (ep->recvd != rc->sync.probe_recvd[peer]) {
            rc->sync.probe_recvd[peer] = ep->recvd; /* heard from this round */
            continue;
        }
        if (rc_ping(&rc->super, peer) == RCMSG_OK) {
            rc->sync.probes++;
            rcmsg_trace("rc: progress thread: nothing from peer %d for a round: probed", peer);
        }
    }
    return (int)(rc->config.liveness_us / 1000);
}

void rc_sync_fini(rc_btl_t *rc)
{
    free(rc->sync.probe_recvd);
    rc->sync.probe_recvd = NULL;
    free(rc->sync.stuck);
    rc->sync.stuck = NULL;
}

static const char *rc_rec_state_name(rc_rec_state_t state)
{
    static const char *const names[] = {"none", "draining", "reconnecting"};

    return (unsigned)state < RCMSG_ARRAY_SIZE(names) ? names[state] : "?";
}

void rc_sync_ring_str(const rc_btl_t *rc, const rc_ep_t *ep, char *buf, size_t len)
{
    const rc_wr_t *oldest, *newest;
    unsigned nsig = 0;

    if (ep->ring_count == 0) {
        snprintf(buf, len, "no request outstanding");
        return;
    }
    for (unsigned i = 0; i < ep->ring_count; i++) {
        nsig += ep->ring[(ep->ring_head + i) % rc->sq_depth]->signaled;
    }
    oldest = ep->ring[ep->ring_head];
    newest = ep->ring[(ep->ring_head + ep->ring_count - 1) % rc->sq_depth];
    snprintf(buf, len,
             "%u request(s) outstanding (%u signaled), oldest %s%s%s seq %llu, newest %s%s seq "
             "%llu",
             ep->ring_count, nsig, rc_wr_type_name(oldest->type),
             oldest->signaled ? " signaled" : "", oldest->held ? " held" : "",
             (unsigned long long)oldest->seq, rc_wr_type_name(newest->type),
             newest->signaled ? " signaled" : "", (unsigned long long)newest->seq);
}

static void rc_sync_dump_eps(rc_btl_t *rc);

/* The application's (the SIGUSR1 and stall dumps): inside the gate, as an op (rc_gate.h). */
void rcmsg_rc_btl_dump_state(rcmsg_btl_t *btl)
{
    rc_btl_t *rc = rc_btl_of(btl);

    rc_gate_enter(&rc->gate);
    rc_sync_dump_eps(rc);
    rc_gate_exit(&rc->gate);
}

static void rc_sync_dump_eps(rc_btl_t *rc)
{
    for (int peer = 0; peer < rc->job.size; peer++) {
        rc_ep_t *ep = &rc->eps[peer];
        enum ibv_qp_state hw = IBV_QPS_ERR;
        uint32_t psn[2] = {0, 0};
        char ring[256];
        bool queried;

        if (ep->qp.qp == NULL) {
            if (peer != rc->job.rank && (ep->failed || ep->cm_added)) {
                rcmsg_log_dump("rc qp none peer %d (%s) cm %s", peer,
                               ep->failed ? "failed" : "not connected",
                               rcmsg_rc_cm_state_name(rcmsg_rc_cm_state(rc->cm, peer)));
            }
            continue;
        }
        queried = rcmsg_rc_qp_query(&ep->qp, &hw, &psn[0], &psn[1]) == 0;
        rc_sync_ring_str(rc, ep, ring, sizeof(ring));
        rcmsg_log_dump("rc qp 0x%x peer %d state %s hw %s sq_psn 0x%x rq_psn 0x%x wr_out %u sent "
                       "%llu recvd %llu connected %s failed %s recovery %s recoveries %llu cm %s "
                       "(%s)",
                       ep->qp.qp->qp_num, peer, rcmsg_rc_qp_state_name(ep->qp.state),
                       queried ? rcmsg_rc_qp_state_name(hw) : "(query failed)", psn[0], psn[1],
                       ep->ring_count, (unsigned long long)ep->sent, (unsigned long long)ep->recvd,
                       ep->connected ? "yes" : "no", ep->failed ? "yes" : "no",
                       rc_rec_state_name(ep->rec.state), (unsigned long long)ep->rec.count,
                       rcmsg_rc_cm_state_name(rcmsg_rc_cm_state(rc->cm, peer)), ring);
    }
    rcmsg_log_dump("rc cm: %d qp(s) connected, %d in the pool, %d disconnect(s) outstanding, %d "
                   "recover(ies) under way, %d request slot(s) free of %d, %d bounce buffer(s) "
                   "free of %d",
                   rc->conn.nactive, rc->pool.n, rc->conn.ndisc, rc->rec.n, rc->wr_nfree,
                   rc->wr_total, rc->sbuf_nfree, rc->nsbufs);
}
