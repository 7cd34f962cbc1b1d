/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Liveness: a look at the launcher's news of lost ranks (pml_fail.c takes them), probes of
 * silent peers that something is pending from, and the progress function of the pml.
 */
#include "config.h"

#include "pml_internal.h"

#include "base/config_table.h"

#include "base/clock.h"
#include "base/dump_signal.h"
#include "base/watch.h"
#include "progress/progress.h"

#include <stdlib.h>
#include <string.h>

pml_live_t pml_live;

static void pml_watch(void);

/* The watch thread's news (base/watch.h), in the application's context: the launcher's news
 * now, not at the next PML_WATCH_US. */
static void pml_watch_take(void *arg)
{
    (void)arg;
    pml_live.watch_due_us = 0;
    pml_watch();
}

rcmsg_status_t pml_live_init(void)
{
    pml_live.watch_interval_us = rcmsg_config_time_us(RCMSG_CFG_LIVENESS_INTERVAL);
    pml_live.peers = calloc((size_t)pml.size, sizeof(*pml_live.peers));
    if (pml_live.peers == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    return rcmsg_watch_take_add(pml_watch_take, &pml_live);
}

void pml_live_fini(void)
{
    rcmsg_watch_forget(&pml_live);
    atomic_fetch_and(&rcmsg_watch_news, ~RCMSG_WATCH_STOP); /* (set by pml_launcher_lost) */
    free(pml_live.peers);
    memset(&pml_live, 0, sizeof(pml_live));
}

/* Probes peer once per liveness round, unless it was heard from since the last round. */
static void probe_peer(int peer)
{
    pml_live_peer_t *p = &pml_live.peers[peer];
    rcmsg_btl_t *btl = pml.peers[peer].btl;
    rcmsg_status_t s;

    if (pml_peer_failed(peer) || p->probe_epoch == pml_live.watch_epoch) {
        return;
    }
    p->probe_epoch = pml_live.watch_epoch;
    if (pml_peer_rx_seq(peer) != p->heard_seen) {
        p->heard_seen = pml_peer_rx_seq(peer);
        return;
    }
    s = btl->ops->ping(btl, peer);
    rcmsg_debug("liveness: nothing from rank %d for a round: probed (%s)", peer,
                rcmsg_status_name(s));
}

/* Probes every peer something is pending from: the source of a posted receive (every other
 * member of its communicator for ANY_SOURCE), the peer of a send or rendezvous read. */
static void watch_probe(void)
{
    pml_live.watch_epoch++;
    for (uint32_t i = 0; i < (uint32_t)pml_reqs.nreq_chunks * PML_REQ_CHUNK; i++) {
        rcmsg_request_t r = pml_req_at(i);
        const struct rcmsg_comm *comm;
        if (!r->in_use || r->complete || r->kind == PML_REQ_OWNED) {
            continue; /* a collective's own request: its messages are probed as requests */
        }
        if (r->kind == PML_REQ_SEND || r->peer >= 0 || r->src_world >= 0) {
            probe_peer(r->peer >= 0 ? r->peer : r->src_world);
        } else if ((comm = pml_comm_of_ctx(r->ctx)) != NULL) {
            for (int k = 0; k < comm->size; k++) {
                if (k != r->my_rank) {
                    probe_peer(comm->world[k]);
                }
            }
        } else { /* ANY_SOURCE on a freed communicator: any rank may match it */
            for (int k = 0; k < pml.size; k++) {
                probe_peer(k);
            }
        }
    }
}

/* At most every PML_WATCH_US: the launcher's news (a system call), then, every
 * RCMSG_LIVENESS_INTERVAL while requests are pending, probes. By the coarse clock: the look
 * at it costs no system call, even where the precise clock needs one. */
static void pml_watch(void)
{
    rcmsg_status_t s;
    uint64_t now = rcmsg_clock_coarse_us();

    if (pml.lost_launcher != RCMSG_OK || now < pml_live.watch_due_us) {
        return;
    }
    pml_live.watch_due_us = now + PML_WATCH_US;
    s = rcmsg_wireup_poll(pml.w, pml_on_rank_lost, NULL);
    if (s != RCMSG_OK) {
        pml_launcher_lost(s);
        return;
    }
    if (pml_reqs.live_reqs > 0 && rcmsg_deadline_passed_at(pml_live.watch_next, now)) {
        pml_live.watch_next = rcmsg_deadline_after(now, pml_live.watch_interval_us);
        watch_probe();
    }
}

/* An idle round of a blocking call: the wait itself, and liveness after a sleep. */
void pml_idle(unsigned *idle)
{
    if (rcmsg_progress_idle(idle)) {
        /* it slept: few progress calls count towards PML_WATCH_CALLS (a spinning wait makes
         * pml_progress look every PML_WATCH_CALLS calls) */
        pml_watch();
        pml_stall_check();
    }
}

/* The rendezvous steps and the pending peers' queues of a progress call (pml_progress), out of
 * line: a call with neither saves no registers for them. */
static __attribute__((noinline)) int pml_progress_work(void)
{
    int n = 0;

    for (rcmsg_queue_link_t *l = rcmsg_queue_first(&pml_rcv.rndv_active), *next; l != NULL;
         l = next) {
        rcmsg_request_t r = RCMSG_CONTAINER_OF(l, struct rcmsg_request, rndv_link);
        size_t posted = r->posted;
        next = rcmsg_queue_next(l);
        if (pml_rndv_step(r)) {
            rcmsg_queue_remove(&pml_rcv.rndv_active, l);
            n++;
        } else if (r->posted != posted) {
            n++; /* reads went out: their completions come in the next round, not after a yield */
        }
    }
    for (int i = 0; i < pml.npending;) {
        int peer = pml.pending_peers[i];
        n += pml_peer_push(peer);
        if (!pml_peer_has_work(peer) || pml_peer_failed(peer)) {
            pml_peer_unmark_pending(i);
        } else {
            i++;
        }
    }
    return n + pml_snd.credit_wait;
}

int pml_progress(void *arg)
{
    (void)arg;
    if (rcmsg_dump_signal_take()) {
        pml_dump("SIGUSR1");
    }
    if (++pml_live.watch_calls % PML_WATCH_CALLS == 0) {
        pml_watch();
        pml_stall_check();
    }
    pml_snd.credit_wait = false;
    if (rcmsg_queue_empty(&pml_rcv.rndv_active) && pml.npending == 0) {
        return 0;
    }
    return pml_progress_work();
}
