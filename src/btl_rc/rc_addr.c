/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rc address record (rc_addr.h), written and read with the wire codec (base/wire.h).
 */
#include "config.h"

#include "rc_addr.h"

#include "base/log.h"
#include "base/wire.h"

#include <string.h>

void rcmsg_rc_addr_encode(const rcmsg_rc_addr_t *addr, void *buf)
{
    rcmsg_rc_addr_wire_t w;

    memset(&w, 0, sizeof(w));
    w.link_layer = addr->link_layer;
    w.port = addr->port;
    w.active_mtu = addr->active_mtu;
    w.rd_atomic = addr->rd_atomic;
    rcmsg_wire_put_u16(w.lid, addr->lid);
    w.gid_type = (uint8_t)(addr->gid_type + 1);
    memcpy(w.gid, addr->gid, sizeof(w.gid));
    rcmsg_wire_put_u32(w.buf_size, addr->buf_size);
    rcmsg_wire_put_u32(w.size, RC_ADDR_SIZE);
    memcpy(w.cm, addr->cm, sizeof(w.cm));
    memcpy(buf, &w, sizeof(w));
}

rcmsg_status_t rcmsg_rc_addr_decode(const void *buf, size_t len, int peer, rcmsg_rc_addr_t *addr)
{
    rcmsg_rc_addr_wire_t w;
    uint32_t size;

    if (len != RC_ADDR_SIZE) {
        rcmsg_error("rc address of peer %d is %zu bytes, not %d: a peer of another rcmsg version?",
                    peer, len, RC_ADDR_SIZE);
        return RCMSG_ERR_PEER_DATA;
    }
    memcpy(&w, buf, sizeof(w));
    size = rcmsg_wire_get_u32(w.size);
    if (size != RC_ADDR_SIZE) {
        rcmsg_error("rc address of peer %d is malformed: it says %u bytes in %zu", peer, size, len);
        return RCMSG_ERR_PEER_DATA;
    }
    addr->link_layer = w.link_layer;
    addr->port = w.port;
    addr->active_mtu = w.active_mtu;
    addr->rd_atomic = w.rd_atomic;
    addr->lid = rcmsg_wire_get_u16(w.lid);
    addr->gid_type = (int)w.gid_type - 1;
    memcpy(addr->gid, w.gid, sizeof(addr->gid));
    addr->buf_size = rcmsg_wire_get_u32(w.buf_size);
    memcpy(addr->cm, w.cm, sizeof(addr->cm));
    return RCMSG_OK;
}
