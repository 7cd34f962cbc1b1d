/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the pool of QPs in INIT (rc_pool.c), owned by that file.
 */
#ifndef RCMSG_BTL_RC_POOL_H
#define RCMSG_BTL_RC_POOL_H

#include "rc_qp.h"

#include "btl/btl.h"

#include <stdbool.h>
#include <stdint.h>

struct rc_btl;

/* A QP in INIT waiting in the pool, with the ring of outstanding requests that goes with it,
 * and the GID of the peer it was last connected to (rc_pool.c: rxe keeps an RC QP's route). */
typedef struct {
    struct ibv_qp *qp;
    struct rc_wr **ring;
    bool used;
    uint8_t gid[16];
} rc_pooled_t;

typedef struct {
    rc_pooled_t *qps; /* n of them, room for cap */
    int n, cap;
    int created;       /* QPs created in all */
    bool route_sticky; /* the device keeps an RC QP's first route (rxe): reuse per GID */
} rc_pool_t;

/* rc_pool.c: QPs in INIT for connects. init: notes whether the device keeps a QP's route; fill:
 * creates QPs until the pool holds `want`; take: the peer gets a QP (from the pool, else a new one)
 * with a fresh psn; put: the peer's QP back to RESET -> INIT and into the pool; destroy: every
 * pooled QP. */
void rc_pool_init(struct rc_btl *rc);
rcmsg_status_t rc_pool_fill(struct rc_btl *rc, int want, const char *why);
rcmsg_status_t rc_pool_take(struct rc_btl *rc, int peer);
void rc_pool_put(struct rc_btl *rc, int peer);
void rc_pool_destroy(struct rc_btl *rc);

/* rc_pool.c: the peer's broken QP is destroyed and replaced by a new one in INIT (rc_rec.c says
 * why never a reset one), with a fresh psn; the endpoint keeps its ring. */
rcmsg_status_t rc_pool_renew(struct rc_btl *rc, int peer);

#endif /* RCMSG_BTL_RC_POOL_H */
