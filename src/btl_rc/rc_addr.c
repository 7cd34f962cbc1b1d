/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rc address record (rc_addr.h) and its little-endian codec.
 */
#include "config.h"

#include "rc_addr.h"

#include "base/log.h"

#include <endian.h>
#include <string.h>

static inline void rc_le16_put(uint8_t *p, uint16_t v)
{
    v = htole16(v);
    memcpy(p, &v, sizeof(v));
}

static inline void rc_le32_put(uint8_t *p, uint32_t v)
{
    v = htole32(v);
    memcpy(p, &v, sizeof(v));
}

static inline uint16_t rc_le16_get(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof(v));
    return le16toh(v);
}

static inline uint32_t rc_le32_get(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return le32toh(v);
}

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
    rc_le16_put(w.lid, addr->lid);
    w.gid_type = (uint8_t)(addr->gid_type + 1);
    memcpy(w.gid, addr->gid, sizeof(w.gid));
    rc_le32_put(w.buf_size, addr->buf_size);
    rc_le32_put(w.nqps, addr->nqps);
    memcpy(buf, &w, sizeof(w));
}

void rcmsg_rc_addr_put_qp(void *buf, int rank, uint32_t qpn, uint32_t psn)
{
    uint8_t *e = (uint8_t *)buf + RC_ADDR_HDR_SIZE + (size_t)rank * RC_ADDR_QP_SIZE;

    rc_le32_put(e, qpn);
    rc_le32_put(e + 4, psn);
}

rcmsg_status_t rcmsg_rc_addr_decode(const void *buf, size_t len, int peer, int self, int size,
                                    rcmsg_rc_addr_t *addr)
{
    rcmsg_rc_addr_wire_t w;
    const uint8_t *e;

    if (len < RC_ADDR_HDR_SIZE) {
        rcmsg_error("rc address of peer %d is %zu bytes, shorter than its %d-byte header", peer,
                    len, RC_ADDR_HDR_SIZE);
        return RCMSG_ERR_PEER_DATA;
    }
    memcpy(&w, buf, sizeof(w));
    addr->nqps = rc_le32_get(w.nqps);
    if (addr->nqps != (uint32_t)size || len != rcmsg_rc_addr_size(size)) {
        rcmsg_error("rc address of peer %d is malformed: %u QPs in %zu bytes, job size %d", peer,
                    addr->nqps, len, size);
        return RCMSG_ERR_PEER_DATA;
    }
    addr->link_layer = w.link_layer;
    addr->port = w.port;
    addr->active_mtu = w.active_mtu;
    addr->rd_atomic = w.rd_atomic;
    addr->lid = rc_le16_get(w.lid);
    addr->gid_type = (int)w.gid_type - 1;
    memcpy(addr->gid, w.gid, sizeof(addr->gid));
    addr->buf_size = rc_le32_get(w.buf_size);
    e = (const uint8_t *)buf + RC_ADDR_HDR_SIZE + (size_t)self * RC_ADDR_QP_SIZE;
    addr->qpn = rc_le32_get(e);
    addr->psn = rc_le32_get(e + 4);
    return RCMSG_OK;
}
