/* SPDX-License-Identifier: BSD-3-Clause */
/* The RC QP state machine: one table of legal transitions and their attribute masks. */
#include "config.h"

#include "rc_qp.h"

#include "base/stats.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define QPS_N (IBV_QPS_ERR + 1)

#define M(x) IBV_QP_##x
/* Attributes each RC transition requires and may take (IB spec, "QP state transitions").
 * IBV_QP_STATE is implied. A zero row (req = opt = 0) with legal = 0 is illegal. */
typedef struct {
    unsigned char legal;
    int req;
    int opt;
} qp_transition_t;

static const qp_transition_t qp_table[QPS_N][QPS_N] =
    {
        [IBV_QPS_RESET] =
            {
                [IBV_QPS_RESET] = {1, 0, 0},
                [IBV_QPS_INIT] = {1, M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS), 0},
                [IBV_QPS_ERR] = {1, 0, 0},
            },
        [IBV_QPS_INIT] =
            {
                [IBV_QPS_RESET] = {1, 0, 0},
                [IBV_QPS_ERR] = {1, 0, 0},
                [IBV_QPS_INIT] = {1, 0, M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS)},
                [IBV_QPS_RTR] = {1,
                                 M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN) |
                                     M(MAX_DEST_RD_ATOMIC) | M(MIN_RNR_TIMER),
                                 M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX)},
            },
        [IBV_QPS_RTR] =
            {
                [IBV_QPS_RESET] = {1, 0, 0},
                [IBV_QPS_ERR] = {1, 0, 0},
                [IBV_QPS_RTS] = {1,
                                 M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) | M(SQ_PSN) |
                                     M(MAX_QP_RD_ATOMIC),
                                 M(CUR_STATE) | M(ALT_PATH) | M(ACCESS_FLAGS) | M(MIN_RNR_TIMER) |
                                     M(PATH_MIG_STATE)},
            },
        [IBV_QPS_RTS] =
            {
                [IBV_QPS_RESET] = {1, 0, 0},
                [IBV_QPS_ERR] = {1, 0, 0},
                [IBV_QPS_RTS] = {1, 0,
                                 M(CUR_STATE) | M(ACCESS_FLAGS) | M(ALT_PATH) | M(PATH_MIG_STATE) |
                                     M(MIN_RNR_TIMER)},
                [IBV_QPS_SQD] = {1, 0, M(EN_SQD_ASYNC_NOTIFY)},
            },
        [IBV_QPS_SQD] =
            {
                [IBV_QPS_RESET] = {1, 0, 0},
                [IBV_QPS_ERR] = {1, 0, 0},
                [IBV_QPS_RTS] = {1, 0,
                                 M(CUR_STATE) | M(ALT_PATH) | M(ACCESS_FLAGS) | M(MIN_RNR_TIMER) |
                                     M(PATH_MIG_STATE)},
                [IBV_QPS_SQD] = {1, 0,
                                 M(AV) | M(ALT_PATH) | M(ACCESS_FLAGS) | M(PKEY_INDEX) |
                                     M(MIN_RNR_TIMER) | M(PATH_MIG_STATE) | M(TIMEOUT) |
                                     M(RETRY_CNT) | M(RNR_RETRY) | M(MAX_QP_RD_ATOMIC) |
                                     M(MAX_DEST_RD_ATOMIC)},
            },
        /* An RC QP never enters SQE (a send error takes it to ERR); SQE -> RTS exists for UC/UD
         * only, so for RC the state can only be left by reset or error. */
        [IBV_QPS_SQE] =
            {
                [IBV_QPS_RESET] = {1, 0, 0},
                [IBV_QPS_ERR] = {1, 0, 0},
            },
        [IBV_QPS_ERR] =
            {
                [IBV_QPS_RESET] = {1, 0, 0},
                [IBV_QPS_ERR] = {1, 0, 0},
            },
};
#undef M

static const char *const qp_state_names[QPS_N] = {
#define QP_STATE_NAME(name) #name,
    RCMSG_RC_QP_STATE_LIST(QP_STATE_NAME)
#undef QP_STATE_NAME
};

const char *rcmsg_rc_qp_state_name(enum ibv_qp_state state)
{
    return (unsigned)state < QPS_N ? qp_state_names[state] : "UNKNOWN";
}

