/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rc address record: the blob each rank publishes so that every peer can connect its QP.
 * Fixed layout, little-endian: a 32-byte header (link layer, port, active MTU, rd_atomic, LID,
 * GID and its type, receive buffer size, number of QPs) then one 8-byte entry (qp number,
 * initial psn) per rank, indexed by peer rank.
 */
#ifndef RCMSG_BTL_RC_ADDR_H
#define RCMSG_BTL_RC_ADDR_H

#include "base/compiler.h"

#include <rcmsg.h>
#include <stddef.h>
#include <stdint.h>

#define RC_ADDR_HDR_SIZE 32
#define RC_ADDR_QP_SIZE  8

/* The header as it is on the wire: byte arrays only, so the layout is fixed. */
typedef struct {
    uint8_t link_layer;
    uint8_t port;
    uint8_t active_mtu;
    uint8_t rd_atomic;
    uint8_t lid[2];
    uint8_t gid_type; /* gid type + 1; 0: not known */
    uint8_t pad;
    uint8_t gid[16];
    uint8_t buf_size[4];
    uint8_t nqps[4];
} rcmsg_rc_addr_wire_t;

RCMSG_STATIC_ASSERT(sizeof(rcmsg_rc_addr_wire_t) == RC_ADDR_HDR_SIZE,
                    "rc address header must be RC_ADDR_HDR_SIZE bytes");

/* One QP entry as it is on the wire. */
typedef struct {
    uint8_t qpn[4];
    uint8_t psn[4];
} rcmsg_rc_addr_qp_wire_t;

RCMSG_STATIC_ASSERT(sizeof(rcmsg_rc_addr_qp_wire_t) == RC_ADDR_QP_SIZE,
                    "rc address QP entry must be RC_ADDR_QP_SIZE bytes");

/* The header decoded, and the one QP entry a rank reads (the one for itself). */
typedef struct {
    uint8_t link_layer;
    uint8_t port;
    uint8_t active_mtu;
    uint8_t rd_atomic;
    uint16_t lid;
    int gid_type; /* -1: not known */
    uint8_t gid[16];
    uint32_t buf_size;
    uint32_t nqps;
    uint32_t qpn, psn; /* decode: the entry for the decoding rank */
} rcmsg_rc_addr_t;

/* The size of the record of a job of `size` ranks. */
size_t rcmsg_rc_addr_size(int size);

/* Writes the header of `addr` at buf (RC_ADDR_HDR_SIZE bytes; qpn and psn not used). */
void rcmsg_rc_addr_encode(const rcmsg_rc_addr_t *addr, void *buf);

/* Writes the QP entry of rank `rank` (qp number, psn) into the record at buf. */
void rcmsg_rc_addr_put_qp(void *buf, int rank, uint32_t qpn, uint32_t psn);

/*
 * Reads the record of `len` bytes sent by `peer` to this rank (`self` in a job of `size`):
 * the header, and the QP entry for self in addr->qpn/psn. RCMSG_ERR_PEER_DATA, logged, when
 * the record is shorter than its header or its length or QP count disagree with the job size.
 * Values are not checked otherwise.
 */
rcmsg_status_t rcmsg_rc_addr_decode(const void *buf, size_t len, int peer, int self, int size,
                                    rcmsg_rc_addr_t *addr);

#endif /* RCMSG_BTL_RC_ADDR_H */
