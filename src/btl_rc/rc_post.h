/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: posting a request (rc_ep.c's floor): a slot taken, the post, the ring that keeps it
 * for its completion and a replay, and the SEND of a message. Inline here because the SEND of
 * every message (rc_ep_send_inl) is inlined into the op that sends it (rc_btl.c): a call, and
 * the registers both functions saved, less per message (callgrind: 20 instructions). Everything
 * else of the endpoints is in rc_ep.c, which posts through the same functions.
 */
#ifndef RCMSG_BTL_RC_POST_H
#define RCMSG_BTL_RC_POST_H

#include "rc_iface.h"

#include "base/compiler.h"
#include "base/wire.h"

#include <string.h>

/* rc_ep.c: an ibv_post_send of wr that failed (err): NO_RESOURCE when the QP broke behind its
 * mirror (the recovery takes it, and the caller sends again after the replay), else the peer
 * fails. */
rcmsg_status_t rc_post_failed(rc_btl_t *rc, rc_ep_t *ep, rc_wr_t *wr, int err)
    __attribute__((cold));
/* rc_ep.c: the SEND of a message too long to go inline, from a bounce buffer (wr: its slot). */
rcmsg_status_t rc_ep_send_buf(rc_btl_t *rc, rc_ep_t *ep, rc_wr_t *wr, struct ibv_send_wr *swr,
                              const void *hdr, size_t hdr_len, const void *payload, size_t len);

/* A free request slot, NULL when none is. */
static inline rc_wr_t *rc_wr_get(rc_btl_t *rc)
{
    rcmsg_queue_link_t *l = rcmsg_queue_pop_head(&rc->wr_free);

    if (l == NULL) {
        return NULL;
    }
    rc->wr_nfree--;
    return RCMSG_CONTAINER_OF(l, rc_wr_t, free_link);
}

/* wr was posted: a signaled one is counted until it is released (rc_wr_put), so that progress
 * polls the send CQ while its completion may come. */
static inline void rc_wr_posted(rc_btl_t *rc, rc_wr_t *wr)
{
    if (wr->signaled && !wr->counted) {
        wr->counted = true;
        rc->nsignaled++;
    }
}

/* rc_post's body (rc_ep.h), inlined into the SEND. */
static inline __attribute__((always_inline)) rcmsg_status_t
rc_post_inl(rc_btl_t *rc, rc_ep_t *ep, rc_wr_t *wr, struct ibv_send_wr *swr)
{
    struct ibv_send_wr *bad;
    int err;

    swr->wr_id = rc_wr_id(rc, wr);
    ep->last_use = ++rc->use_tick;
    if (rc_wr_is_msg(wr->type)) { /* messages: the peer counts them as received */
        wr->seq = ep->sent++;
        rcmsg_wire_put_be32(&swr->imm_data, rc_imm(rc, wr->seq));
    }
    if (wr->signaled) {
        swr->send_flags |= IBV_SEND_SIGNALED;
        ep->unsignaled = 0;
    } else {
        ep->unsignaled++;
    }
    err = ibv_post_send(ep->qp.qp, swr, &bad);
    if (__builtin_expect(err != 0, 0)) {
        return rc_post_failed(rc, ep, wr, err);
    }
    rc_wr_posted(rc, wr);
    ep->ring[(ep->ring_head + ep->ring_count) % rc->sq_depth] = wr;
    ep->ring_count++;
    return RCMSG_OK;
}

/* rc_wr_take's body (rc_ep.h), inlined into the SEND. */
static inline __attribute__((always_inline)) rc_wr_t *rc_wr_take_inl(rc_btl_t *rc, rc_ep_t *ep,
                                                                     rc_wr_type_t type, int peer)
{
    rc_wr_t *wr;

    if (ep->ring_count >= rc->sq_depth - 1 || (wr = rc_wr_get(rc)) == NULL) {
        return NULL;
    }
    wr->type = type;
    wr->peer = peer;
    wr->held = false;
    wr->sbuf = -1;
    wr->desc = NULL;
    wr->len = 0;
    /* signal periodically, always near the end of the ring, and when resources run low so
     * that they come back */
    wr->signaled = ep->unsignaled + 1 >= rc->signal_interval ||
                   ep->ring_count + 2 >= rc->sq_depth ||
                   rc->wr_nfree < (int)rc->signal_interval * 2 ||
                   rc->sbuf_nfree < (int)rc->signal_interval * 2;
    return wr;
}

/* Posts an inline SEND, then keeps a copy of its bytes for a replay (RCMSG_RECOVERY): after
 * the doorbell, so that the copy does not delay the message; a request whose post fails is
 * not replayed (its caller sends it again). */
static inline __attribute__((always_inline)) rcmsg_status_t
rc_post_inline(rc_btl_t *rc, rc_ep_t *ep, rc_wr_t *wr, struct ibv_send_wr *swr, const void *hdr,
               size_t hdr_len, const void *payload, size_t len)
{
    rcmsg_status_t status = rc_post_inl(rc, ep, wr, swr);

    if (status == RCMSG_OK && rc->inl_copy != NULL) {
        char *copy = rc_inl_copy(rc, wr);
        rcmsg_copy_short(copy, hdr, hdr_len); /* (inline: no call for a header and 8 bytes) */
        rcmsg_copy_short(copy + hdr_len, payload, len);
    }
    return status;
}

/* rc_ep_send's body (rc_ep.h): the message by SEND, inline, or from a bounce buffer
 * (rc_ep_send_buf), on the connected ep. */
static inline __attribute__((always_inline)) rcmsg_status_t
rc_ep_send_inl(rc_btl_t *rc, int peer, const void *hdr, size_t hdr_len, const void *payload,
               size_t len)
{
    rc_ep_t *ep = &rc->eps[peer];
    rc_wr_t *wr;
    struct ibv_sge sge[2];
    struct ibv_send_wr swr; /* a SEND's fields only (wr_id and imm_data: rc_post): a provider
                               reads no other for it, and zeroing all 128 bytes cost 16 stores */
    size_t total = hdr_len + len;

    swr.next = NULL;
    swr.sg_list = sge;
    swr.opcode = IBV_WR_SEND_WITH_IMM;
    swr.send_flags = 0;

    wr = rc_wr_take_inl(rc, ep, total <= rc->super.caps.max_inline ? RC_WR_SEND_INLINE : RC_WR_SEND,
                        peer);
    if (wr == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    wr->len = (uint32_t)total;
    if (__builtin_expect(wr->type != RC_WR_SEND_INLINE, 0)) {
        return rc_ep_send_buf(rc, ep, wr, &swr, hdr, hdr_len, payload, len);
    }
    sge[0] = (struct ibv_sge){.addr = (uintptr_t)hdr, .length = (uint32_t)hdr_len};
    sge[1] = (struct ibv_sge){.addr = (uintptr_t)payload, .length = (uint32_t)len};
    swr.num_sge = len > 0 ? 2 : 1;
    swr.send_flags = IBV_SEND_INLINE;
    return rc_post_inline(rc, ep, wr, &swr, hdr, hdr_len, payload, len);
}

#endif /* RCMSG_BTL_RC_POST_H */
