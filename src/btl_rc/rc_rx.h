/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc's receive side (rc_rx.c), a floor beside rc_ep.c:
 *   setup         the SRQ created and filled, at open (before any QP can reach RTR)
 *   poll          polls the receive CQ once and delivers what it took (returns how many)
 *   drain         polls until every completion the CQ held is delivered (before a QP is reset:
 *                 some devices drop the CQEs of a QP that is reset)
 *   repost_held   posts the receive buffers a poll held back, in one call (before a sleep)
 *   retire        a QP of a peer is about to be destroyed (a recovery, a connect restarted):
 *                 a completion of it that comes after its drain is still known as its peer's
 */
#ifndef RCMSG_BTL_RC_RX_H
#define RCMSG_BTL_RC_RX_H

#include "base/config_vars.h"
#include "btl/btl.h"

#include <infiniband/verbs.h>
#include <stdint.h>

/* The receive buffers whose messages were handled and that are not posted again yet: a poll
 * posts them once `defer` are held or the array is full, and rc_arm before a sleep; so that the
 * post does not delay the reply to the message (rc_rx_poll). At most RC_REPOST_DEFER_MAX, and at
 * most 1/16 of the SRQ, are held. */
#define RC_REPOST_DEFER_MAX 32

/* The QPs destroyed last, by number, with their peer: the SRQ and the receive CQ are shared,
 * so a receive that completed on a QP after the drain before its destruction is polled once
 * the peer has a new QP (rc_recv_deliver). Looked up only when a completion names no current
 * QP. */
#define RC_RX_RETIRED 64

typedef struct {
    struct ibv_srq *srq;
    int repost[RCMSG_POLL_BATCH_MAX];
    int nrepost, defer;
    struct {
        uint32_t qpn;
        int peer;
    } retired[RC_RX_RETIRED];
    unsigned nretired; /* retired since open: the next goes at nretired % RC_RX_RETIRED */
} rc_rx_t;

struct rc_btl;

rcmsg_status_t rc_rx_setup(struct rc_btl *rc);
int rc_rx_poll(struct rc_btl *rc);
void rc_rx_drain(struct rc_btl *rc);
void rc_rx_repost_held(struct rc_btl *rc);
void rc_rx_retire(struct rc_btl *rc, uint32_t qpn, int peer);
/* The peer whose QP numbered qpn was retired lately (the newest such), or -1. */
int rc_rx_old_peer(const struct rc_btl *rc, uint32_t qpn);
/* The SRQ destroyed, at close. */
void rc_rx_close(struct rc_btl *rc);

#endif /* RCMSG_BTL_RC_RX_H */
