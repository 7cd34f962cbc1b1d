/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rc component: opened for peers on other nodes (and for local ones when sm is not
 * used); reaches every peer that opened rc. Built with and without verbs: without, its open
 * (rc_none.c) says why rc is missing.
 */
#include "config.h"

#include "rc_btl.h"

#include "base/config_table.h"
#include "btl/btl_component.h"

static size_t rc_addr_max(const rcmsg_btl_job_t *job)
{
    return rcmsg_rc_btl_addr_max(job->size);
}

static bool rc_reachable(rcmsg_btl_t *btl, int peer, const void *addr, size_t len)
{
    (void)btl;
    (void)peer;
    (void)addr;
    (void)len;
    return true; /* any peer that published an rc address (connect() checks it) */
}

/* Lazy connects (rc_conn_init's rule, from the configuration alone): addresses on first use. */
static bool rc_addr_on_demand(const rcmsg_btl_job_t *job)
{
    int mode = rcmsg_config_enum(RCMSG_CFG_CONNECT);

    return mode == RCMSG_CONNECT_LAZY ||
           (mode == RCMSG_CONNECT_AUTO &&
            job->size > (int)rcmsg_config_int(RCMSG_CFG_CONNECT_EAGER_MAX));
}

const rcmsg_btl_component_t rcmsg_btl_rc_component = {
    .name = "rc",
    .priority = 10,
    .reach = RCMSG_BTL_REACH_ANY,
    .addr_max = rc_addr_max,
    .open = rcmsg_rc_btl_open,
    .reachable = rc_reachable,
    .addr_on_demand = rc_addr_on_demand,
    .dump = rcmsg_rc_btl_dump,
    .dump_state = rcmsg_rc_btl_dump_state,
};
