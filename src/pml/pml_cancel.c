/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cancel: rcmsg_cancel, and the CANCEL / CANCEL_ACK exchange that takes back a send its
 * receiver has not matched (the protocol of MPICH's cancel of a send: the sender asks, the
 * receiver removes the message from its unexpected queue if it is still there and answers
 * yes or no).
 *
 * A receive nothing matched leaves the matching queues and completes, cancelled, at once.
 * A send, by where it is:
 *   queued here (no credit, transport full): unlinked and cancelled at once;
 *   on the wire (an EAGER, complete here already, or an RTS whose data stays here): a CANCEL
 *     names it by its sequence number, and the request waits for the answer (cancel_wait),
 *     complete or not: yes cancels it (a rendezvous's registration is released: no FIN will
 *     come), no lets it complete as it would have (a rendezvous at its FIN, which may come
 *     before or after the answer);
 *   a rendezvous whose FIN came, a send that failed: too late, it completes as it is;
 *   on the wire to a peer known lost: it completes with the loss's status (no answer comes).
 * A message the receiver discarded unreceived (its communicator freed there, or the receiver
 * in rcmsg_finalize: pml_msg_refuse) was not received, so a cancel of it takes: the receiver
 * remembers the eager ones it discarded (pml_seqs_t) and answers a CANCEL of one 'taken back';
 * a rendezvous is refused by a FIN marked PML_FIN_REFUSED, and a cancel asked before or after
 * that FIN takes, whatever the CANCEL's answer (the FIN and the answer may come in any order).
 * The receiver answers in its next progress; a lost receiver fails the waiting requests
 * (pml_cancel_peer_failed, from pml_on_peer_failed), so the wait is bounded by the liveness checks.
 */
#include "config.h"

#include "pml_internal.h"
#include "base/mt.h"
#include "progress/progress.h"

#include <stdlib.h>

/* r is cancelled: nothing was sent or received; complete. */
static void cancel_done(rcmsg_request_t r)
{
    if (r->reg != NULL) {
        rcmsg_rcache_put(r->reg);
        r->reg = NULL;
    }
    r->cancelled = true;
    r->cancel_wait = false;
    r->st.error = RCMSG_OK;
    r->st.count = 0;
    r->finished = true;
    r->complete = true;
    pml.activity++;
}

void pml_cancel_refused(rcmsg_request_t r)
{
    cancel_done(r);
}

static rcmsg_status_t cancel_recv(rcmsg_request_t r)
{
    if (rcmsg_match_cancel(&pml_rcv.match, &r->mrecv)) {
        r->st.source = r->src;
        r->st.tag = r->tag;
        cancel_done(r);
    }
    return RCMSG_OK; /* else matched already: it completes with its message */
}

/* A send to this rank itself: no peer has to answer, only this rank's own next rounds (the
 * CANCEL through btl_self, then its answer), so the cancel is settled before rcmsg_cancel
 * returns, as MPICH and Open MPI do: a test right after it tells whether it took (mpi4py's
 * tests then receive the message or not; a cancel still pending made them wait forever for a
 * message it took back). Bounded: an answer needs two rounds. */
#define PML_CANCEL_SELF_ROUNDS 16

static void cancel_self_settle(rcmsg_request_t r)
{
    for (int i = 0; i < PML_CANCEL_SELF_ROUNDS && r->cancel_wait; i++) {
        rcmsg_progress();
    }
}

