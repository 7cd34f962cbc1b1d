/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the RC verbs transport. One device port per process, a PD, one shared send CQ and
 * one shared receive CQ, an SRQ of pre-posted registered buffers, and one RC QP per peer,
 * all created by rcmsg_rc_btl_open() (QPs left in INIT, receives already posted), and a
 * connection manager on a UD QP; connect() hands the peer's fixed-size address to the CM and
 * connect_progress() takes each QP INIT -> RTR -> RTS through it (rc_conn.c).
 */
#ifndef RCMSG_BTL_RC_BTL_H
#define RCMSG_BTL_RC_BTL_H

#include "base/log.h"
#include "btl/btl.h"

#include <stdint.h>

/* Opens the transport for this job (device choice, PD, CQs, SRQ, a QP per peer). */
rcmsg_status_t rcmsg_rc_btl_open(const rcmsg_btl_job_t *job, rcmsg_btl_t **btl_p);

/* Moves the QP to peer into ERR (for tests of the error path); the failure is then handled
 * as any other: with RCMSG_RECOVERY=yes the connection is recovered (drained, a new QP,
 * reconnected, replayed); with no it is reported, and later sends to that peer fail.
 * RCMSG_ERR_INVALID_PARAM when the peer holds no QP; RCMSG_ERR_STATE while the connection to it
 * is not up (a connect or a recovery under way). */
rcmsg_status_t rcmsg_rc_btl_force_error(rcmsg_btl_t *btl, int peer);

/* As force_error, but as the device's IBV_EVENT_QP_FATAL would: the QP goes to ERR and the
 * event is handled as the async thread's (with recovery: the QP is destroyed and re-created). */
rcmsg_status_t rcmsg_rc_btl_force_fatal(rcmsg_btl_t *btl, int peer);

/* Moves the QP to peer into ERR with ibv_modify_qp directly, leaving the mirror as it is (for
 * tests of the QP state sync, RCMSG_QP_SYNC_INTERVAL: nothing else notices until a post or a
 * completion fails). RCMSG_ERR_INVALID_PARAM without a QP; RCMSG_ERR_STATE while the
 * connection is not up. */
rcmsg_status_t rcmsg_rc_btl_force_qp_err(rcmsg_btl_t *btl, int peer);

/* Makes the QP to peer swallow its requests (for tests of the stuck-queue watch, rc_sync.h):
 * once its outstanding requests completed, it moves to SQD through the mirror (the device stops
 * sending, and neither completes nor fails what is posted); with `marker` a signaled flush is
 * posted, so that a completion is due, else the next SEND is the oldest request (one that may
 * wait on the peer's receive buffers: the watch probes the peer first). The watch then
 * recovers the connection. RCMSG_ERR_INVALID_PARAM without a QP; RCMSG_ERR_STATE while the
 * connection is not up; RCMSG_ERR_IO when the device refuses SQD. */
rcmsg_status_t rcmsg_rc_btl_force_stuck(rcmsg_btl_t *btl, int peer, bool marker);

/* Recoveries of the connection to peer completed so far (both sides count one per recovery
 * of the pair, whichever side saw the error); 0 without rc. */
uint64_t rcmsg_rc_btl_recoveries(rcmsg_btl_t *btl, int peer);

/* Recoveries of the connection to peer started so far: this side found it broken (an error
 * completion, an event, the QP state sync, the peer's reconnect); 0 without rc. */
uint64_t rcmsg_rc_btl_breaks(rcmsg_btl_t *btl, int peer);

/* The requests on the QP to peer's ring: posted and not yet reported complete (a SEND waiting
 * for the peer's receive buffers stays there, and so does an unsignaled one the device has
 * done until a later signaled request completes); 0 without rc. For tests. */
unsigned rcmsg_rc_btl_outstanding(rcmsg_btl_t *btl, int peer);

/* rc's lines of the state dump (RCMSG_STALL_TIMEOUT, SIGUSR1): every QP with its mirrored and
 * hardware state, PSNs, outstanding requests and CM state; the CM's and pools' totals. */
void rcmsg_rc_btl_dump_state(rcmsg_btl_t *btl);

/* Logs every QP's state (mirror re-synced from the device) at `level`. */
void rcmsg_rc_btl_dump(rcmsg_btl_t *btl, rcmsg_log_level_t level);

/* The receive buffer pool (for placement checks) and the NUMA node it is bound to (-1). */
void rcmsg_rc_btl_buffers(rcmsg_btl_t *btl, void **addr_p, size_t *len_p, int *node_p);

/* The largest address blob rcmsg_rc_btl_open() can produce for `size` ranks. */
size_t rcmsg_rc_btl_addr_max(int size);

#endif /* RCMSG_BTL_RC_BTL_H */
