/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc's configuration: every RCMSG_* variable rc uses, read once by rcmsg_rc_btl_open into
 * rc_config_t. Connect, the async thread, progress and close use the copy, never the table.
 */
#include "config.h"

#include "rc_iface.h"

#include "base/compiler.h"
#include "base/config_table.h"

/* RCMSG_IB_MTU as the cap of the path MTU (auto: no cap below the largest MTU). */
static const enum ibv_mtu rc_mtu_caps[] = {
    [RCMSG_IB_MTU_AUTO] = IBV_MTU_4096, [RCMSG_IB_MTU_256] = IBV_MTU_256,
    [RCMSG_IB_MTU_512] = IBV_MTU_512,   [RCMSG_IB_MTU_1024] = IBV_MTU_1024,
    [RCMSG_IB_MTU_2048] = IBV_MTU_2048, [RCMSG_IB_MTU_4096] = IBV_MTU_4096,
};
RCMSG_ASSERT_COVERS(rc_mtu_caps, RCMSG_IB_MTU_COUNT);

void rc_config_read(rc_config_t *config)
{
    rcmsg_ib_mtu_t mtu = (rcmsg_ib_mtu_t)rcmsg_config_enum(RCMSG_CFG_IB_MTU);

    config->net_devices = rcmsg_config_list(RCMSG_CFG_NET_DEVICES, &config->nnet_devices);
    config->gid_index = (int)rcmsg_config_int(RCMSG_CFG_GID_INDEX);
    config->gid_index_set = rcmsg_config_is_set(RCMSG_CFG_GID_INDEX);
    config->mtu_cap = rc_mtu_caps[mtu];
    config->ib_timeout = (uint8_t)rcmsg_config_int(RCMSG_CFG_IB_TIMEOUT);
    config->retry_count = (uint8_t)rcmsg_config_int(RCMSG_CFG_IB_RETRY_COUNT);
    config->rnr_timer = (uint8_t)rcmsg_config_int(RCMSG_CFG_IB_RNR_TIMER);
    config->rnr_retry = (uint8_t)rcmsg_config_int(RCMSG_CFG_IB_RNR_RETRY);
    config->sq_depth = (unsigned)rcmsg_config_int(RCMSG_CFG_QP_SEND_DEPTH);
    config->max_inline = (unsigned)rcmsg_config_size(RCMSG_CFG_QP_MAX_INLINE);
    config->signal_interval = (unsigned)rcmsg_config_int(RCMSG_CFG_SIGNAL_INTERVAL);
    config->srq_size = (int)rcmsg_config_int(RCMSG_CFG_SRQ_SIZE);
    config->buf_size = rcmsg_config_size(RCMSG_CFG_SRQ_BUF_SIZE);
    config->send_bufs = (int)rcmsg_config_int(RCMSG_CFG_SEND_BUFS);
    config->poll_batch = (unsigned)rcmsg_config_int(RCMSG_CFG_POLL_BATCH);
    config->drain_timeout_us = rcmsg_config_time_us(RCMSG_CFG_DRAIN_TIMEOUT);
    config->cm_timeout_us = rcmsg_config_time_us(RCMSG_CFG_CM_TIMEOUT);
    config->cm_retries = (unsigned)rcmsg_config_int(RCMSG_CFG_CM_RETRIES);
    config->launcher_timeout_us = rcmsg_config_time_us(RCMSG_CFG_LAUNCHER_TIMEOUT);
    config->connect = (rcmsg_connect_mode_t)rcmsg_config_enum(RCMSG_CFG_CONNECT);
    config->connect_name = rcmsg_config_enum_name(RCMSG_CFG_CONNECT, (int)config->connect);
    config->connect_eager_max = (int)rcmsg_config_int(RCMSG_CFG_CONNECT_EAGER_MAX);
    config->qp_pool = (int)rcmsg_config_int(RCMSG_CFG_QP_POOL);
    config->qp_max_active = (int)rcmsg_config_int(RCMSG_CFG_QP_MAX_ACTIVE);
    config->recovery = rcmsg_config_bool(RCMSG_CFG_RECOVERY);
    config->read_confirm = (rcmsg_read_confirm_t)rcmsg_config_enum(RCMSG_CFG_READ_CONFIRM);
    config->recovery_attempts = (unsigned)rcmsg_config_int(RCMSG_CFG_RECOVERY_ATTEMPTS);
    config->recovery_timeout_us = rcmsg_config_time_us(RCMSG_CFG_RECOVERY_TIMEOUT);
    config->qp_sync_us = rcmsg_config_time_us(RCMSG_CFG_QP_SYNC_INTERVAL);
    config->liveness_us = rcmsg_config_time_us(RCMSG_CFG_LIVENESS_INTERVAL);
    config->eager_rdma = (rcmsg_eager_rdma_t)rcmsg_config_enum(RCMSG_CFG_EAGER_RDMA);
    config->eager_rdma_threshold = (unsigned)rcmsg_config_int(RCMSG_CFG_EAGER_RDMA_THRESHOLD);
    config->eager_rdma_max_peers = (int)rcmsg_config_int(RCMSG_CFG_EAGER_RDMA_MAX_PEERS);
    config->eager_rdma_slots = (unsigned)rcmsg_config_int(RCMSG_CFG_EAGER_RDMA_SLOTS);
    config->eager_rdma_slot_size = rcmsg_config_size(RCMSG_CFG_EAGER_RDMA_SLOT_SIZE);
    config->wait_poll = rcmsg_config_enum(RCMSG_CFG_WAIT_MODE) == RCMSG_WAIT_POLL;
    /* full is refused by rcmsg_init before any transport opens */
    config->control_thread = rcmsg_config_enum(RCMSG_CFG_ASYNC_PROGRESS) != RCMSG_ASYNC_PROGRESS_NO;
}
