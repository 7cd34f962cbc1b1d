/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc endpoints (rc_ep.h), the floor of btl_rc with rc_rx.c: request slots and bounce
 * buffers, posting (SEND, RDMA_READ, flush, marker, ping, a replay's repost), the send CQ's
 * completions, and failure. It calls nothing above it: a post that finds the QP broken marks
 * the endpoint (ep->post_err) and returns, and progress hands it to the recovery; what a
 * completion needs of the recovery goes through rc->up (rc_iface.h). The choice of ring or
 * SEND, and the lazy connect of a peer not connected, are made by the ops in rc_btl.c. The
 * taking of a slot, the post and the SEND of a message are rc_post.h's, inline (the op that
 * sends inlines the SEND).
 */
#include "config.h"

#include "rc_btl.h"
#include "rc_iface.h"
#include "rc_post.h"

#include "base/clock.h"
#include "base/compiler.h"
#include "base/stats.h"
#include "base/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static void rc_ep_release_head(rc_btl_t *rc, rc_ep_t *ep, rcmsg_status_t status);

const char *rc_wr_type_name(rc_wr_type_t type)
{
    static const char *const names[] = {"SEND",
                                        "SEND inline",
                                        "eager RDMA_WRITE",
                                        "eager RDMA_WRITE inline",
                                        "RDMA_READ",
                                        "one-sided RDMA_WRITE",
                                        "one-sided RDMA_WRITE inline",
                                        "one-sided ATOMIC",
                                        "flush (zero-length RDMA_WRITE)",
                                        "rc control SEND"};
    RCMSG_ASSERT_COVERS(names, RC_WR_TYPE_COUNT);

    return (unsigned)type < RC_WR_TYPE_COUNT ? names[type] : "unknown work request";
}

/* ---- failure --------------------------------------------------------------------------- */

void rc_cause_str(const rc_cause_t *cause, char *buf, size_t len)
{
    switch (cause->kind) {
    case RC_CAUSE_WC:
        snprintf(buf, len, "%s (wc status %d, vendor_err 0x%x)",
                 ibv_wc_status_str((enum ibv_wc_status)cause->code), cause->code, cause->vendor);
        break;
    case RC_CAUSE_EVENT:
        snprintf(buf, len, "async event %s", ibv_event_type_str((enum ibv_event_type)cause->code));
        break;
    case RC_CAUSE_HOOK:
        snprintf(buf, len, "forced by test hook");
        break;
    case RC_CAUSE_PEER:
        snprintf(buf, len, "the peer's side broke");
        break;
    case RC_CAUSE_SYNC:
        snprintf(buf, len, "qp state sync: hardware says %s behind the mirror",
                 rcmsg_rc_qp_state_name((enum ibv_qp_state)cause->code));
        break;
    case RC_CAUSE_POST:
        snprintf(buf, len, "ibv_post_send refused (%s): qp found in ERR behind its mirror",
                 strerror(cause->code));
        break;
    case RC_CAUSE_STUCK:
        snprintf(buf, len, "no completion for %d s, beyond the device's retry bound", cause->code);
        break;
    case RC_CAUSE_PROBED:
        snprintf(buf, len,
                 "no completion of a SEND for %d s though the peer, probed, had its receive "
                 "buffers posted (not a receive-not-ready wait)",
                 cause->code);
        break;
    case RC_CAUSE_PAIRED:
        snprintf(buf, len, "the probed peer's qp is 0x%x, this qp sends to 0x%x",
                 (unsigned)cause->code, cause->vendor);
        break;
    }
}

/* Every request of ep's ring released, their reads completed with status (a drained ring: no
 * completion of them is pending). */
static void rc_ep_abort_ring(rc_btl_t *rc, rc_ep_t *ep, rcmsg_status_t status)
{
    while (ep->ring_count > 0) {
        rc_ep_release_head(rc, ep, status);
    }
}

