/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc in a build without verbs (configure --without-verbs): the rc entry points that the
 * rc component (rc_component.c) and the tools call exist and say why rc is not there. Only
 * sm and self work, so every rank of a job must run on one node; a job across nodes fails at
 * open with this message.
 */
#include "btl_rc/rc_btl.h"

rcmsg_status_t rcmsg_rc_btl_open(const rcmsg_btl_job_t *job, rcmsg_btl_t **btl_p)
{
    (void)job;
    *btl_p = NULL;
    rcmsg_error("rc transport: this rcmsg was built without verbs (configure --without-verbs), "
                "so only sm and self exist and all ranks of a job must run on one node");
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_rc_btl_force_error(rcmsg_btl_t *btl, int peer)
{
    (void)btl;
    (void)peer;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_rc_btl_force_fatal(rcmsg_btl_t *btl, int peer)
{
    (void)btl;
    (void)peer;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_rc_btl_force_qp_err(rcmsg_btl_t *btl, int peer)
{
    (void)btl;
    (void)peer;
    return RCMSG_ERR_UNSUPPORTED;
}

rcmsg_status_t rcmsg_rc_btl_force_stuck(rcmsg_btl_t *btl, int peer, bool marker)
{
    (void)btl;
    (void)peer;
    (void)marker;
    return RCMSG_ERR_UNSUPPORTED;
}

uint64_t rcmsg_rc_btl_recoveries(rcmsg_btl_t *btl, int peer)
{
    (void)btl;
    (void)peer;
    return 0;
}

uint64_t rcmsg_rc_btl_breaks(rcmsg_btl_t *btl, int peer)
{
    (void)btl;
    (void)peer;
    return 0;
}

unsigned rcmsg_rc_btl_outstanding(rcmsg_btl_t *btl, int peer)
{
    (void)btl;
    (void)peer;
    return 0;
}

void rcmsg_rc_btl_dump(rcmsg_btl_t *btl, rcmsg_log_level_t level)
{
    (void)btl;
    (void)level;
}

void rcmsg_rc_btl_dump_state(rcmsg_btl_t *btl)
{
    (void)btl;
}

void rcmsg_rc_btl_buffers(rcmsg_btl_t *btl, void **addr_p, size_t *len_p, int *node_p)
{
    (void)btl;
    *addr_p = NULL;
    *len_p = 0;
    *node_p = -1;
}

size_t rcmsg_rc_btl_addr_max(int size)
{
    (void)size;
    return 0;
}
