/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A lost peer: the transports' failure callback, the launcher's news of a lost rank, and the
 * end of the job when the launcher is gone. What waits for the peer fails: receives, sends,
 * rendezvous reads, cancels, and the collectives of its communicators (pml_break.c).
 */
#include "config.h"

#include "pml_internal.h"

#include "base/event.h"
#include "base/watch.h"

#include <stdlib.h>
#include <string.h>

void pml_on_rank_lost(void *arg, int rank)
{
    (void)arg;
    if (rank >= 0 && rank < pml.size && rank != pml.rank && !pml_peer_failed(rank)) {
        rcmsg_error("the launcher reports that rank %d terminated: requests involving it fail "
                    "with %s",
                    rank, rcmsg_status_name(RCMSG_ERR_CONNECTION));
        pml_peer_set_reported(rank); /* every rank hears it: nobody needs a BREAK */
        pml_on_peer_failed(NULL, rank, RCMSG_ERR_CONNECTION, "the launcher reports it terminated");
    }
}

/* Without the launcher the job is over: every request fails with status, and so does every
 * later call that starts an operation (pml_check). */
void pml_launcher_lost(rcmsg_status_t status)
{
    pml.lost_launcher = status;
    atomic_fetch_or(&rcmsg_watch_news, RCMSG_WATCH_STOP); /* every call's check refuses now */
    for (int i = 0; i < pml.size; i++) {
        pml_on_peer_failed(NULL, i, status, "the launcher is gone: the job is over");
    }
}

void pml_on_peer_failed(void *arg, int peer, rcmsg_status_t status, const char *cause)
{
    (void)arg;
    if (pml_peer_failed(peer)) {
        return;
    }
    if (status == RCMSG_ERR_CONNECTION && pml.lost_launcher == RCMSG_OK &&
        rcmsg_wireup_poll(pml.w, pml_on_rank_lost, NULL) != RCMSG_OK) {
        pml_launcher_lost(RCMSG_ERR_LAUNCHER); /* the job is over: that is why the peer is gone */
        return;
    }
    pml_peer_set_lost(peer, status);
    pml.any_failed = true;
    if (peer != pml.rank) {
        rcmsg_event_post(RCMSG_EVENT_PEER_FAILED, peer, pml.peers[peer].btl->name, status, "%s",
                         cause != NULL ? cause : rcmsg_strerror(status));
    }
    pml_comms_break(peer, pml_lost_status(peer), -1);
    /* receives posted for this peer fail; ANY_SOURCE ones once no other rank can match them;
     * those of the collectives of a communicator with peer among its members */
    pml_recv_fail_orphans();
    /* rendezvous receives from peer: marked; they complete in pml_rndv_step once no read of
     * theirs is in flight. Rendezvous sends to peer that wait for their FIN, and sends that
     * wait for a cancel's answer: complete now.
     * Queued sends fail when pml_peer_push unlinks them. */
    for (rcmsg_queue_link_t *l = rcmsg_queue_first(&pml_rcv.rndv_active); l != NULL;
         l = rcmsg_queue_next(l)) {
        rcmsg_request_t r = RCMSG_CONTAINER_OF(l, struct rcmsg_request, rndv_link);
        if (r->peer == peer && r->st.error == RCMSG_OK) {
            r->st.error = status;
        }
    }
    for (uint32_t i = 0; i < (uint32_t)pml_reqs.nreq_chunks * PML_REQ_CHUNK; i++) {
        rcmsg_request_t r = pml_req_at(i);
        if (r->in_use && r->kind == PML_REQ_SEND && r->rndv && !r->queued && !r->finished &&
            r->peer == peer) {
            pml_req_complete(r, status);
        }
    }
    pml_cancel_peer_failed(peer, status); /* sends whose cancel awaits its answer */
    pml_peer_mark_pending(peer);
}
