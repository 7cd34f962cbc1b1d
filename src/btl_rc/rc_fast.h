/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: eager over RDMA WRITE (rc_fast.c): the rings this rank polls, owned by that file
 * (the per-peer state is the endpoint's rc_fast_t, rc_ep.h).
 */
#ifndef RCMSG_BTL_RC_FAST_H
#define RCMSG_BTL_RC_FAST_H

#include "rc_ep.h"

#include <stdbool.h>
#include <stddef.h>

struct rc_btl;

typedef struct {
    int *rx; /* the peers whose ring this rank polls, nrx of them (at most max) */
    int nrx, max;
    unsigned threshold; /* messages before a ring is asked (0 with RCMSG_EAGER_RDMA=yes) */
    bool on;
} rc_fast_rings_t;

/* rc_fast.c: eager over RDMA WRITE (see there).
 *   setup     the settings, at open (after rc_rec_setup)
 *   send      the message goes into the peer's ring: RCMSG_OK (posted), RCMSG_ERR_NO_RESOURCE
 *             (try again), RCMSG_ERR_UNSUPPORTED (no ring, no free slot, too long, a packet
 *             more than its SEND, no bounce buffer: send it by SEND)
 *   poll      delivers what the rings hold, in sequence (returns how many)
 *   catch_up  delivers the peer's ring messages that precede sequence number seq (a SEND
 *             whose CQE came before the ring message before it was seen)
 *   ctl       a control message of the peer's rc (ctl_bit in its immediate data)
 *   drop      the pair's rings are forgotten (recovery, disconnect), this side's freed
 *   close     every ring freed */
rcmsg_status_t rc_fast_setup(struct rc_btl *rc);
rcmsg_status_t rc_fast_send(struct rc_btl *rc, rc_ep_t *ep, int peer, const void *hdr,
                            size_t hdr_len, const void *payload, size_t len);
int rc_fast_poll(struct rc_btl *rc);
void rc_fast_catch_up(struct rc_btl *rc, int peer);
void rc_fast_ctl(struct rc_btl *rc, int peer, const void *data, size_t len);
void rc_fast_drop(struct rc_btl *rc, int peer);
void rc_fast_close(struct rc_btl *rc);

#endif /* RCMSG_BTL_RC_FAST_H */
