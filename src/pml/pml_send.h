/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The send side (pml_send.c): eager credits, a peer's send queue, control messages.
 */
#ifndef RCMSG_PML_SEND_H
#define RCMSG_PML_SEND_H

#include "pml_req.h"

typedef struct {
    bool credit_wait; /* a send waits a few rounds for credits (progress counts it as work) */
} pml_send_t;

extern pml_send_t pml_snd;

rcmsg_status_t pml_rndv_prepare(rcmsg_request_t r);
rcmsg_status_t pml_send_start(rcmsg_request_t r);
rcmsg_status_t pml_send_now(int peer, uint32_t ctx, int src, int tag, const void *buf, size_t len);
void pml_sendq_push(pml_peer_t *p, rcmsg_request_t r);
int pml_peer_push(int peer);
bool pml_peer_has_work(const pml_peer_t *p);
rcmsg_status_t pml_queue_fin(int peer, uint64_t sreq, rcmsg_status_t status);
/* Sends a BYE to peer now (pml.h): RCMSG_ERR_NO_RESOURCE when the transport is full. */
rcmsg_status_t pml_bye_xmit(int peer);
/* Queues control message h (FIN, BREAK) to peer; RCMSG_ERR_CONNECTION when peer is lost. */
rcmsg_status_t pml_queue_ctl(int peer, const rcmsg_pml_rts_t *h);

#endif /* RCMSG_PML_SEND_H */
