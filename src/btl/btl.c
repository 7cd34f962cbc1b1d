/* SPDX-License-Identifier: BSD-3-Clause */
/* Operations shared by transports that need no memory registration or events (self, sm). */
#include "config.h"

#include "btl.h"

rcmsg_status_t rcmsg_btl_mem_reg_none(rcmsg_btl_t *btl, void *addr, size_t len, int remote_read,
                                      rcmsg_btl_mem_t *mem_p)
{
    (void)btl;
    (void)remote_read;
    *mem_p = (rcmsg_btl_mem_t){.addr = addr, .len = len};
    return RCMSG_OK;
}

void rcmsg_btl_mem_dereg_none(rcmsg_btl_t *btl, rcmsg_btl_mem_t *mem)
{
    (void)btl;
    (void)mem;
}

rcmsg_status_t rcmsg_btl_flush_none(rcmsg_btl_t *btl)
{
    (void)btl;
    return RCMSG_OK;
}

void rcmsg_btl_forget_none(rcmsg_btl_t *btl, int peer)
{
    (void)btl;
    (void)peer;
}

rcmsg_status_t rcmsg_btl_connect_progress_none(rcmsg_btl_t *btl)
{
    (void)btl;
    return RCMSG_OK;
}

int rcmsg_btl_event_fd_none(rcmsg_btl_t *btl)
{
    (void)btl;
    return -1;
}

rcmsg_status_t rcmsg_btl_ping_none(rcmsg_btl_t *btl, int peer)
{
    (void)btl;
    (void)peer;
    return RCMSG_ERR_UNSUPPORTED;
}