static rcmsg_status_t cancel_send(rcmsg_request_t r)
{
    rcmsg_pml_rts_t h = {.hdr = {.type = RCMSG_PML_CANCEL,
                                 .ctx = r->ctx,
                                 .src = r->my_rank,
                                 .tag = r->tag,
                                 .len = r->len},
                         .addr = r->seq,
                         .sreq = ((uint64_t)r->gen << 32) | r->index};
    rcmsg_status_t s;

    if (r->queued) {
        pml_sendq_remove(r->peer, r);
        cancel_done(r);
        return RCMSG_OK;
    }
    if (r->refused && !r->cancelled && !r->cancel_wait) {
        cancel_done(r); /* its receiver discarded it unreceived, and told (its FIN) */
        return RCMSG_OK;
    }
    if (r->cancel_wait || r->cancelled || !r->sent || (r->rndv && r->finished) ||
        r->st.error != RCMSG_OK) {
        return RCMSG_OK; /* asked already, or too late: it completes as it is */
    }
    if (pml_peer_failed(r->peer)) {
        /* on the wire to a lost peer: no answer can come, the loss is the outcome, as for a
         * cancel asked just before the loss was known (pml_cancel_peer_failed); the watch
         * thread makes the loss known at once, even while this rank computed */
        r->complete = false;
        pml_req_complete(r, pml_lost_status(r->peer));
        return RCMSG_OK;
    }
    s = pml_queue_ctl(r->peer, &h);
    if (s != RCMSG_OK) {
        return s; /* (logged) the request completes normally */
    }
    r->cancel_wait = true;
    r->cancel_asked = true;
    r->complete = false;
    if (r->peer == pml.rank) {
        cancel_self_settle(r);
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_cancel(rcmsg_request_t *req_p)
{
    RCMSG_MT_GUARD();
    rcmsg_status_t s = pml_check("rcmsg_cancel");

    if (s != RCMSG_OK) {
        return s;
    }
    if (req_p == NULL || *req_p == RCMSG_REQUEST_NULL || !pml_req_slot(*req_p) ||
        !(*req_p)->in_use) { /* pml_req_slot: a handle that is no request is not read */
        rcmsg_error("rcmsg_cancel: %s", req_p == NULL ? "req_p is NULL" : "no such request");
        return RCMSG_ERR_INVALID_PARAM;
    }
    if ((*req_p)->kind == PML_REQ_OWNED) {
        rcmsg_error("rcmsg_cancel: a collective cannot be cancelled");
        return RCMSG_ERR_INVALID_PARAM;
    }
    return (*req_p)->kind == PML_REQ_RECV ? cancel_recv(*req_p) : cancel_send(*req_p);
}

rcmsg_status_t rcmsg_pml_cancel_recv(rcmsg_request_t *req_p)
{
    rcmsg_request_t r = *req_p;

    if (r == NULL || !r->in_use || r->kind != PML_REQ_RECV ||
        !rcmsg_match_cancel(&pml_rcv.match, &r->mrecv)) {
        return RCMSG_ERR_STATE; /* matched already (or not a posted receive): wait for it */
    }
    pml_req_free(r);
    *req_p = RCMSG_REQUEST_NULL;
    return RCMSG_OK;
}

/* ---- the receiver ---------------------------------------------------------------------- */

typedef struct {
    int peer;
    uint32_t seq;
} cancel_key_t;

static bool cancel_is(const rcmsg_match_msg_t *m, void *arg)
{
    const pml_unexp_t *u = RCMSG_MATCH_ITEM(m, pml_unexp_t, m);
    const cancel_key_t *k = arg;

    return u->peer == k->peer && u->h.hdr.seq == k->seq;
}

/* Takes back the unexpected message a CANCEL names; false when it is not there. */
static bool cancel_take(int peer, const rcmsg_pml_rts_t *h)
{
    cancel_key_t k = {.peer = peer, .seq = (uint32_t)h->addr};
    rcmsg_match_msg_t *m =
        rcmsg_match_take_msg(&pml_rcv.match, h->hdr.ctx, h->hdr.src, cancel_is, &k);
    pml_unexp_t *u = m != NULL ? RCMSG_MATCH_ITEM(m, pml_unexp_t, m) : NULL;
    bool same;

    if (u == NULL) {
        return false;
    }
    same = u->h.hdr.tag == h->hdr.tag && u->h.hdr.len == h->hdr.len;
    pml_unexp_forget(u);
    if (u->h.hdr.type == RCMSG_PML_EAGER) {
        pml_credit_owe(peer, 1); /* its eager buffer is free again */
    }
    free(u);
    if (!same) {
        pml_peer_bad(peer,
                     "a CANCEL of its message %u on communicator 0x%x with another tag or length",
                     k.seq, h->hdr.ctx & ~1u);
        return false;
    }
    rcmsg_debug("rank %d took back its %llu-byte message (tag %d) on communicator 0x%x", peer,
                (unsigned long long)h->hdr.len, (int)h->hdr.tag, h->hdr.ctx & ~1u);
    return true;
}

/* A CANCEL is not checked against the communicator that holds its context now: it may come
 * after the one it was sent on was freed and the id reused (the reuse rule orders only the
 * messages sent before a free). The message it names is found by sender and sequence number
 * alone, and checked against it (cancel_take). */
void pml_on_cancel(int peer, const rcmsg_pml_rts_t *h)
{
    rcmsg_pml_rts_t ack = {.hdr = {.type = RCMSG_PML_CANCEL_ACK}, .sreq = h->sreq};
    bool taken;

    /* the message named went before this CANCEL on the same ordered connection */
    if (h->addr > UINT32_MAX || (int32_t)(h->hdr.seq - (uint32_t)h->addr) <= 0) {
        pml_peer_bad(peer, "a CANCEL naming its message %llu, which it has not sent before it (%u)",
                     (unsigned long long)h->addr, h->hdr.seq);
        return;
    }
    taken = cancel_take(peer, h);
    if (pml_peer_failed(peer)) {
        return; /* (cancel_take found it lying) */
    }
    taken = taken || pml_recv_dropped_take(peer, (uint32_t)h->addr);
    ack.status = taken ? 1 : 0;
    pml_queue_ctl(peer, &ack);
}

/* ---- the sender ------------------------------------------------------------------------ */

void pml_on_cancel_ack(int peer, const rcmsg_pml_rts_t *h)
{
    uint32_t index = (uint32_t)h->sreq, gen = (uint32_t)(h->sreq >> 32);
    rcmsg_request_t r = NULL;

    if (index < (uint32_t)pml_reqs.nreq_chunks * PML_REQ_CHUNK) {
        r = pml_req_at(index);
    }
    if (r == NULL || r->gen != gen || !r->in_use || r->kind != PML_REQ_SEND || !r->cancel_wait ||
        r->peer != peer) {
        pml_peer_bad(peer, "a CANCEL_ACK that names no cancel this rank asked of it (0x%llx)",
                     (unsigned long long)h->sreq);
        return;
    }
    if ((h->status != 0 && h->status != 1) ||
        (h->status == 1 && r->rndv && r->finished && !r->refused)) {
        pml_peer_bad(peer, "a CANCEL_ACK with status %d (1: taken back, 0: not) for a send%s",
                     (int)h->status, r->rndv && r->finished ? " whose FIN it sent" : "");
        return;
    }
    if (h->status == 1 || r->refused) { /* refused: discarded unreceived, its FIN said */
        cancel_done(r);
        return;
    }
    r->cancel_wait = false;
    r->complete = r->finished; /* a rendezvous completes at its FIN */
    pml.activity++;
}

void pml_cancel_peer_failed(int peer, rcmsg_status_t status)
{
    for (uint32_t i = 0; i < (uint32_t)pml_reqs.nreq_chunks * PML_REQ_CHUNK; i++) {
        rcmsg_request_t r = pml_req_at(i);
        if (!r->in_use || r->kind != PML_REQ_SEND || !r->cancel_wait || r->peer != peer) {
            continue;
        }
        r->cancel_wait = false;
        pml_req_complete(r, status); /* the answer will not come: the loss is the outcome */
    }
}
