/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the periodic check of the QP states against the device (rc_sync.c).
 */
#ifndef RCMSG_BTL_RC_SYNC_H
#define RCMSG_BTL_RC_SYNC_H

#include "rc_cm.h"

#include <stddef.h>
#include <stdint.h>

struct rc_btl;

/* The stuck-queue watch of one endpoint: its oldest outstanding request when first seen. */
typedef struct {
    const void *head;     /* the rc_wr_t, or NULL when no completion is due */
    uint32_t gen;         /* its generation then */
    uint64_t since;       /* when it was first seen at the head */
    uint64_t probed_us;   /* a SEND there for 1 s: when the peer was last probed (0: not) */
    uint64_t answered_us; /* when the peer answered (0: not yet) */
} rc_stuck_t;

typedef struct {
    uint64_t next_us;       /* the next QP state sync */
    rc_stuck_t *stuck;      /* [job.size] the stuck-queue watch (or NULL: no memory) */
    uint64_t probe_next_us; /* the progress thread's next liveness round */
    uint64_t *probe_recvd;  /* [job.size] each peer's ep->recvd at the last round (or NULL) */
    unsigned long probes;   /* probes the thread posted */
} rc_sync_t;

/* rc_sync.c: the QP state cache checked against the device every RCMSG_QP_SYNC_INTERVAL
 * (a no-op until the period is over), and each send queue against the device's retry bound: a
 * QP that neither completes nor fails a signaled request for 4 times its retries' time, the
 * time its bytes take at 10 MB/s and 5 s more is recovered as broken (under link flaps a
 * Soft-RoCE pair was seen to hold requests for minutes, both QPs in RTS). A SEND at the head
 * with RCMSG_IB_RNR_RETRY=7 may wait on the peer's receive buffers for as long as the peer
 * computes: after 1 s there the peer is probed through the CM (rc_cm.h, "Probe"), and again each
 * second: its answer posts its receive buffers again (its progress thread takes the messages
 * they held), so sends to a rank that computes move on. Past the bound such a SEND counts as
 * stuck only when the peer answered more than RC_STUCK_CONFIRM_US before: a peer that does not
 * answer (it computes without RCMSG_ASYNC_PROGRESS) is never recovered from. */
void rc_sync_tick(struct rc_btl *rc);

/* The CM's probe ops (rcmsg_rc_cm_ops_t): the peer asks about its stuck SEND (this side's
 * receive buffers posted again, *answer filled), and the peer's answer to this side's probe. */
void rc_sync_probe_answer(void *arg, int peer, rcmsg_rc_cm_payload_t *answer);
void rc_sync_probed(void *arg, int peer, const rcmsg_rc_cm_payload_t *answer);

/* The progress thread only (rc_control), while the application computes: every
 * RCMSG_LIVENESS_INTERVAL, a probe (rc_ping) to each connected peer nothing was received from
 * for a whole round, as a waiting rank's pml probes the peers it waits for: a dead peer's
 * probe runs out of retries, and its recovery, finding nobody, fails it within the same bound
 * (docs/liveness.md). Not once finalize began. Returns the ms to the next round. */
int rc_sync_probe(struct rc_btl *rc);
void rc_sync_fini(struct rc_btl *rc);

struct rc_ep;
/* The outstanding requests of ep's QP in words, for the dumps: how many, how many signaled,
 * the oldest and the newest (a hang's first question: is a completion due, and for what). */
void rc_sync_ring_str(const struct rc_btl *rc, const struct rc_ep *ep, char *buf, size_t len);

#endif /* RCMSG_BTL_RC_SYNC_H */