static bool qp_state_valid(enum ibv_qp_state s)
{
    return (unsigned)s < QPS_N;
}

int rcmsg_rc_qp_required(enum ibv_qp_state from, enum ibv_qp_state to)
{
    if (!qp_state_valid(from) || !qp_state_valid(to) || !qp_table[from][to].legal) {
        return 0;
    }
    return IBV_QP_STATE | qp_table[from][to].req;
}

int rcmsg_rc_qp_optional(enum ibv_qp_state from, enum ibv_qp_state to)
{
    if (!qp_state_valid(from) || !qp_state_valid(to) || !qp_table[from][to].legal) {
        return 0;
    }
    return qp_table[from][to].opt;
}

rcmsg_status_t rcmsg_rc_qp_check(enum ibv_qp_state from, enum ibv_qp_state to, int mask, char *why,
                                 size_t len)
{
    int req, allowed;
    char buf[512];

    if (!qp_state_valid(from) || !qp_state_valid(to) || !qp_table[from][to].legal) {
        if (why != NULL) {
            snprintf(why, len, "%s -> %s is not a legal RC QP transition",
                     rcmsg_rc_qp_state_name(from), rcmsg_rc_qp_state_name(to));
        }
        return RCMSG_ERR_STATE;
    }
    req = rcmsg_rc_qp_required(from, to);
    allowed = req | rcmsg_rc_qp_optional(from, to);
    if ((mask & req) != req) {
        if (why != NULL) {
            struct ibv_qp_attr none = {0};
            rcmsg_rc_qp_attr_str(&none, req & ~mask, buf, sizeof(buf));
            snprintf(why, len, "%s -> %s lacks required attributes: %s",
                     rcmsg_rc_qp_state_name(from), rcmsg_rc_qp_state_name(to), buf);
        }
        return RCMSG_ERR_INVALID_PARAM;
    }
    if ((mask & ~allowed) != 0) {
        if (why != NULL) {
            struct ibv_qp_attr none = {0};
            rcmsg_rc_qp_attr_str(&none, mask & ~allowed, buf, sizeof(buf));
            snprintf(why, len, "%s -> %s does not take attributes: %s",
                     rcmsg_rc_qp_state_name(from), rcmsg_rc_qp_state_name(to), buf);
        }
        return RCMSG_ERR_INVALID_PARAM;
    }
    return RCMSG_OK;
}

void rcmsg_rc_qp_attr_str(const struct ibv_qp_attr *a, int mask, char *buf, size_t len)
{
    size_t n = 0;
    char gid[64] = "";

#define APPEND(bit, ...)                                                                           \
    do {                                                                                           \
        if ((mask & (bit)) && n < len) {                                                           \
            n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__);                                  \
        }                                                                                          \
    } while (0)
    buf[0] = '\0';
    APPEND(IBV_QP_STATE, "state=%s ", rcmsg_rc_qp_state_name(a->qp_state));
    APPEND(IBV_QP_CUR_STATE, "cur_state=%s ", rcmsg_rc_qp_state_name(a->cur_qp_state));
    APPEND(IBV_QP_PKEY_INDEX, "pkey_index=%u ", a->pkey_index);
    APPEND(IBV_QP_PORT, "port=%u ", a->port_num);
    APPEND(IBV_QP_ACCESS_FLAGS, "access=0x%x ", a->qp_access_flags);
    if (mask & IBV_QP_AV) {
        const uint8_t *g = a->ah_attr.grh.dgid.raw;
        snprintf(gid, sizeof(gid), "%02x%02x:%02x%02x:...:%02x%02x:%02x%02x", g[0], g[1], g[2],
                 g[3], g[12], g[13], g[14], g[15]);
    }
    APPEND(IBV_QP_AV, "av={dlid=%u sl=%u port=%u is_global=%u dgid=%s sgid_index=%u hop_limit=%u} ",
           a->ah_attr.dlid, a->ah_attr.sl, a->ah_attr.port_num, a->ah_attr.is_global, gid,
           a->ah_attr.grh.sgid_index, a->ah_attr.grh.hop_limit);
    APPEND(IBV_QP_PATH_MTU, "path_mtu=%d ", a->path_mtu >= 1 ? 128 << a->path_mtu : 0);
    APPEND(IBV_QP_DEST_QPN, "dest_qpn=0x%x ", a->dest_qp_num);
    APPEND(IBV_QP_RQ_PSN, "rq_psn=0x%x ", a->rq_psn);
    APPEND(IBV_QP_MAX_DEST_RD_ATOMIC, "max_dest_rd_atomic=%u ", a->max_dest_rd_atomic);
    APPEND(IBV_QP_MIN_RNR_TIMER, "min_rnr_timer=%u ", a->min_rnr_timer);
    APPEND(IBV_QP_TIMEOUT, "timeout=%u ", a->timeout);
    APPEND(IBV_QP_RETRY_CNT, "retry_cnt=%u ", a->retry_cnt);
    APPEND(IBV_QP_RNR_RETRY, "rnr_retry=%u ", a->rnr_retry);
    APPEND(IBV_QP_SQ_PSN, "sq_psn=0x%x ", a->sq_psn);
    APPEND(IBV_QP_MAX_QP_RD_ATOMIC, "max_rd_atomic=%u ", a->max_rd_atomic);
    APPEND(IBV_QP_ALT_PATH, "alt_path ");
    APPEND(IBV_QP_PATH_MIG_STATE, "path_mig_state=%d ", (int)a->path_mig_state);
    APPEND(IBV_QP_EN_SQD_ASYNC_NOTIFY, "en_sqd_async_notify=%u ", a->en_sqd_async_notify);
    APPEND(IBV_QP_QKEY, "qkey=0x%x ", a->qkey);
    APPEND(IBV_QP_CAP, "cap ");
