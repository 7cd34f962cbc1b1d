/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the periodic check of the QP states against the device (rc_sync.c).
 */
#ifndef RCMSG_BTL_RC_SYNC_H
#define RCMSG_BTL_RC_SYNC_H

#include <stdint.h>

struct rc_btl;

typedef struct {
    uint64_t next_us; /* the next QP state sync */
} rc_sync_t;

/* rc_sync.c: the QP state cache checked against the device every RCMSG_QP_SYNC_INTERVAL
 * (a no-op until the period is over). */
void rc_sync_tick(struct rc_btl *rc);

#endif /* RCMSG_BTL_RC_SYNC_H */