/* The peer fails while its connection recovers: the requests kept for a replay fail. */
static void rc_ep_rec_abort(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];
    char why[160];

    if (ep->rec.drain_last == NULL) {
        rc_ep_abort_ring(rc, ep, RCMSG_ERR_CONNECTION); /* no completion of them is pending */
    }
    rc_cause_str(&ep->rec.cause, why, sizeof(why));
    rcmsg_error("rc: connection to peer %d not recovered: it broke (%s) on qp 0x%x %.1f s ago "
                "(RCMSG_RECOVERY_TIMEOUT %.1f s)",
                peer, why, ep->rec.old_qpn, (double)(rcmsg_clock_us() - ep->rec.t0) / 1e6,
                (double)rc->config.recovery_timeout_us / 1e6);
    ep->rec.state = RC_REC_NONE;
}

/* The peer's endpoint is unusable from now on: QP to ERR (outstanding requests flush), the
 * layer above told once, every later send refused. */
/* The endpoint's state once failed: QP to ERR, replays and reconnects given up. */
static void rc_ep_shut(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];
    struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};

    ep->failed = true;
    ep->connected = false;
    if (ep->rec.state != RC_REC_NONE) {
        rc_ep_rec_abort(rc, peer); /* the requests kept for a replay fail */
    }
    if (rc->cm != NULL && ep->cm_added) {
        rcmsg_rc_cm_refuse(rc->cm, peer); /* its reconnects get a REJ, not silence */
    }
    if (ep->qp.qp != NULL) {
        if (rcmsg_rc_qp_resync(&ep->qp) != IBV_QPS_ERR) {
            rcmsg_rc_qp_modify(&ep->qp, &attr, IBV_QP_STATE);
        }
        rc_ep_flush(rc, peer); /* get the slots of completed unsignaled sends back */
    }
}

/* The layer above has given up on peer (btl.h's forget): failed quietly, not reported back. */
void rc_forget(rcmsg_btl_t *btl, int peer)
{
    rc_btl_t *rc = rc_btl_of(btl);

    if (peer < 0 || peer >= rc->job.size || peer == rc->job.rank || rc->eps[peer].failed) {
        return;
    }
    rcmsg_debug("rc: peer %d is lost to the layer above: its connection is given up", peer);
    rc_ep_shut(rc, peer);
}

void rc_ep_fail(rc_btl_t *rc, int peer, const char *why)
{
    rc_ep_t *ep = &rc->eps[peer];

    if (ep->failed) {
        return;
    }
    rc_ep_shut(rc, peer);
    if (ep->qp.qp == NULL) {
        rcmsg_error("no connection to peer %d: every pending and later operation to peer %d fails "
                    "with %s",
                    peer, peer, rcmsg_status_name(RCMSG_ERR_CONNECTION));
    } else {
        rcmsg_error("connection to peer %d lost: qp 0x%x on %s:%d is in state %s; every pending "
                    "and later operation to peer %d fails with %s",
                    peer, ep->qp.qp->qp_num, rc->dev->name, rc->port,
                    rcmsg_rc_qp_state_name(ep->qp.state), peer,
                    rcmsg_status_name(RCMSG_ERR_CONNECTION));
    }
    if (rc->super.fail_cb != NULL) {
        char cause[192];

        snprintf(cause, sizeof(cause), "rc: %s", why);
        rc_up_fail(rc, peer, cause);
    }
}

/* ---- work request slots and bounce buffers --------------------------------------------- */

void rc_wr_put(rc_btl_t *rc, rc_wr_t *wr)
{
    if (wr->counted) {
        wr->counted = false;
        rc->nsignaled--;
    }
    if (wr->sbuf >= 0) {
        rc->sbuf_free[rc->sbuf_nfree++] = wr->sbuf;
        wr->sbuf = -1;
    }
    rcmsg_queue_push_head(&rc->wr_free, &wr->free_link);
    rc->wr_nfree++;
}

void rc_wr_release(rc_btl_t *rc, rc_wr_t *wr, rcmsg_status_t status)
{
    if (wr->desc != NULL) {
        rcmsg_btl_desc_t *desc = wr->desc;
        wr->desc = NULL;
        rc_up_complete(rc, desc, status);
    }
    rc_wr_put(rc, wr);
}

