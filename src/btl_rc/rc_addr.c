/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rc address record (rc_addr.h), written and read with the wire codec (base/wire.h).
 */
#include "config.h"

#include "rc_addr.h"

#include "base/log.h"
#include "base/wire.h"

#include <string.h>

size_t rcmsg_rc_addr_size(int size)
{
    return RC_ADDR_HDR_SIZE + (size_t)size * RC_ADDR_QP_SIZE;
}

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
    rcmsg_wire_put_u32(w.nqps, addr->nqps);
    memcpy(buf, &w, sizeof(w));
}

void rcmsg_rc_addr_put_qp(void *buf, int rank, uint32_t qpn, uint32_t psn)
{
    rcmsg_rc_addr_qp_wire_t *e = (rcmsg_rc_addr_qp_wire_t *)((uint8_t *)buf + RC_ADDR_HDR_SIZE +
                                                             (size_t)rank * RC_ADDR_QP_SIZE);

    rcmsg_wire_put_u32(e->qpn, qpn);
    rcmsg_wire_put_u32(e->psn, psn);
}

rcmsg_status_t rcmsg_rc_addr_decode(const void *buf, size_t len, int peer, int self, int size,
                                    rcmsg_rc_addr_t *addr)
{
    rcmsg_rc_addr_wire_t w;
    const rcmsg_rc_addr_qp_wire_t *e;

    if (len < RC_ADDR_HDR_SIZE) {
        rcmsg_error("rc address of peer %d is %zu bytes, shorter than its %d-byte header", peer,
                    len, RC_ADDR_HDR_SIZE);
        return RCMSG_ERR_PEER_DATA;
    }
    memcpy(&w, buf, sizeof(w));
    addr->nqps = rcmsg_wire_get_u32(w.nqps);
    if (addr->nqps != (uint32_t)size || len != rcmsg_rc_addr_size(size)) {
        rcmsg_error("rc address of peer %d is malformed: %u QPs in %zu bytes, job size %d", peer,
                    addr->nqps, len, size);
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
    e = (const rcmsg_rc_addr_qp_wire_t *)((const uint8_t *)buf + RC_ADDR_HDR_SIZE +
                                          (size_t)self * RC_ADDR_QP_SIZE);
    addr->qpn = rcmsg_wire_get_u32(e->qpn);
    addr->psn = rcmsg_wire_get_u32(e->psn);
    return RCMSG_OK;
}
