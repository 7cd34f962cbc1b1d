/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the periodic check of the QP states against the device (rc_sync.c).
 */
#ifndef RCMSG_BTL_RC_SYNC_H
#define RCMSG_BTL_RC_SYNC_H

#include <stdint.h>

struct rc_btl;

typedef struct {
    uint64_t next_us;       /* the next QP state sync */
    uint64_t probe_next_us; /* the progress thread's next liveness round */
    uint64_t *probe_recvd;  /* [job.size] each peer's ep->recvd at the last round (or NULL) */
    unsigned long probes;   /* probes the thread posted */
} rc_sync_t;

/* rc_sync.c: the QP state cache checked against the device every RCMSG_QP_SYNC_INTERVAL
 * (a no-op until the period is over). */
void rc_sync_tick(struct rc_btl *rc);

/* The progress thread only (rc_control), while the application computes: every
 * RCMSG_LIVENESS_INTERVAL, a probe (rc_ping) to each connected peer nothing was received from
 * for a whole round, as a waiting rank's pml probes the peers it waits for: a dead peer's
 * probe runs out of retries, and its recovery, finding nobody, fails it within the same bound
 * (docs/liveness.md). Not once finalize began. Returns the ms to the next round. */
int rc_sync_probe(struct rc_btl *rc);
void rc_sync_fini(struct rc_btl *rc);

#endif /* RCMSG_BTL_RC_SYNC_H */