/* Releases the ring's oldest request; its read, if any, completes with status. */
static void rc_ep_release_head(rc_btl_t *rc, rc_ep_t *ep, rcmsg_status_t status)
{
    rc_wr_t *wr = ep->ring[ep->ring_head];

    ep->ring_head = (ep->ring_head + 1) % rc->sq_depth;
    ep->ring_count--;
    rc_wr_release(rc, wr, status);
}

/* Completion known for `last` on its QP: release it and every request posted before it (a
 * held read takes last's status: it is trusted only if what followed it went through). */
int rc_ep_complete_upto(rc_btl_t *rc, rc_ep_t *ep, rc_wr_t *last, rcmsg_status_t status)
{
    int n = 0;

    while (ep->ring_count > 0) {
        rc_wr_t *wr = ep->ring[ep->ring_head];
        bool is_last = (wr == last);

        rc_ep_release_head(rc, ep, is_last || wr->held ? status : RCMSG_OK);
        n++;
        if (is_last) {
            return n;
        }
    }
    rcmsg_error("internal: completion for a request not outstanding on qp 0x%x (peer %d)",
                ep->qp.qp->qp_num, ep->qp.peer);
    return n;
}

/* (rc_post.h) */
rcmsg_status_t rc_post_failed(rc_btl_t *rc, rc_ep_t *ep, rc_wr_t *wr, int err)
{
    if (rc->recovery && rcmsg_rc_qp_resync(&ep->qp) == IBV_QPS_ERR) {
        /* the QP broke behind its mirror: the endpoint is marked with the cause and the next
         * progress call hands it to the recovery (rc_async_handle), as an async event; this
         * request is sent again by its caller, after the replay */
        ep->sent -= rc_wr_is_msg(wr->type);
        rc_wr_put(rc, wr);
        ep->post_err = err;
        atomic_store_explicit(&rc->async_pending, 1, memory_order_release);
        return RCMSG_ERR_NO_RESOURCE;
    }
    rcmsg_error("ibv_post_send %s to peer %d failed on qp 0x%x (state %s): %s",
                rc_wr_type_name(wr->type), wr->peer, ep->qp.qp->qp_num,
                rcmsg_rc_qp_state_name(rcmsg_rc_qp_resync(&ep->qp)), strerror(err));
    ep->sent -= rc_wr_is_msg(wr->type);
    rc_wr_put(rc, wr);
    rc_ep_fail(rc, wr->peer, "ibv_post_send failed");
    return RCMSG_ERR_CONNECTION;
}

rcmsg_status_t rc_post(rc_btl_t *rc, rc_ep_t *ep, rc_wr_t *wr, struct ibv_send_wr *swr)
{
    return rc_post_inl(rc, ep, wr, swr);
}

rc_wr_t *rc_wr_take(rc_btl_t *rc, rc_ep_t *ep, rc_wr_type_t type, int peer)
{
    return rc_wr_take_inl(rc, ep, type, peer);
}

rc_wr_t *rc_ep_post_marker(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];
    struct ibv_send_wr swr = {.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED};
    struct ibv_send_wr *bad;
    rc_wr_t *wr = ep->ring_count < rc->sq_depth ? rc_wr_get(rc) : NULL;

    if (wr == NULL) {
        return NULL;
    }
    *wr =
        (rc_wr_t){.gen = wr->gen, .type = RC_WR_FLUSH, .signaled = true, .peer = peer, .sbuf = -1};
    swr.wr_id = rc_wr_id(rc, wr);
    if (ibv_post_send(ep->qp.qp, &swr, &bad) != 0) {
        rc_wr_put(rc, wr);
        return NULL;
    }
    rc_wr_posted(rc, wr);
    ep->ring[(ep->ring_head + ep->ring_count) % rc->sq_depth] = wr;
    ep->ring_count++;
    return wr;
}

/* Post a signaled zero-length RDMA_WRITE so that the unsignaled requests before it complete
 * (on a failed QP it completes at once, flushed, and gives their slots and buffers back). */
