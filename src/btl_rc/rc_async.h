/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the progress thread (rc_async.c), whose state that file owns: it reads the device's
 * async events and, with RCMSG_ASYNC_PROGRESS=control, runs btl_rc's control plane while the
 * application is outside rcmsg (rc_gate.h).
 */
#ifndef RCMSG_BTL_RC_ASYNC_H
#define RCMSG_BTL_RC_ASYNC_H

#include "btl/btl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct rc_btl;

/* The control plane's run (rc_btl.c), called by the thread while it owns btl_rc; returns when
 * to run again, in ms (-1: at the next event). */
typedef int (*rc_control_fn_t)(struct rc_btl *rc);

typedef struct {
    pthread_t thread;
    int wake_fd;
    bool running;
    atomic_int port_up;      /* set by the thread on PORT_ACTIVE: reconnects are sent now */
    rc_control_fn_t control; /* NULL: async events only (RCMSG_ASYNC_PROGRESS=no) */
    unsigned long wakeups;   /* the thread's wakeups (the idle cost, logged at close) */
} rc_async_t;

/* rc_async.c: the thread (control: NULL with RCMSG_ASYNC_PROGRESS=no), and the handling in
 * progress of the endpoints it marked. A thread that cannot start fails the open, with the
 * reason logged. */
rcmsg_status_t rc_async_start(struct rc_btl *rc, rc_control_fn_t control);
void rc_async_stop(struct rc_btl *rc);
void rc_async_handle(struct rc_btl *rc);

/* The port came back up since the last call (the reconnects under way are sent now). */
bool rc_async_port_up(struct rc_btl *rc);

#endif /* RCMSG_BTL_RC_ASYNC_H */
