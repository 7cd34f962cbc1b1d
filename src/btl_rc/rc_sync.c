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

#include <stdlib.h>
#include <string.h>

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
    for (int peer = 0; peer < rc->job.size; peer++) {
        rc_ep_t *ep = &rc->eps[peer];
        if (ep->qp.qp != NULL && ep->connected && !ep->failed && ep->rec.state == RC_REC_NONE) {
            rc_sync_ep(rc, peer);
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
}

static const char *rc_rec_state_name(rc_rec_state_t state)
{
    static const char *const names[] = {"none", "draining", "reconnecting"};

    return (unsigned)state < RCMSG_ARRAY_SIZE(names) ? names[state] : "?";
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
        rcmsg_log_dump("rc qp 0x%x peer %d state %s hw %s sq_psn 0x%x rq_psn 0x%x wr_out %u sent "
                       "%llu recvd %llu connected %s failed %s recovery %s recoveries %llu cm %s",
                       ep->qp.qp->qp_num, peer, rcmsg_rc_qp_state_name(ep->qp.state),
                       queried ? rcmsg_rc_qp_state_name(hw) : "(query failed)", psn[0], psn[1],
                       ep->ring_count, (unsigned long long)ep->sent, (unsigned long long)ep->recvd,
                       ep->connected ? "yes" : "no", ep->failed ? "yes" : "no",
                       rc_rec_state_name(ep->rec.state), (unsigned long long)ep->rec.count,
                       rcmsg_rc_cm_state_name(rcmsg_rc_cm_state(rc->cm, peer)));
    }
    rcmsg_log_dump("rc cm: %d qp(s) connected, %d in the pool, %d disconnect(s) outstanding, %d "
                   "recover(ies) under way, %d request slot(s) free of %d, %d bounce buffer(s) "
                   "free of %d",
                   rc->conn.nactive, rc->pool.n, rc->conn.ndisc, rc->rec.n, rc->wr_nfree,
                   rc->wr_total, rc->sbuf_nfree, rc->nsbufs);
}
