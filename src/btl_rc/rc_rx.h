/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc's receive side (rc_rx.c), a floor beside rc_ep.c:
 *   setup         the SRQ created and filled, at open (before any QP can reach RTR)
 *   poll          polls the receive CQ once and delivers what it took (returns how many)
 *   drain         polls until every completion the CQ held is delivered (before a QP is reset:
 *                 some devices drop the CQEs of a QP that is reset)
 *   repost_held   posts the receive buffers a poll held back, in one call (before a sleep)
 */
#ifndef RCMSG_BTL_RC_RX_H
#define RCMSG_BTL_RC_RX_H

#include "btl/btl.h"

struct rc_btl;

rcmsg_status_t rc_rx_setup(struct rc_btl *rc);
int rc_rx_poll(struct rc_btl *rc);
void rc_rx_drain(struct rc_btl *rc);
void rc_rx_repost_held(struct rc_btl *rc);

#endif /* RCMSG_BTL_RC_RX_H */
