/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: recovery of broken connections (rc_rec.c), whose state that file owns (the
 * per-peer state is the endpoint's rc_rec_t, rc_ep.h).
 */
#ifndef RCMSG_BTL_RC_REC_H
#define RCMSG_BTL_RC_REC_H

#include "rc_cm.h"
#include "rc_ep.h"

#include <stdbool.h>

struct rc_btl;

typedef struct {
    int *peers; /* [size]: the peers whose connection recovers, n of them */
    int n;
    rc_wr_t **replay; /* [sq_depth]: scratch of the replay */
} rc_recovery_t;

/* rc_rec.c: recovery of a broken connection (see there).
 *   setup        the sequence window and the replay buffers, at open
 *   start        the connection to peer broke (cause): drain, a new QP, reconnect, replay; or the
 *                peer fails (RCMSG_RECOVERY=no, a fatal cause, too many recoveries in a row)
 *   wc_error     a completion error on the peer's QP: true when a recovery took it (else the
 *                caller reports it and fails the peer, as without recovery)
 *   async        an async event on the peer's QP (rc_async.c), classified
 *   sq_cqe       a send completion of wr while its endpoint drains (ok: it succeeded, it and
 *                the requests before it are done): is the drain over?
 *   progress     the recoveries under way (rc_conn_progress, every call while nrec > 0): a
 *                drained connection with its new QP is handed back to rejoin (rc_conn_rejoin)
 *   connected    the CM connected the pair again (rc_cm_rts): replay what the peer lacks */
rcmsg_status_t rc_rec_setup(struct rc_btl *rc);
void rc_rec_start(struct rc_btl *rc, int peer, rc_cause_t cause, bool severe);
bool rc_rec_wc_error(struct rc_btl *rc, int peer, const struct ibv_wc *wc);
void rc_rec_async(struct rc_btl *rc, int peer, enum ibv_event_type event);
void rc_rec_sq_cqe(struct rc_btl *rc, rc_ep_t *ep, rc_wr_t *wr, bool ok);
/* The connections' reconnect of a recovering peer whose new QP is in INIT (rc_conn_rejoin),
 * passed down to the recovery. */
typedef void (*rc_rejoin_fn_t)(struct rc_btl *rc, int peer);
void rc_rec_progress(struct rc_btl *rc, rc_rejoin_fn_t rejoin);
rcmsg_status_t rc_rec_connected(struct rc_btl *rc, int peer, const rcmsg_rc_cm_payload_t *remote);
/* The CM gave up a recovery's reconnect because a QP transition failed here (ep->rec.retry):
 * true when another attempt is due within RCMSG_RECOVERY_TIMEOUT, the peer's QP renewed (the
 * caller reconnects it, rc_conn_rejoin). */
bool rc_rec_retry(struct rc_btl *rc, int peer);

/* The peer joins the recovering ones that rc_rec_progress walks, unless it is listed already
 * (a recovery completed and the next one begun before rc_rec_progress dropped it). */
void rc_rec_list(struct rc_btl *rc, int peer);

/* The recovery's buffers freed, at close. */
void rc_rec_close(struct rc_btl *rc);

#endif /* RCMSG_BTL_RC_REC_H */