rcmsg_status_t rc_ep_flush(rc_btl_t *rc, int peer)
{
    rc_ep_t *ep = &rc->eps[peer];
    struct ibv_send_wr swr = {.opcode = IBV_WR_RDMA_WRITE, .num_sge = 0};
    rc_wr_t *wr;

    if (ep->ring_count == 0 || ep->rec.state != RC_REC_NONE ||
        ep->ring[(ep->ring_head + ep->ring_count - 1) % rc->sq_depth]->signaled) {
        return RCMSG_OK;
    }
    if (ep->failed) {
        /* rc_post would report the peer again: post directly */
        return rc_ep_post_marker(rc, peer) != NULL ? RCMSG_OK : RCMSG_ERR_NO_RESOURCE;
    }
    wr = rc_wr_take(rc, ep, RC_WR_FLUSH, peer);
    if (wr == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    wr->signaled = true;
    return rc_post(rc, ep, wr, &swr);
}

bool rc_ep_hold_read(rc_btl_t *rc, rc_ep_t *ep, rc_wr_t *wr)
{
    struct ibv_send_wr swr = {.opcode = IBV_WR_RDMA_WRITE, .num_sge = 0};
    rc_wr_t *tail, *confirm;

    if (!rc->read_confirm || wr->type != RC_WR_GET) {
        return false;
    }
    while (ep->ring_count > 0 && ep->ring[ep->ring_head] != wr) {
        rc_ep_release_head(rc, ep, RCMSG_OK); /* completed before the read */
    }
    if (ep->ring_count == 0) {
        return false; /* not outstanding: rc_ep_complete_upto reports it */
    }
    tail = ep->ring[(ep->ring_head + ep->ring_count - 1) % rc->sq_depth];
    if (tail == wr || !tail->signaled) { /* no completion is coming after it: ask for one */
        confirm = rc_wr_take(rc, ep, RC_WR_FLUSH, wr->peer);
        if (confirm == NULL) {
            return false; /* the send queue is full: trusted as it is, as without the option */
        }
        confirm->signaled = true;
        wr->held = true; /* before the post: one that fails recovers, and the read is replayed */
        (void)rc_post(rc, ep, confirm, &swr);
        return true;
    }
    wr->held = true;
    return true;
}

/* A liveness probe: a signaled zero-length RDMA_WRITE, acknowledged by the peer's hardware
 * without a receive buffer. A dead peer's QP is gone, so the write exhausts its retries and
 * the endpoint fails. Nothing is posted while requests are outstanding: they probe already. */
rcmsg_status_t rc_ping(rcmsg_btl_t *btl, int peer)
{
    rc_btl_t *rc = rc_btl_of(btl);
    rc_ep_t *ep;
    struct ibv_send_wr swr = {.opcode = IBV_WR_RDMA_WRITE, .num_sge = 0};
    rc_wr_t *wr;

    if (peer < 0 || peer >= rc->job.size || peer == rc->job.rank) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    ep = &rc->eps[peer];
    if (ep->failed || !ep->connected) {
        /* not connected: nothing to probe (a connect to a dead peer fails in the CM) */
        return ep->failed ? RCMSG_ERR_CONNECTION : RCMSG_OK;
    }
    if (ep->ring_count > 0) {
        return rc_ep_flush(rc, peer); /* the last one signaled: it completes or fails */
    }
    wr = rc_wr_take(rc, ep, RC_WR_FLUSH, peer);
    if (wr == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    wr->signaled = true;
    return rc_post(rc, ep, wr, &swr);
}

/* ---- send and get ---------------------------------------------------------------------- */

/* The SEND of a message from a bounce buffer (rc_post.h's rc_ep_send_inl: swr, the SEND's,
 * with its two scatter entries; wr, the slot taken). */
rcmsg_status_t rc_ep_send_buf(rc_btl_t *rc, rc_ep_t *ep, rc_wr_t *wr, struct ibv_send_wr *swr,
                              const void *hdr, size_t hdr_len, const void *payload, size_t len)
{
    char *buf;

    if (rc->sbuf_nfree == 0) {
        rc_wr_put(rc, wr);
        for (int i = 0; i < rc->job.size; i++) {
            if (rc->eps[i].qp.qp != NULL) {
                rc_ep_flush(rc, i); /* get the buffers of trailing unsignaled sends back */
            }
        }
        return RCMSG_ERR_NO_RESOURCE;
    }
    wr->sbuf = rc->sbuf_free[--rc->sbuf_nfree];
    buf = rc->sbufs + (size_t)wr->sbuf * rc->buf_size;
    memcpy(buf, hdr, hdr_len);
    if (len > 0) {
        memcpy(buf + hdr_len, payload, len);
    }
    swr->sg_list[0] = (struct ibv_sge){
        .addr = (uintptr_t)buf, .length = (uint32_t)(hdr_len + len), .lkey = rc->smr->lkey};
    swr->num_sge = 1;
    return rc_post(rc, ep, wr, swr);
}

/* (The ring's fallback, rc_btl.c, calls it; the op's SEND inlines it.) */
rcmsg_status_t rc_ep_send(rc_btl_t *rc, int peer, const void *hdr, size_t hdr_len,
                          const void *payload, size_t len)
{
    return rc_ep_send_inl(rc, peer, hdr, hdr_len, payload, len);
}

/* Posts an RDMA_READ of len bytes from the peer's remote_addr into local, on the connected
 * ep (always signaled: desc completes with its completion). */
rcmsg_status_t rc_ep_get(rc_btl_t *rc, rc_ep_t *ep, int peer, void *local,
                         const rcmsg_btl_mem_t *lmem, uint64_t remote_addr, uint32_t rkey,
                         size_t len, rcmsg_btl_desc_t *desc)
{
    rc_wr_t *wr;
    struct ibv_sge sge = {.addr = (uintptr_t)local, .length = (uint32_t)len, .lkey = lmem->lkey};
    struct ibv_send_wr swr = {.opcode = IBV_WR_RDMA_READ, .sg_list = &sge, .num_sge = 1};

    wr = rc_wr_take(rc, ep, RC_WR_GET, peer);
    if (wr == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    wr->signaled = true;
    wr->desc = desc;
    wr->len = (uint32_t)len;
    wr->local = local;
    wr->lkey = lmem->lkey;
    wr->raddr = remote_addr;
    wr->rkey = rkey;
    desc->peer = peer;
    desc->len = len;
    swr.wr.rdma.remote_addr = remote_addr;
    swr.wr.rdma.rkey = rkey;
    return rc_post(rc, ep, wr, &swr);
}

/* The swr of a one-sided request wr (a first post or a replay's): WRITE or ATOMIC. */
static void rc_osc_swr(rc_wr_t *wr, struct ibv_send_wr *swr, struct ibv_sge *sge)
{
    *sge = (struct ibv_sge){.addr = (uintptr_t)wr->local, .length = wr->len, .lkey = wr->lkey};
    swr->sg_list = sge;
    swr->num_sge = wr->len > 0 ? 1 : 0;
    if (wr->type == RC_WR_ATOMIC) {
        swr->opcode = wr->aop == RCMSG_BTL_ATOMIC_FADD ? IBV_WR_ATOMIC_FETCH_AND_ADD
                                                       : IBV_WR_ATOMIC_CMP_AND_SWP;
        swr->wr.atomic.remote_addr = wr->raddr;
        swr->wr.atomic.rkey = wr->rkey;
        swr->wr.atomic.compare_add = wr->aop == RCMSG_BTL_ATOMIC_FADD ? wr->operand : wr->compare;
        swr->wr.atomic.swap = wr->operand;
        return;
    }
    swr->opcode = IBV_WR_RDMA_WRITE;
    swr->wr.rdma.remote_addr = wr->raddr;
    swr->wr.rdma.rkey = wr->rkey;
    if (wr->type == RC_WR_PUT_INLINE) {
        swr->send_flags |= IBV_SEND_INLINE;
    }
}

rcmsg_status_t rc_ep_put(rc_btl_t *rc, rc_ep_t *ep, int peer, const void *local,
                         const rcmsg_btl_mem_t *lmem, uint64_t remote_addr, uint32_t rkey,
                         size_t len, rcmsg_btl_desc_t *desc)
{
    struct ibv_send_wr swr = {0};
    struct ibv_sge sge;
    rcmsg_status_t status;
    rc_wr_t *wr = rc_wr_take(rc, ep, lmem == NULL ? RC_WR_PUT_INLINE : RC_WR_PUT, peer);

    if (wr == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    wr->signaled = true;
    wr->desc = desc;
    wr->len = (uint32_t)len;
    wr->local = (void *)(uintptr_t)local;
    wr->lkey = lmem != NULL ? lmem->lkey : 0;
    wr->raddr = remote_addr;
    wr->rkey = rkey;
    desc->peer = peer;
    desc->len = len;
    rc_osc_swr(wr, &swr, &sge);
    status = rc_post(rc, ep, wr, &swr);
    if (status == RCMSG_OK && wr->type == RC_WR_PUT_INLINE && rc->inl_copy != NULL && len > 0) {
        memcpy(rc_inl_copy(rc, wr), local, len); /* the caller may reuse local now */
        wr->local = rc_inl_copy(rc, wr);
    }
    return status;
}

rcmsg_status_t rc_ep_atomic(rc_btl_t *rc, rc_ep_t *ep, int peer, rcmsg_btl_atomic_t op,
                            uint64_t *result, const rcmsg_btl_mem_t *lmem, uint64_t remote_addr,
                            uint32_t rkey, uint64_t operand, uint64_t compare,
                            rcmsg_btl_desc_t *desc)
{
    struct ibv_send_wr swr = {0};
    struct ibv_sge sge;
    rc_wr_t *wr = rc_wr_take(rc, ep, RC_WR_ATOMIC, peer);

    if (wr == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    wr->signaled = true;
    wr->desc = desc;
    wr->len = sizeof(uint64_t);
    wr->local = result;
    wr->lkey = lmem->lkey;
    wr->raddr = remote_addr;
    wr->rkey = rkey;
    wr->aop = op;
    wr->operand = operand;
    wr->compare = compare;
    desc->peer = peer;
    desc->len = sizeof(uint64_t);
    rc_osc_swr(wr, &swr, &sge);
    return rc_post(rc, ep, wr, &swr);
}

/* ---- send completions -------------------------------------------------------------- */

static void rc_send_done(rc_btl_t *rc, const struct ibv_wc *wc)
{
    rc_wr_t *wr = rc_wr_of(rc, wc->wr_id);
    rc_ep_t *ep;
    rcmsg_status_t status = RCMSG_OK;

    if (__builtin_expect(wr == NULL, 0)) {
        rcmsg_error("rc: a send completion (%s) on qp 0x%x names request slot %u of an earlier "
                    "post: dropped (a completion of a QP that broke came after its drain)",
                    ibv_wc_status_str(wc->status), wc->qp_num, (unsigned)wc->wr_id);
        return;
    }
    ep = &rc->eps[wr->peer];
    if (__builtin_expect(wc->status != IBV_WC_SUCCESS, 0)) {
        rcmsg_stat_status(wr->peer, (int)wc->status);
    }
    if (__builtin_expect(
            ep->rec.state == RC_REC_DRAIN ||
                (wc->status != IBV_WC_SUCCESS && !ep->failed && rc->up->wc_error(rc, wr->peer, wc)),
            0)) {
        rc->up->sq_cqe(rc, ep, wr, wc->status == IBV_WC_SUCCESS); /* the recovery keeps it */
        return;
    }
    if (__builtin_expect(wc->status != IBV_WC_SUCCESS, 0)) {
        status = RCMSG_ERR_CONNECTION;
        if (wc->status == IBV_WC_WR_FLUSH_ERR && ep->failed) {
            rcmsg_debug("%s to peer %d flushed on qp 0x%x", rc_wr_type_name(wr->type), wr->peer,
                        wc->qp_num);
        } else {
            rcmsg_error("%s of %u bytes to peer %d failed: %s (status %d, vendor_err 0x%x) on "
                        "%s:%d qp 0x%x (state %s)",
                        rc_wr_type_name(wr->type), wr->len, wr->peer, ibv_wc_status_str(wc->status),
                        wc->status, wc->vendor_err, rc->dev->name, rc->port, wc->qp_num,
                        rcmsg_rc_qp_state_name(rcmsg_rc_qp_resync(&ep->qp)));
        }
    }
    if (status != RCMSG_OK || !rc_ep_hold_read(rc, ep, wr)) {
        rc_ep_complete_upto(rc, ep, wr, status);
    }
    if (status != RCMSG_OK) {
        rc_ep_fail(rc, wr->peer, ibv_wc_status_str(wc->status));
    } else {
        ep->rec.run = 0;
    }
}

int rc_send_poll(rc_btl_t *rc)
{
    struct ibv_wc wc[RCMSG_POLL_BATCH_MAX];
    int n = ibv_poll_cq(rc->scq, (int)rc->poll_batch, wc);

    for (int i = 0; i < n; i++) {
        rc_send_done(rc, &wc[i]);
    }
    return n > 0 ? n : 0;
}

/* ---- replay (rc_rec.c) ------------------------------------------------------------------ */

rcmsg_status_t rc_ep_repost(rc_btl_t *rc, rc_ep_t *ep, rc_wr_t *wr, bool last)
{
    struct ibv_sge sge = {.length = wr->len};
    struct ibv_send_wr swr = {.wr_id = rc_wr_id(rc, wr), .sg_list = &sge, .num_sge = 1}, *bad;
    int err;

    wr->signaled = wr->signaled || last;
    wr->held = false;
    if (wr->type == RC_WR_FAST || wr->type == RC_WR_FAST_INLINE) {
        /* the ring is gone with the broken connection: the message goes by SEND (its buffer
         * starts with it, rc_fast.c) */
        wr->type = wr->type == RC_WR_FAST ? RC_WR_SEND : RC_WR_SEND_INLINE;
    }
    if (wr->type == RC_WR_PUT || wr->type == RC_WR_PUT_INLINE) {
        rc_osc_swr(wr, &swr, &sge); /* an inline one from its copy (rc_ep_put) */
    } else if (wr->type == RC_WR_GET) {
        swr.opcode = IBV_WR_RDMA_READ;
        sge.addr = (uintptr_t)wr->local;
        sge.lkey = wr->lkey;
        swr.wr.rdma.remote_addr = wr->raddr;
        swr.wr.rdma.rkey = wr->rkey;
    } else {
        swr.opcode = IBV_WR_SEND_WITH_IMM;
        rcmsg_wire_put_be32(&swr.imm_data, rc_imm(rc, wr->seq));
        if (wr->type == RC_WR_SEND_INLINE) {
            sge.addr = (uintptr_t)rc_inl_copy(rc, wr);
            swr.send_flags = IBV_SEND_INLINE;
        } else {
            sge.addr = (uintptr_t)(rc->sbufs + (size_t)wr->sbuf * rc->buf_size);
            sge.lkey = rc->smr->lkey;
        }
    }
    swr.send_flags |= wr->signaled ? IBV_SEND_SIGNALED : 0;
    ep->unsignaled = wr->signaled ? 0 : ep->unsignaled + 1;
    err = ibv_post_send(ep->qp.qp, &swr, &bad);
    if (err != 0) {
        rcmsg_error("replay: ibv_post_send %s to peer %d failed on qp 0x%x: %s",
                    rc_wr_type_name(wr->type), wr->peer, ep->qp.qp->qp_num, strerror(err));
        return RCMSG_ERR_CONNECTION;
    }
    rc_wr_posted(rc, wr);
    ep->ring[(ep->ring_head + ep->ring_count) % rc->sq_depth] = wr;
    ep->ring_count++;
    return RCMSG_OK;
}
