/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rc address record: the blob each rank publishes so that every peer can connect to it.
 * Fixed size, whatever the job's size (so the address data a rank fetches is O(1) per peer),
 * little-endian: a 32-byte header (link layer, port, active MTU, rd_atomic, LID, GID and its
 * type, receive buffer size, the record's size) then the rank's CM address (rc_cm.h,
 * RC_CM_ADDR_SIZE bytes). The QP of each pair is connected through the CM, which carries the
 * qp numbers and psns: no per-peer entry is published.
 */
#ifndef RCMSG_BTL_RC_ADDR_H
#define RCMSG_BTL_RC_ADDR_H

#include "rc_cm.h"

#include "base/compiler.h"

#include <rcmsg.h>
#include <stddef.h>
#include <stdint.h>

#define RC_ADDR_HDR_SIZE 32
#define RC_ADDR_SIZE     (RC_ADDR_HDR_SIZE + RC_CM_ADDR_SIZE)

/* The record as it is on the wire: byte arrays only, so the layout is fixed. */
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
    uint8_t size[4]; /* RC_ADDR_SIZE */
    uint8_t cm[RC_CM_ADDR_SIZE];
} rcmsg_rc_addr_wire_t;

RCMSG_STATIC_ASSERT(offsetof(rcmsg_rc_addr_wire_t, cm) == RC_ADDR_HDR_SIZE,
                    "rc address header must be RC_ADDR_HDR_SIZE bytes");
RCMSG_STATIC_ASSERT(sizeof(rcmsg_rc_addr_wire_t) == RC_ADDR_SIZE,
                    "rc address record must be RC_ADDR_SIZE bytes");

/* The record decoded; the CM address stays encoded (rcmsg_rc_cm_add_peer reads it). */
typedef struct {
    uint8_t link_layer;
    uint8_t port;
    uint8_t active_mtu;
    uint8_t rd_atomic;
    uint16_t lid;
    int gid_type; /* -1: not known */
    uint8_t gid[16];
    uint32_t buf_size;
    uint8_t cm[RC_CM_ADDR_SIZE];
} rcmsg_rc_addr_t;

/* Writes `addr` at buf (RC_ADDR_SIZE bytes). */
void rcmsg_rc_addr_encode(const rcmsg_rc_addr_t *addr, void *buf);

/*
 * Reads the record of `len` bytes sent by `peer`. RCMSG_ERR_PEER_DATA, logged naming the
 * peer, when len or the size it gives is not RC_ADDR_SIZE. Values are not checked otherwise.
 */
rcmsg_status_t rcmsg_rc_addr_decode(const void *buf, size_t len, int peer, rcmsg_rc_addr_t *addr);

#endif /* RCMSG_BTL_RC_ADDR_H */
