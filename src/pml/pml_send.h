/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The send side (pml_send.c): eager credits, a peer's send queue, control messages.
 */
#ifndef RCMSG_PML_SEND_H
#define RCMSG_PML_SEND_H

#include "pml_req.h"

/* A peer's send side, written here only. */
typedef struct {
    uint32_t seq;         /* the sequence number of the next message to it */
    int credits;          /* eager sends still allowed to this peer */
    int limit;            /* credits lent to it at most: its btl's caps.eager_credits, or
                           * pml.credits (RCMSG_EAGER_CREDITS) */
    int owed;             /* credits to return to this peer (pml_credit_owe) */
    int nctl, capctl;     /* control messages queued, room for */
    rcmsg_pml_rts_t *ctl; /* control messages to send (FIN, BREAK), a growable stack */
    rcmsg_queue_t sendq;  /* sends waiting for credit or room, in order (link) */
} pml_send_peer_t;

typedef struct {
    pml_send_peer_t *peers; /* indexed by world rank */
    bool credit_wait;       /* a send waits a few rounds for credits (progress counts it as work) */
} pml_send_t;

extern pml_send_t pml_snd;

/* Whether enough credits are owed to peer to return them (half of them, in one message). */
static inline bool pml_credits_due(int peer)
{
    return pml_snd.peers[peer].owed >= (pml_snd.peers[peer].limit + 1) / 2;
}

/* An eager buffer of peer's is free again (n of them): its credit goes back with the next
 * message, or in a CREDIT once half of them are owed. */
static inline void pml_credit_owe(int peer, int n)
{
    pml_snd.peers[peer].owed += n;
    if (pml_credits_due(peer)) {
        pml_peer_mark_pending(peer);
    }
}

/* Peer returned n credits (a header's credits field); the queue waiting for them goes on.
 * False, taking none, when more come back than are lent to it. */
static inline bool pml_credits_back(int peer, unsigned n)
{
    pml_send_peer_t *p = &pml_snd.peers[peer];

    if ((int)n > p->limit - p->credits) {
        return false;
    }
    p->credits += (int)n;
    if (!rcmsg_queue_empty(&p->sendq)) {
        pml_peer_mark_pending(peer);
    }
    return true;
}

/* Credits lent to peer (not yet returned). */
static inline int pml_credits_lent(int peer)
{
    return pml_snd.peers[peer].limit - pml_snd.peers[peer].credits;
}

/* Whether a new send to peer must queue behind what waits (sends, control messages). */
static inline bool pml_send_busy(int peer)
{
    return !rcmsg_queue_empty(&pml_snd.peers[peer].sendq) || pml_snd.peers[peer].nctl > 0;
}

/* The send side of every peer: sequence numbers from 0. */
rcmsg_status_t pml_send_init(void);
/* Peer's full credits (its btl's, or RCMSG_EAGER_CREDITS), once pml_peer_link gave its btl. */
void pml_send_link(int peer);
/* Its memory released, its state as before init. */
void pml_send_fini(void);
/* Finalize: of the control messages queued only FINs and CANCEL_ACKs stay; no credits owed. */
void pml_send_ctl_filter(void);
void pml_sendq_remove(int peer, rcmsg_request_t r);

rcmsg_status_t pml_rndv_prepare(rcmsg_request_t r);
rcmsg_status_t pml_send_start(rcmsg_request_t r);
rcmsg_status_t pml_send_now(int peer, uint32_t ctx, int src, int tag, const void *buf, size_t len);
void pml_sendq_push(int peer, rcmsg_request_t r);
int pml_peer_push(int peer);
bool pml_peer_has_work(int peer);
rcmsg_status_t pml_queue_fin(int peer, uint64_t sreq, rcmsg_status_t status);
/* Sends a BYE to peer now (pml.h): RCMSG_ERR_NO_RESOURCE when the transport is full. */
rcmsg_status_t pml_bye_xmit(int peer);
/* Queues control message h (FIN, BREAK) to peer; RCMSG_ERR_CONNECTION when peer is lost. */
rcmsg_status_t pml_queue_ctl(int peer, const rcmsg_pml_rts_t *h);

#endif /* RCMSG_PML_SEND_H */
