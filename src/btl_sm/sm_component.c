/* SPDX-License-Identifier: BSD-3-Clause */
/* The sm component: opened when this node runs other ranks; reaches those of this node. */
#include "config.h"

#include "sm_btl.h"

#include "btl/btl_component.h"

static size_t sm_addr_max(const rcmsg_btl_job_t *job)
{
    (void)job;
    return RCMSG_SM_ADDR_LEN; /* fixed: sm_addr_pack refuses a shorter buffer */
}

/* Shared memory works with a peer whose address carries this node's key. */
static bool sm_reachable(rcmsg_btl_t *btl, int peer, const void *addr, size_t len)
{
    (void)btl;
    (void)peer;
    return rcmsg_sm_addr_node_key(addr, len) == rcmsg_sm_node_key();
}

const rcmsg_btl_component_t rcmsg_btl_sm_component = {
    .name = "sm",
    .priority = 50,
    .reach = RCMSG_BTL_REACH_NODE,
    .addr_max = sm_addr_max,
    .open = rcmsg_sm_btl_open,
    .reachable = sm_reachable,
};
