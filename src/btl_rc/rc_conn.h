/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: connections through the CM (rc_conn.c), whose state that file owns: the peers given
 * to connect, eager or lazy, the active set (the peers holding a QP), disconnects and the
 * recycling of idle connections above RCMSG_QP_MAX_ACTIVE.
 */
#ifndef RCMSG_BTL_RC_CONN_H
#define RCMSG_BTL_RC_CONN_H

#include "btl/btl.h"

#include <infiniband/verbs.h>

#include <stdbool.h>
#include <stdint.h>

struct rc_btl;

typedef struct {
    int npeers;          /* peers given to connect */
    bool started;        /* the connects to them have been started (eager) or may start (lazy) */
    bool ready;          /* every one of them is connected */
    uint64_t t0;         /* when they were started */
    bool lazy;           /* RCMSG_CONNECT resolved: connect on the first message */
    unsigned init_tries; /* REQ/REP sends of rcmsg_init's eager connects */
    int *active;         /* [size]: the peers holding a QP, nactive of them */
    int nactive;
    int ndisc;            /* our DREQs outstanding */
    bool recycle_stalled; /* our DREQ went unanswered for the CM's budget: the cap is soft */
    bool refilling;       /* the pool is being refilled, a few QPs per progress call */
    bool draining;        /* finalize's flush began: connections are no longer recycled */
    int *held;            /* [size]: lazy, peers whose REQ the CM keeps until their address is
                             fetched (nheld of them) */
    int nheld;
    int quiet_peer; /* rc_cm_rtr drains the receives of this peer's old QP: its messages
                       are not taken as the new connection's */
    struct ibv_comp_channel *cm_channel; /* the CM's CQ's events, read by the progress thread
                                            (RCMSG_ASYNC_PROGRESS=control); NULL: the CM shares
                                            the data CQs' channel, read by the application */
} rc_conn_t;

/* QPs created per progress call while the pool is refilled (rc_conn.c). */
#define RC_POOL_REFILL_BATCH 4

/* rc_conn.c: at open, before the resources are sized: eager or lazy, the state allocated
 * (RCMSG_ERR_NO_MEMORY); close frees it. */
rcmsg_status_t rc_conn_init(struct rc_btl *rc);
void rc_conn_close(struct rc_btl *rc);

/* Finalize's flush began: no connection is recycled from now on. */
void rc_conn_finalize(struct rc_btl *rc);

/* rc_conn.c: opens the CM of the interface. */
rcmsg_status_t rc_cm_start(struct rc_btl *rc);

/* rc_conn.c: the peer is not connected (send, get): starts connecting it (lazy connect, or a
 * reconnect after a recycle; at the RCMSG_QP_MAX_ACTIVE cap, an idle connection is recycled
 * first). RCMSG_ERR_NO_RESOURCE (try again later), or RCMSG_ERR_CONNECTION when it failed. */
rcmsg_status_t rc_conn_want(struct rc_btl *rc, int peer);

/* rc_conn.c: the CM's share of progress (called every RC_CM_POLL_EVERY calls, or every call
 * while rc->cm_hot): packets, retransmissions, the pool's refill, recycling above the cap. */
int rc_conn_progress(struct rc_btl *rc);

/* rc_conn.c: a message arrived from a peer whose endpoint is not connected (the passive side's
 * RTU may have been lost: the traffic stands for it). */
void rc_conn_heard(struct rc_btl *rc, int peer);

#endif /* RCMSG_BTL_RC_CONN_H */