#undef APPEND
    if (n > 0 && n <= len && buf[n - 1] == ' ') {
        buf[n - 1] = '\0';
    }
}

rcmsg_status_t rcmsg_rc_qp_modify(rcmsg_rc_qp_t *qp, struct ibv_qp_attr *attr, int mask)
{
    char why[512], attrs[768];
    rcmsg_status_t status;
    int rc;

    status = rcmsg_rc_qp_check(qp->state, attr->qp_state, mask, why, sizeof(why));
    if (status != RCMSG_OK) {
        rcmsg_error("refused to modify qp 0x%x (peer %d, %s:%d): %s", qp->qp->qp_num, qp->peer,
                    qp->dev_name, qp->port, why);
        return status;
    }
    rc = ibv_modify_qp(qp->qp, attr, mask);
    if (rc != 0) {
        rcmsg_rc_qp_attr_str(attr, mask, attrs, sizeof(attrs));
        rcmsg_log(qp->retried ? RCMSG_LOG_WARN : RCMSG_LOG_ERROR,
                  "ibv_modify_qp %s -> %s failed on qp 0x%x (peer %d, %s:%d): %s%s; attributes: "
                  "%s",
                  rcmsg_rc_qp_state_name(qp->state), rcmsg_rc_qp_state_name(attr->qp_state),
                  qp->qp->qp_num, qp->peer, qp->dev_name, qp->port, strerror(rc),
                  qp->retried ? " (a recovery: tried again with a new qp)" : "", attrs);
        rcmsg_rc_qp_resync(qp);
        return RCMSG_ERR_IO;
    }
    if (rcmsg_log_enabled(RCMSG_LOG_TRACE)) {
        rcmsg_rc_qp_attr_str(attr, mask, attrs, sizeof(attrs));
        rcmsg_trace("qp 0x%x (peer %d) %s -> %s: %s", qp->qp->qp_num, qp->peer,
                    rcmsg_rc_qp_state_name(qp->state), rcmsg_rc_qp_state_name(attr->qp_state),
                    attrs);
    }
    qp->state = attr->qp_state;
    rcmsg_stat_add(qp->peer, RCMSG_STAT_qp_transitions, 1);
    return RCMSG_OK;
}

