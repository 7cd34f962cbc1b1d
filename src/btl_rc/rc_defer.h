/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the calls up (to the layer above: recv_cb, fail_cb, broke_cb, a get's completion,
 * the event queue) of btl_rc, made at once by the application, deferred when the progress
 * thread makes them (rc_defer.c owns the queue). The thread owns btl_rc only while the
 * application is outside it (rc_gate.h), but the layers above are the application's: the
 * thread never calls them. What it would hand up (a message a drain took off the receive CQ,
 * a peer that failed, a read that completed) waits, in order, in this queue, and the
 * application's next poll of the receive CQ hands it up first, before anything newer.
 */
#ifndef RCMSG_BTL_RC_DEFER_H
#define RCMSG_BTL_RC_DEFER_H

#include "btl/btl.h"

#include <rcmsg.h>
#include <stddef.h>

struct rc_btl;
struct rc_defer_item;

typedef struct {
    struct rc_defer_item *head, **tail;
    unsigned n;    /* items queued: read by every poll of the receive CQ */
    int lost_peer; /* a message of this peer could not be kept (no memory): it fails; -1 */
} rc_defer_t;

void rc_defer_init(struct rc_btl *rc);
/* Frees what is queued (close). */
void rc_defer_fini(struct rc_btl *rc);

/* The application hands up what the thread deferred (called with rc->defer.n != 0). */
void rc_defer_flush(struct rc_btl *rc);

/* The calls up of btl_rc: at once from the application, deferred from the thread. */
void rc_up_recv(struct rc_btl *rc, int peer, const void *data, size_t len);
void rc_up_fail(struct rc_btl *rc, int peer, const char *cause);
void rc_up_broke(struct rc_btl *rc, int peer);
void rc_up_complete(struct rc_btl *rc, rcmsg_btl_desc_t *desc, rcmsg_status_t status);
void rc_up_event(struct rc_btl *rc, rcmsg_event_kind_t kind, int peer, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif /* RCMSG_BTL_RC_DEFER_H */
