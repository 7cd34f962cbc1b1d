/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cancel (pml_cancel.c): rcmsg_cancel and the CANCEL / CANCEL_ACK exchange.
 */
#ifndef RCMSG_PML_CANCEL_H
#define RCMSG_PML_CANCEL_H

#include "pml_break.h"

/* A CANCEL from peer (h: the message to take back, the sender's request id) and its answer. */
void pml_on_cancel(int peer, const rcmsg_pml_rts_t *h);
void pml_on_cancel_ack(int peer, const rcmsg_pml_rts_t *h);
/* peer is lost: every send to it that awaits a cancel answer completes with status. */
void pml_cancel_peer_failed(int peer, rcmsg_status_t status);
/* r's receiver refused it (a FIN marked PML_FIN_REFUSED) after answering its CANCEL: r is
 * cancelled (it was never received). */
void pml_cancel_refused(rcmsg_request_t r);

#endif /* RCMSG_PML_CANCEL_H */