int rcmsg_rc_qp_query(const rcmsg_rc_qp_t *qp, enum ibv_qp_state *state_p, uint32_t *sq_psn_p,
                      uint32_t *rq_psn_p)
{
    struct ibv_qp_attr attr;
    struct ibv_qp_init_attr init;
    int mask = IBV_QP_STATE | (sq_psn_p != NULL ? IBV_QP_SQ_PSN : 0) |
               (rq_psn_p != NULL ? IBV_QP_RQ_PSN : 0);
    int rc;

    memset(&attr, 0, sizeof(attr));
    rc = ibv_query_qp(qp->qp, &attr, mask, &init);
    if (rc != 0) {
        return rc;
    }
    *state_p = attr.qp_state;
    if (sq_psn_p != NULL) {
        *sq_psn_p = attr.sq_psn;
    }
    if (rq_psn_p != NULL) {
        *rq_psn_p = attr.rq_psn;
    }
    return 0;
}

enum ibv_qp_state rcmsg_rc_qp_resync(rcmsg_rc_qp_t *qp)
{
    enum ibv_qp_state hw;
    int rc = rcmsg_rc_qp_query(qp, &hw, NULL, NULL);

    if (rc != 0) {
        rcmsg_warn("ibv_query_qp on qp 0x%x (peer %d) failed: %s; mirror says %s", qp->qp->qp_num,
                   qp->peer, strerror(rc), rcmsg_rc_qp_state_name(qp->state));
        return qp->state;
    }
    if (hw != qp->state) {
        rcmsg_debug("qp 0x%x (peer %d): mirror %s re-synced to %s", qp->qp->qp_num, qp->peer,
                    rcmsg_rc_qp_state_name(qp->state), rcmsg_rc_qp_state_name(hw));
        qp->state = hw;
    }
    return qp->state;
}

void rcmsg_rc_qp_dump(rcmsg_rc_qp_t *qps, int n, rcmsg_log_level_t level)
{
    if (!rcmsg_log_enabled(level)) {
        return;
    }
    for (int i = 0; i < n; i++) {
        const int mask = IBV_QP_STATE | IBV_QP_DEST_QPN | IBV_QP_SQ_PSN | IBV_QP_RQ_PSN;
        struct ibv_qp_attr attr;
        struct ibv_qp_init_attr init;
        enum ibv_qp_state mirror;
        if (qps[i].qp == NULL) {
            continue;
        }
        mirror = qps[i].state;
        memset(&attr, 0, sizeof(attr));
        if (ibv_query_qp(qps[i].qp, &attr, mask, &init) != 0) {
            rcmsg_log(level, "qp 0x%x peer %d %s:%d state %s (device: ibv_query_qp failed: %m)",
                      qps[i].qp->qp_num, qps[i].peer, qps[i].dev_name, qps[i].port,
                      rcmsg_rc_qp_state_name(mirror));
            continue;
        }
        /* the peer's qp and both PSNs: set beside the peer's dump, they show which side of a
         * connection stopped sending or receiving */
        rcmsg_log(level,
                  "qp 0x%x peer %d %s:%d state %s (device: %s), peer's qp 0x%x, sq_psn 0x%x "
                  "rq_psn 0x%x",
                  qps[i].qp->qp_num, qps[i].peer, qps[i].dev_name, qps[i].port,
                  rcmsg_rc_qp_state_name(mirror), rcmsg_rc_qp_state_name(attr.qp_state),
                  attr.dest_qp_num, attr.sq_psn, attr.rq_psn);
    }
}

rcmsg_status_t rcmsg_rc_qp_sender_check(bool has_imm, uint32_t imm, int qp_peer, int self, int size,
                                        char *why, size_t len)
{
    if (has_imm && qp_peer >= 0 && imm == (uint32_t)qp_peer && qp_peer != self && qp_peer < size) {
        return RCMSG_OK;
    }
    if (why == NULL) {
        return RCMSG_ERR_PEER_DATA;
    }
    if (qp_peer < 0) {
        snprintf(why, len, "it arrived on a qp that belongs to no peer");
    } else if (!has_imm) {
        snprintf(why, len, "it carries no sender rank (immediate data), on the qp of peer %d",
                 qp_peer);
    } else if (imm >= (uint32_t)size || imm == (uint32_t)self) {
        snprintf(why, len,
                 "its sender rank %u (immediate data) is not a peer of this rank (%d of "
                 "%d ranks); it arrived on the qp of peer %d",
                 imm, self, size, qp_peer);
    } else {
        snprintf(why, len,
                 "its sender rank %u (immediate data) differs from peer %d, whose qp it "
                 "arrived on",
                 imm, qp_peer);
    }
    return RCMSG_ERR_PEER_DATA;
}
