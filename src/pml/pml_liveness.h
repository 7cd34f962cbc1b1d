/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Liveness and the pml's progress function (pml_liveness.c).
 */
#ifndef RCMSG_PML_LIVENESS_H
#define RCMSG_PML_LIVENESS_H

#include "pml_dump.h"

/* A peer's liveness, written here only. */
typedef struct {
    uint32_t heard_seen;  /* the receive path's sequence number at the last liveness look */
    uint64_t probe_epoch; /* liveness round in which this peer was last probed */
} pml_live_peer_t;

typedef struct {
    pml_live_peer_t *peers; /* indexed by world rank */
    unsigned watch_calls;
    uint64_t watch_due_us;       /* the next look at the launcher (coarse clock, pml_watch) */
    rcmsg_deadline_t watch_next; /* the next liveness probe (coarse clock) */
    uint64_t watch_interval_us;  /* RCMSG_LIVENESS_INTERVAL */
    uint64_t watch_epoch;
} pml_live_t;

extern pml_live_t pml_live;

rcmsg_status_t pml_live_init(void);
void pml_live_fini(void);

/* An idle round of a blocking call: the wait itself, and liveness after a sleep. */
void pml_idle(unsigned *idle);
int pml_progress(void *arg);

#endif /* RCMSG_PML_LIVENESS_H */
