/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A software mirror of each RC QP's state. The IB state machine's legal transitions for RC
 * and the attribute mask each needs live in ONE table (rc_qp.c); rcmsg_rc_qp_modify() refuses
 * an illegal transition or a wrong mask before verbs is called, logs every failed
 * ibv_modify_qp with all attributes, and keeps the mirror in step.
 */
#ifndef RCMSG_BTL_RC_QP_H
#define RCMSG_BTL_RC_QP_H

#include "base/log.h"

#include <infiniband/verbs.h>
#include <rcmsg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* X(name): in the order of enum ibv_qp_state */
#define RCMSG_RC_QP_STATE_LIST(X) X(RESET) X(INIT) X(RTR) X(RTS) X(SQD) X(SQE) X(ERR)

typedef struct rcmsg_rc_qp {
    struct ibv_qp *qp;
    enum ibv_qp_state state; /* the mirror */
    int peer;                /* rank at the other end */
    const char *dev_name;
    int port;
    bool retried; /* a failed modify is tried again by the caller: logged as a warning */
} rcmsg_rc_qp_t;

const char *rcmsg_rc_qp_state_name(enum ibv_qp_state state);

/*
 * Is from -> to legal for an RC QP with these attributes? RCMSG_ERR_STATE for an illegal
 * transition; RCMSG_ERR_INVALID_PARAM when a required attribute is missing or one that the
 * transition does not take is present (IBV_QP_STATE is always required). Pure: no verbs.
 * When why is not NULL, a sentence saying what is wrong is written there.
 */
rcmsg_status_t rcmsg_rc_qp_check(enum ibv_qp_state from, enum ibv_qp_state to, int mask, char *why,
                                 size_t len);

/* The attributes an RC transition must have / may have (0, 0 when illegal). */
int rcmsg_rc_qp_required(enum ibv_qp_state from, enum ibv_qp_state to);
int rcmsg_rc_qp_optional(enum ibv_qp_state from, enum ibv_qp_state to);

/* Checked ibv_modify_qp; attr->qp_state is the target. Updates the mirror on success. */
rcmsg_status_t rcmsg_rc_qp_modify(rcmsg_rc_qp_t *qp, struct ibv_qp_attr *attr, int mask);

/* What the device says of the QP now: its state, and its send and receive PSNs when the
 * pointers are not NULL. The mirror is left as it is. 0, or ibv_query_qp's error number. */
int rcmsg_rc_qp_query(const rcmsg_rc_qp_t *qp, enum ibv_qp_state *state_p, uint32_t *sq_psn_p,
                      uint32_t *rq_psn_p);

/* Re-reads the state from the device into the mirror; returns the state read. */
enum ibv_qp_state rcmsg_rc_qp_resync(rcmsg_rc_qp_t *qp);

/*
 * The sender of a receive completion: the rank in its immediate data (imm, valid only when
 * has_imm) must be the peer of the QP it arrived on (qp_peer; -1 when no QP of this process
 * has that number), in a job of `size` ranks where this one is `self`. RCMSG_OK when they
 * agree; otherwise RCMSG_ERR_PEER_DATA, and when why is not NULL a sentence naming both
 * values. Pure: no verbs.
 */
rcmsg_status_t rcmsg_rc_qp_sender_check(bool has_imm, uint32_t imm, int qp_peer, int self, int size,
                                        char *why, size_t len);

/* Writes "attr=value ..." for every attribute in mask into buf. */
void rcmsg_rc_qp_attr_str(const struct ibv_qp_attr *attr, int mask, char *buf, size_t len);

/* Logs one line per QP of the array (entries without a QP skipped) at `level`: peer, qp
 * number, mirror state and the state the device reports (re-synced). */
void rcmsg_rc_qp_dump(rcmsg_rc_qp_t *qps, int n, rcmsg_log_level_t level);

#endif /* RCMSG_BTL_RC_QP_H */
