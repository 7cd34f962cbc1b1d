/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the thread reading the device's async events (rc_async.c), whose state that file
 * owns.
 */
#ifndef RCMSG_BTL_RC_ASYNC_H
#define RCMSG_BTL_RC_ASYNC_H

#include "btl/btl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct rc_btl;

typedef struct {
    pthread_t thread;
    int wake_fd;
    bool running;
    atomic_int port_up; /* set by the thread on PORT_ACTIVE: reconnects are sent now */
} rc_async_t;

/* rc_async.c: the thread reading the device's async events, and the handling in progress of
 * the endpoints it marked. */
rcmsg_status_t rc_async_start(struct rc_btl *rc);
void rc_async_stop(struct rc_btl *rc);
void rc_async_handle(struct rc_btl *rc);

/* The port came back up since the last call (the reconnects under way are sent now). */
bool rc_async_port_up(struct rc_btl *rc);

#endif /* RCMSG_BTL_RC_ASYNC_H */
