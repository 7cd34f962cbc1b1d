/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the RC verbs transport.
 *
 * Resources per process (one device port):
 *   PD; send CQ (one CQE per posted work request at most, see "send budget"); receive CQ
 *   (SRQ_SIZE entries); an SRQ of SRQ_SIZE registered buffers of SRQ_BUF_SIZE bytes, posted
 *   before any QP leaves INIT; SEND_BUFS registered bounce buffers; an RC QP per connected
 *   rc peer, from a pool of QPs in INIT (rc_pool.c; eager: one per rc peer at init; lazy:
 *   RCMSG_QP_POOL, connected on the first message); the connection manager's UD QP (rc_cm.c).
 *
 * Send budget: every posted work request takes a slot from a pool of wr_total slots, and the
 * send CQ has wr_total entries (rc_send_budget: a send queue's worth per peer, eager; per
 * max(RCMSG_QP_POOL, RCMSG_QP_MAX_ACTIVE) peers, lazy). A slot is freed only once its completion is
 * known (its own CQE, or the CQE of a later signaled request on the same QP), so even when a QP
 * goes to ERR and every outstanding request is flushed with its own CQE, the send CQ cannot
 * overflow.
 *
 * Selective signaling: one send in SIGNAL_INTERVAL asks for a completion (and every RDMA_READ,
 * and every send while buffers run low). Each QP keeps its outstanding requests in post order
 * in a ring; a completion for request w frees w and every request posted before it on the QP.
 * A QP whose last request is unsignaled is flushed by a signaled zero-length RDMA_WRITE.
 *
 * Messages carry the sender's rank as immediate data, so a receive needs no QP search: the
 * rank's QP must be the one the message arrived on (else the message is dropped and the peer
 * of that QP failed).
 *
 * This file is the interface: CQs, buffers, progress, memory registration, open and close,
 * the ops table, and the choice of the path of a send (ring or SEND, or a connect first). The
 * endpoints (one per peer, its QP embedded: request slots, post, flush, fail, the send CQ's
 * completions) are in rc_ep.c, the receive side in rc_rx.c, their connection through the
 * connection manager (rc_cm.c) and the address record in rc_conn.c and rc_addr.c, the async
 * event thread in rc_async.c, the choice of the device port in rc_port.c (rc_iface.h: the
 * order of the files).
 */
#include "config.h"

#include "rc_btl.h"
#include "rc_iface.h"
#include "rc_memlock.h"
#include "rc_post.h"

#include "base/clock.h"
#include "base/config_vars.h"
#include "base/dump_signal.h"
#include "base/stats.h"
#include "base/topo.h"
#include "base/watch.h"
#include "base/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void rc_free_bufs(void *p, size_t len, bool bound);

/* ---- memory registration --------------------------------------------------------------- */

static struct ibv_mr *rc_reg(rc_btl_t *rc, void *addr, size_t len, int access)
{
    struct ibv_mr *mr = ibv_reg_mr(rc->pd, addr, len, access);

    if (mr == NULL) {
        int err = errno;
        rcmsg_error("ibv_reg_mr of %zu bytes on %s failed: %s%s", len, rc->dev->name, strerror(err),
                    err == ENOMEM ? " (locked memory limit too low? check 'ulimit -l'; it should "
                                    "be unlimited for RDMA)"
                                  : "");
    }
    return mr;
}

static rcmsg_status_t rc_mem_reg(rcmsg_btl_t *btl, void *addr, size_t len, int remote_read,
                                 rcmsg_btl_mem_t *mem_p)
{
    rc_btl_t *rc = rc_btl_of(btl);
    /* a buffer peers read needs REMOTE_READ only; a buffer we read into, LOCAL_WRITE; a window
     * every remote access (its rkey goes to its members only, src/osc) */
    int access = remote_read == RCMSG_BTL_MEM_WINDOW
                     ? IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
                           IBV_ACCESS_REMOTE_ATOMIC
                 : remote_read ? IBV_ACCESS_REMOTE_READ
                               : IBV_ACCESS_LOCAL_WRITE;
    if (rc->dev->attr.atomic_cap == IBV_ATOMIC_NONE) {
        access &= ~IBV_ACCESS_REMOTE_ATOMIC; /* atomics go by message then (src/osc) */
    }
    struct ibv_mr *mr = rc_reg(rc, addr, len, access);

    if (mr == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    *mem_p =
        (rcmsg_btl_mem_t){.addr = addr, .len = len, .lkey = mr->lkey, .rkey = mr->rkey, .priv = mr};
    return RCMSG_OK;
}

static void rc_mem_dereg(rcmsg_btl_t *btl, rcmsg_btl_mem_t *mem)
{
    (void)btl;
    if (mem->priv != NULL && ibv_dereg_mr(mem->priv) != 0) {
        rcmsg_warn("ibv_dereg_mr failed: %m");
    }
    mem->priv = NULL;
}

static const char *rc_wc_status_name(int status)
{
    return ibv_wc_status_str((enum ibv_wc_status)status);
}

static int rc_progress(rcmsg_btl_t *btl)
{
    rc_btl_t *rc = rc_btl_of(btl);
    int n, total;

    total = rc_rx_poll(rc);
    if (rc->fast.nrx > 0) {
        total += rc_fast_poll(rc);
    }
    rcmsg_rstat_add(RCMSG_RSTAT_empty_polls, total == 0);
    if (rc->nsignaled > 0 || ++rc->scq_tick >= RC_SCQ_POLL_EVERY) {
        rc->scq_tick = 0;
        n = rc_send_poll(rc);
        rcmsg_rstat_add(RCMSG_RSTAT_empty_polls, n == 0);
        total += n;
    }
    rcmsg_rstat_add(RCMSG_RSTAT_cqes, (uint64_t)total);
    if (__builtin_expect(atomic_load_explicit(&rc->async_pending, memory_order_acquire), 0)) {
        rc_async_handle(rc);
    }
    if (__builtin_expect(rc->cm_hot || ++rc->cm_tick >= RC_CM_POLL_EVERY, 0)) {
        rc->cm_tick = 0;
        total += rc_conn_progress(rc); /* connects, disconnects, a peer's late REQ or REP */
        rc_sync_tick(rc);
    }
    return total;
}

/* ---- the progress thread's share (RCMSG_ASYNC_PROGRESS=control) ------------------------- */

/* Called by rc_async.c's thread while it owns btl_rc (rc_gate.h), from open on: after init's
 * connects (until then it only arms the CM's CQ, every 100 ms) it runs the
 * endpoints the async events marked (recovered), the CM (answers, retransmissions, the pool,
 * recycling, recoveries), the QP state sync; what it would hand up is deferred (rc_defer.h).
 * Returns when to run again in ms, -1: at the next event (a CM packet, an async event). */
static int rc_control(rc_btl_t *rc)
{
    uint64_t now, ms;
    int probe_ms;

    if (rc->closing) {
        return -1;
    }
    /* armed first, polled after: a packet between the two raises an event */
    if (rcmsg_rc_cm_arm(rc->cm) != RCMSG_OK) {
        return 1000; /* logged; try again, the application's calls still poll the CM */
    }
    if (!rc->conn.ready) {
        return 100; /* init's connects are the application's: look again soon */
    }
    if (atomic_load_explicit(&rc->async_pending, memory_order_acquire)) {
        rc_async_handle(rc);
    }
    if (rc->rec.n > 0 || rc->nsignaled > 0) {
        /* a broken qp drains into the send CQ (its flushed requests, then the marker): the
         * recovery waits for them; and a probe's (or a request's) error ends up there: the
         * application may be computing */
        while (rc_send_poll(rc) > 0) {
        }
    }
    rc_conn_progress(rc);
    rc_sync_tick(rc);
    probe_ms = rc_sync_probe(rc); /* peers silent for a round: probed */
    if (rc->cm_hot || atomic_load_explicit(&rc->async_pending, memory_order_acquire)) {
        ms = rc->config.cm_timeout_us / 4000; /* retransmissions and recovery deadlines */
        return ms < 1 ? 1 : ms > 100 ? 100 : (int)ms;
    }
    if (rc->nsignaled > 0) {
        probe_ms = probe_ms < 0 || probe_ms > 100 ? 100 : probe_ms; /* their completions */
    }
    if (rc->config.qp_sync_us == 0) {
        return probe_ms;
    }
    now = rcmsg_clock_coarse_us();
    ms = rc->sync.next_us > now ? (rc->sync.next_us - now) / 1000 + 1 : 1;
    ms = ms > 60000 ? 60000 : ms;
    return probe_ms >= 0 && (uint64_t)probe_ms < ms ? probe_ms : (int)ms;
}

/* A SIGUSR1 while finalize's flush waits (no progress of the layers above runs then): what it
 * waits for. */
static void rc_flush_dump(rcmsg_btl_t *btl, int pending)
{
    rcmsg_log_dump("begin (SIGUSR1)");
    rcmsg_log_dump("finalize: rc waits for the sends to %d peer(s) to complete (at most "
                   "RCMSG_DRAIN_TIMEOUT)",
                   pending);
    rcmsg_rc_btl_dump_state(btl);
    rcmsg_log_dump("end");
}

static rcmsg_status_t rc_flush(rcmsg_btl_t *btl)
{
    rc_btl_t *rc = rc_btl_of(btl);
    rcmsg_deadline_t deadline = rcmsg_deadline_in(rc->config.drain_timeout_us);
    int pending;

    rc_conn_finalize(rc); /* no connection is recycled from now on */
    for (;;) {
        pending = 0;
        for (int i = 0; i < rc->job.size; i++) {
            if (rc->eps[i].qp.qp != NULL && !rc->eps[i].failed && rc->eps[i].ring_count > 0) {
                rc_ep_flush(rc, i);
                pending++;
            }
        }
        if (pending == 0) {
            return RCMSG_OK;
        }
        if (rcmsg_deadline_passed(deadline)) {
            break;
        }
        if (rcmsg_dump_signal_take()) {
            rc_flush_dump(btl, pending);
        }
        rc_progress(btl);
    }
    rcmsg_error("flush timed out after %llu ms with sends pending to %d peer(s) "
                "(RCMSG_DRAIN_TIMEOUT); QP states follow",
                (unsigned long long)rc->config.drain_timeout_us / 1000, pending);
    rcmsg_rc_btl_dump(btl, RCMSG_LOG_ERROR);
    return RCMSG_ERR_TIMEOUT;
}

/* ---- completion events ----------------------------------------------------------------- */

static int rc_event_fd(rcmsg_btl_t *btl)
{
    return rc_btl_of(btl)->channel->fd;
}

static rcmsg_status_t rc_arm(rcmsg_btl_t *btl)
{
    rc_btl_t *rc = rc_btl_of(btl);
    struct ibv_cq *cq;
    void *cq_ctx;

    rc_sync_tick(rc);      /* a sleeping rank syncs too */
    rc_rx_repost_held(rc); /* every receive buffer posted before the rank sleeps */
    /* consume the events that woke us (the fd is non-blocking); one of the CM's CQ means a
     * packet to answer: the CM is polled on the next calls instead of every 256th; one of the
     * send CQ (an unsignaled request that failed, when none signaled is outstanding) has it
     * polled on the next call, not the 64th, which a sleeping wait reaches only seconds later */
    while (ibv_get_cq_event(rc->channel, &cq, &cq_ctx) == 0) {
        rc->cm_hot |= cq != rc->rcq && cq != rc->scq;
        if (cq == rc->scq) {
            rc->scq_tick = RC_SCQ_POLL_EVERY;
        }
        ibv_ack_cq_events(cq, 1);
    }
    if (ibv_req_notify_cq(rc->rcq, 0) != 0 || ibv_req_notify_cq(rc->scq, 0) != 0) {
        rcmsg_error("ibv_req_notify_cq on %s failed: %m", rc->dev->name);
        return RCMSG_ERR_IO;
    }
    if (rcmsg_rc_cm_arm(rc->cm) != RCMSG_OK) {
        return RCMSG_ERR_IO;
    }
    /* a connect or disconnect under way has retransmissions due, and a ring write (rc_fast.c)
     * raises no completion event: poll, do not sleep; nor with calls up the progress thread
     * deferred (one it defers while the rank sleeps comes with the receive CQ's event, or is
     * handed up at the wait's next wakeup) */
    return atomic_load_explicit(&rc->async_pending, memory_order_acquire) || rc->cm_hot ||
                   rc->fast.nrx > 0 || rc->defer.n != 0
               ? RCMSG_INPROGRESS
               : RCMSG_OK;
}

static void rc_close(rcmsg_btl_t *btl)
{
    rc_btl_t *rc = rc_btl_of(btl);

    rc_async_stop(rc); /* the thread first: nothing runs in btl_rc from now on but close */
    rcmsg_watch_forget(rc);
    rc->closing = true;
    for (int i = 0; rc->eps != NULL && i < rc->job.size; i++) {
        rcmsg_rc_qp_t *qp = &rc->eps[i].qp;
        if (qp->qp != NULL && ibv_destroy_qp(qp->qp) != 0) {
            rcmsg_warn("ibv_destroy_qp(qp 0x%x, peer %d) failed: %m", qp->qp->qp_num, i);
        }
        free(rc->eps[i].ring);
    }
    rc_pool_destroy(rc);
    rc_fast_close(rc);         /* the rings' registrations use the PD */
    rcmsg_rc_cm_close(rc->cm); /* its UD QP and address handles use the PD */
    rc_conn_close(rc);         /* the CM's completion channel, before the device */
    rc_rx_close(rc);
    if (rc->scq != NULL && ibv_destroy_cq(rc->scq) != 0) {
        rcmsg_warn("ibv_destroy_cq(send) failed: %m");
    }
    if (rc->rcq != NULL && ibv_destroy_cq(rc->rcq) != 0) {
        rcmsg_warn("ibv_destroy_cq(recv) failed: %m");
    }
    if (rc->channel != NULL && ibv_destroy_comp_channel(rc->channel) != 0) {
        rcmsg_warn("ibv_destroy_comp_channel failed: %m");
    }
    if (rc->smr != NULL) {
        ibv_dereg_mr(rc->smr);
    }
    if (rc->rmr != NULL) {
        ibv_dereg_mr(rc->rmr);
    }
    if (rc->pd != NULL && ibv_dealloc_pd(rc->pd) != 0) {
        rcmsg_warn("ibv_dealloc_pd failed: %m");
    }
    rcmsg_rc_device_close(rc->dev);
    rc_free_bufs(rc->rbufs, rc->rbufs_len, rc->rbufs_bound);
    rc_free_bufs(rc->sbufs, rc->sbufs_len, rc->sbufs_bound);
    free(rc->sbuf_free);
    rc_rec_close(rc);
    free(rc->wrs);
    free(rc->eps);
    rc_defer_fini(rc);
    rc_sync_fini(rc);
    rc_gate_fini(&rc->gate);
    free(rc);
}

/* ---- send and get: the choice of the path ---------------------------------------------- */

/* A send into the peer's ring (rc_fast.c) when it has one that takes the message, else by
 * SEND (rc_ep.c). */
static rcmsg_status_t rc_send_ring(rc_btl_t *rc, rc_ep_t *ep, int peer, const void *hdr,
                                   size_t hdr_len, const void *payload, size_t len)
{
    rcmsg_status_t status = rc_fast_send(rc, ep, peer, hdr, hdr_len, payload, len);
    bool fallback;

    if (status != RCMSG_ERR_UNSUPPORTED) {
        return status;
    }
    /* a ring, but no free slot, too long, a packet more, or no bounce buffer */
    fallback = ep->fast.tx.state == RC_FAST_ACTIVE;
    status = rc_ep_send(rc, peer, hdr, hdr_len, payload, len);
    if (fallback && status == RCMSG_OK) { /* counted once sent: a retry is not counted again */
        rcmsg_stat_add(peer, RCMSG_STAT_rdmaw_fallbacks, 1);
    }
    return status;
}

/* A send by ring or SEND (above); a peer not connected is handed to the connections
 * (rc_conn.c: a lazy connect, a reconnect after a recycle, or a failure). Without rings
 * (RCMSG_EAGER_RDMA=no, the default) the SEND is a tail call. */
static inline __attribute__((always_inline)) rcmsg_status_t rc_send(rcmsg_btl_t *btl, int peer,
                                                                    const void *hdr, size_t hdr_len,
                                                                    const void *payload, size_t len)
{
    rc_btl_t *rc = rc_btl_of(btl);
    rc_ep_t *ep;

    if (peer < 0 || peer >= rc->job.size || peer == rc->job.rank ||
        hdr_len + len > btl->caps.max_send) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    ep = &rc->eps[peer];
    if (__builtin_expect(!ep->connected, 0)) {
        return rc_conn_want(rc, peer); /* lazy connect, reconnect, or failed */
    }
    if (rc->fast.on) {
        return rc_send_ring(rc, ep, peer, hdr, hdr_len, payload, len);
    }
    return rc_ep_send_inl(rc, peer, hdr, hdr_len, payload, len); /* (rc_post.h: no call) */
}

static rcmsg_status_t rc_get(rcmsg_btl_t *btl, int peer, void *local, const rcmsg_btl_mem_t *lmem,
                             uint64_t remote_addr, uint32_t rkey, size_t len,
                             rcmsg_btl_desc_t *desc)
{
    rc_btl_t *rc = rc_btl_of(btl);
    rc_ep_t *ep;

    if (peer < 0 || peer >= rc->job.size || peer == rc->job.rank || len > btl->caps.max_get ||
        desc == NULL || desc->complete == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    ep = &rc->eps[peer];
    if (!ep->connected) {
        return rc_conn_want(rc, peer);
    }
    return rc_ep_get(rc, ep, peer, local, lmem, remote_addr, rkey, len, desc);
}

/* One-sided (src/osc): an RDMA_WRITE or ATOMIC on the peer's window. */
static rcmsg_status_t rc_put(rcmsg_btl_t *btl, int peer, const void *local,
                             const rcmsg_btl_mem_t *lmem, uint64_t remote_addr, uint32_t rkey,
                             size_t len, rcmsg_btl_desc_t *desc)
{
    rc_btl_t *rc = rc_btl_of(btl);
    rc_ep_t *ep;

    if (peer < 0 || peer >= rc->job.size || peer == rc->job.rank || len > btl->caps.max_get ||
        (lmem == NULL && len > btl->caps.max_inline) || desc == NULL || desc->complete == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    ep = &rc->eps[peer];
    if (!ep->connected) {
        return rc_conn_want(rc, peer);
    }
    return rc_ep_put(rc, ep, peer, local, lmem, remote_addr, rkey, len, desc);
}

static rcmsg_status_t rc_atomic(rcmsg_btl_t *btl, int peer, rcmsg_btl_atomic_t op, uint64_t *result,
                                const rcmsg_btl_mem_t *lmem, uint64_t remote_addr, uint32_t rkey,
                                uint64_t operand, uint64_t compare, rcmsg_btl_desc_t *desc)
{
    rc_btl_t *rc = rc_btl_of(btl);
    rc_ep_t *ep;

    if (peer < 0 || peer >= rc->job.size || peer == rc->job.rank || lmem == NULL ||
        (remote_addr % 8) != 0 || ((uintptr_t)result % 8) != 0 || desc == NULL ||
        desc->complete == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (rc->dev->attr.atomic_cap == IBV_ATOMIC_NONE) {
        return RCMSG_ERR_UNSUPPORTED;
    }
    ep = &rc->eps[peer];
    if (!ep->connected) {
        return rc_conn_want(rc, peer);
    }
    return rc_ep_atomic(rc, ep, peer, op, result, lmem, remote_addr, rkey, operand, compare, desc);
}

/* ---- the ops the application calls: each inside the gate (rc_gate.h) -------------------- */

#define RC_GATED(rc, call)                                                                         \
    do {                                                                                           \
        rc_gate_enter(&(rc)->gate);                                                                \
        call;                                                                                      \
        rc_gate_exit(&(rc)->gate);                                                                 \
    } while (0)

static rcmsg_status_t rc_connect_g(rcmsg_btl_t *btl, int peer, const void *buf, size_t len)
{
    rcmsg_status_t s;

    RC_GATED(rc_btl_of(btl), s = rc_connect(btl, peer, buf, len));
    return s;
}

static rcmsg_status_t rc_connect_progress_g(rcmsg_btl_t *btl)
{
    rcmsg_status_t s;

    RC_GATED(rc_btl_of(btl), s = rc_connect_progress(btl));
    return s;
}

static void rc_connect_poll_g(rcmsg_btl_t *btl)
{
    RC_GATED(rc_btl_of(btl), rc_connect_poll(btl));
}

static rcmsg_status_t rc_send_g(rcmsg_btl_t *btl, int peer, const void *hdr, size_t hdr_len,
                                const void *payload, size_t len)
{
    rcmsg_status_t s;

    if (!rc_btl_of(btl)->gate.on) {
        return rc_send(btl, peer, hdr, hdr_len, payload, len); /* no gate: a tail call */
    }
    RC_GATED(rc_btl_of(btl), s = rc_send(btl, peer, hdr, hdr_len, payload, len));
    return s;
}

static rcmsg_status_t rc_get_g(rcmsg_btl_t *btl, int peer, void *local, const rcmsg_btl_mem_t *lmem,
                               uint64_t remote_addr, uint32_t rkey, size_t len,
                               rcmsg_btl_desc_t *desc)
{
    rcmsg_status_t s;

    RC_GATED(rc_btl_of(btl), s = rc_get(btl, peer, local, lmem, remote_addr, rkey, len, desc));
    return s;
}

static rcmsg_status_t rc_put_g(rcmsg_btl_t *btl, int peer, const void *local,
                               const rcmsg_btl_mem_t *lmem, uint64_t remote_addr, uint32_t rkey,
                               size_t len, rcmsg_btl_desc_t *desc)
{
    rcmsg_status_t s;

    RC_GATED(rc_btl_of(btl), s = rc_put(btl, peer, local, lmem, remote_addr, rkey, len, desc));
    return s;
}

static rcmsg_status_t rc_atomic_g(rcmsg_btl_t *btl, int peer, rcmsg_btl_atomic_t op,
                                  uint64_t *result, const rcmsg_btl_mem_t *lmem,
                                  uint64_t remote_addr, uint32_t rkey, uint64_t operand,
                                  uint64_t compare, rcmsg_btl_desc_t *desc)
{
    rcmsg_status_t s;

    RC_GATED(rc_btl_of(btl),
             s = rc_atomic(btl, peer, op, result, lmem, remote_addr, rkey, operand, compare, desc));
    return s;
}

static rcmsg_status_t rc_ping_g(rcmsg_btl_t *btl, int peer)
{
    rcmsg_status_t s;

    RC_GATED(rc_btl_of(btl), s = rc_ping(btl, peer));
    return s;
}

static int rc_progress_g(rcmsg_btl_t *btl)
{
    int n;

    RC_GATED(rc_btl_of(btl), n = rc_progress(btl));
    return n;
}

/* The news the progress thread raised (base/watch.h), at the application's next call: what it
 * deferred is handed up now, before the call starts anything. */
static void rc_watch_take(void *arg)
{
    rc_btl_t *rc = arg;

    rc_gate_enter(&rc->gate);
    if (rc->defer.n != 0) {
        rc_defer_flush(rc);
    }
    rc_gate_exit(&rc->gate);
}

static rcmsg_status_t rc_flush_g(rcmsg_btl_t *btl)
{
    rcmsg_status_t s;

    RC_GATED(rc_btl_of(btl), s = rc_flush(btl));
    return s;
}

static void rc_forget_g(rcmsg_btl_t *btl, int peer)
{
    RC_GATED(rc_btl_of(btl), rc_forget(btl, peer));
}

static rcmsg_status_t rc_arm_g(rcmsg_btl_t *btl)
{
    rcmsg_status_t s;

    RC_GATED(rc_btl_of(btl), s = rc_arm(btl));
    return s;
}

/* What the floor (rc_ep.c, rc_rx.c) reaches above it. */
static const rc_up_ops_t rc_up_ops = {
    .wc_error = rc_rec_wc_error,
    .sq_cqe = rc_rec_sq_cqe,
    .ctl = rc_fast_ctl,
    .catch_up = rc_fast_catch_up,
    .heard = rc_conn_heard,
};

static const rcmsg_btl_ops_t rc_ops = {
    .addr_pack = rc_addr_pack,
    .connect = rc_connect_g,
    .connect_progress = rc_connect_progress_g,
    .connect_poll = rc_connect_poll_g,
    .send = rc_send_g,
    .get = rc_get_g,
    .put = rc_put_g,
    .atomic = rc_atomic_g,
    .mem_reg = rc_mem_reg,
    .mem_dereg = rc_mem_dereg,
    .ping = rc_ping_g,
    .progress = rc_progress_g,
    .flush = rc_flush_g,
    .forget = rc_forget_g,
    .event_fd = rc_event_fd,
    .arm = rc_arm_g,
    .close = rc_close,
};

/*
 * The NUMA node for buffers: the node the process is bound to, else the device's node, else
 * none (memory then follows the kernel's default policy). Logged at info level.
 */
static int rc_mem_node(rc_btl_t *rc)
{
    int node = rcmsg_topo_bound_numa();
    char where[64];

    if (node >= 0) {
        rcmsg_info("%s: buffers bound to numa node %d, the node of the process's cpu binding",
                   rc->dev->name, node);
        return node;
    }
    node = rcmsg_rc_device_numa(rc->dev, where, sizeof(where));
    if (node >= 0) {
        rcmsg_info("%s: buffers bound to numa node %d, the device's node (process not bound "
                   "to one node)",
                   rc->dev->name, node);
        return node;
    }
    rcmsg_info("%s: buffers not bound to a numa node: the process is not bound to one node and "
               "the device has %s",
               rc->dev->name, where);
    return -1;
}

/* Zeroed, page-aligned memory, bound to rc->mem_node when there is one (*bound_p). */
static void *rc_alloc_bufs(rc_btl_t *rc, size_t len, bool *bound_p)
{
    hwloc_topology_t topo = rcmsg_topo_get();
    void *p = NULL;

    if (rc->mem_node >= 0 && topo != NULL) {
        hwloc_obj_t numa = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)rc->mem_node);
        p = numa ? hwloc_alloc_membind(topo, len, numa->nodeset, HWLOC_MEMBIND_BIND,
                                       HWLOC_MEMBIND_BYNODESET)
                 : NULL;
        if (p == NULL) {
            rcmsg_warn("cannot bind %zu bytes to numa node %d (%m): unbound memory used", len,
                       rc->mem_node);
        }
    }
    *bound_p = p != NULL;
    if (p == NULL && posix_memalign(&p, 4096, len) != 0) {
        return NULL;
    }
    memset(p, 0, len); /* first touch: the pages are placed now */
    return p;
}

static void rc_free_bufs(void *p, size_t len, bool bound)
{
    if (p == NULL) {
        return;
    }
    if (bound) {
        hwloc_free(rcmsg_topo_get(), p, len);
    } else {
        free(p);
    }
}

void rcmsg_rc_btl_buffers(rcmsg_btl_t *btl, void **addr_p, size_t *len_p, int *node_p)
{
    rc_btl_t *rc = rc_btl_of(btl);

    *addr_p = rc->rbufs;
    *len_p = rc->rbufs_len;
    *node_p = rc->rbufs_bound ? rc->mem_node : -1;
}

/*
 * Shrinks the receive and send pools to fit half of the locked-memory limit (rc_memlock.h),
 * with a warning naming `ulimit -l` and the sizes chosen; an error when even the minimum does
 * not fit.
 */
static rcmsg_status_t rc_pools_fit_memlock(rc_btl_t *rc)
{
    size_t limit = rcmsg_rc_memlock_limit();
    int nr = rc->nrbufs, ns = rc->nsbufs;

    if (limit == SIZE_MAX) {
        return RCMSG_OK;
    }
    if (rcmsg_rc_pools_fit(limit, rc->buf_size, &nr, &ns) != RCMSG_OK) {
        rcmsg_error("the locked memory limit (memlock, 'ulimit -l') of %zu KiB is too low for rc "
                    "on %s: it needs at least %zu KiB (%d receive and %d send buffers of "
                    "RCMSG_SRQ_BUF_SIZE=%zu bytes, and as much again for queues and rendezvous "
                    "registrations); raise it: 'ulimit -l unlimited', or memlock in "
                    "/etc/security/limits.conf",
                    limit / 1024, rc->dev->name,
                    rcmsg_rc_pools_min_limit(rc->buf_size, rc->nrbufs, rc->nsbufs) / 1024,
                    nr < RCMSG_RC_MIN_RECV_BUFS ? nr : RCMSG_RC_MIN_RECV_BUFS,
                    ns < RCMSG_RC_MIN_SEND_BUFS ? ns : RCMSG_RC_MIN_SEND_BUFS, rc->buf_size);
        return RCMSG_ERR_NO_MEMORY;
    }
    if (nr != rc->nrbufs || ns != rc->nsbufs) {
        rcmsg_warn("the locked memory limit ('ulimit -l') is %zu KiB: rc on %s uses %d receive "
                   "buffers (RCMSG_SRQ_SIZE asks %d) and %d send buffers (RCMSG_SEND_BUFS asks "
                   "%d) of %zu bytes, %zu KiB, half the limit; raise 'ulimit -l' (unlimited is "
                   "usual for RDMA) for the sizes asked",
                   limit / 1024, rc->dev->name, nr, rc->nrbufs, ns, rc->nsbufs, rc->buf_size,
                   (size_t)(nr + ns) * rc->buf_size / 1024);
    }
    rc->nrbufs = nr;
    rc->nsbufs = ns;
    return RCMSG_OK;
}

/*
 * The send budget (slots = send CQ entries): eager, a full send queue for every peer; lazy,
 * for as many peers as are expected connected at once (RCMSG_QP_MAX_ACTIVE, at least
 * RCMSG_QP_POOL), so that the send CQ does not grow with the job. The slots bound the
 * requests outstanding over all QPs, not the QPs: more connections only share them.
 */
static long long rc_send_budget(const rc_btl_t *rc)
{
    long long peers = rc->job.size - 1;

    if (rc->conn.lazy) {
        long long hot = rc->config.qp_max_active > rc->config.qp_pool ? rc->config.qp_max_active
                                                                      : rc->config.qp_pool;
        peers = hot < peers ? hot : peers;
    }
    return peers * rc->sq_depth;
}

/* CQs, buffers and their registrations, sized from the configuration and the device. */
static rcmsg_status_t rc_resources_create(rc_btl_t *rc)
{
    int max_cqe = rc->dev->attr.max_cqe;
    long long want_wrs = rc_send_budget(rc);

    rc->buf_size = rc->config.buf_size;
    rc->nrbufs = rc->config.srq_size;
    rc->nsbufs = rc->config.send_bufs;
    if (rc->nrbufs > max_cqe || rc->nrbufs > rc->dev->attr.max_srq_wr) {
        rc->nrbufs = max_cqe < rc->dev->attr.max_srq_wr ? max_cqe : rc->dev->attr.max_srq_wr;
        rcmsg_warn("RCMSG_SRQ_SIZE capped to %d by %s (max_cqe %d, max_srq_wr %d)", rc->nrbufs,
                   rc->dev->name, max_cqe, rc->dev->attr.max_srq_wr);
    }
    if (rc_pools_fit_memlock(rc) != RCMSG_OK) {
        return RCMSG_ERR_NO_MEMORY;
    }
    rc->wr_total = (int)(want_wrs < max_cqe ? want_wrs : max_cqe);
    if (rc->wr_total < 1) {
        rc->wr_total = 1;
    }
    rc->pd = ibv_alloc_pd(rc->dev->ctx);
    rc->channel = rc->pd ? ibv_create_comp_channel(rc->dev->ctx) : NULL;
    rc->scq = rc->channel ? ibv_create_cq(rc->dev->ctx, rc->wr_total, NULL, rc->channel, 0) : NULL;
    rc->rcq = rc->scq ? ibv_create_cq(rc->dev->ctx, rc->nrbufs, NULL, rc->channel, 0) : NULL;
    if (rc->rcq != NULL) {
        int flags = fcntl(rc->channel->fd, F_GETFL);
        if (flags < 0 || fcntl(rc->channel->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
            rcmsg_error("cannot make the completion channel of %s non-blocking: %m", rc->dev->name);
            return RCMSG_ERR_IO;
        }
    }
    if (rc->rcq == NULL) {
        rcmsg_error("cannot allocate the PD and CQs (%d + %d entries) on %s: %m", rc->wr_total,
                    rc->nrbufs, rc->dev->name);
        return RCMSG_ERR_IO;
    }
    rc->mem_node = rc_mem_node(rc);
    rc->rbufs_len = (size_t)rc->nrbufs * rc->buf_size;
    rc->sbufs_len = (size_t)rc->nsbufs * rc->buf_size;
    rc->rbufs = rc_alloc_bufs(rc, rc->rbufs_len, &rc->rbufs_bound);
    rc->sbufs = rc_alloc_bufs(rc, rc->sbufs_len, &rc->sbufs_bound);
    rc->sbuf_free = calloc((size_t)rc->nsbufs, sizeof(int));
    rc->wrs = calloc((size_t)rc->wr_total, sizeof(*rc->wrs));
    if (rc->rbufs == NULL || rc->sbufs == NULL || rc->sbuf_free == NULL || rc->wrs == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    rc->rmr = rc_reg(rc, rc->rbufs, (size_t)rc->nrbufs * rc->buf_size, IBV_ACCESS_LOCAL_WRITE);
    rc->smr = rc->rmr ? rc_reg(rc, rc->sbufs, (size_t)rc->nsbufs * rc->buf_size, 0) : NULL;
    if (rc->smr == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    for (int i = 0; i < rc->nsbufs; i++) {
        rc->sbuf_free[i] = rc->nsbufs - 1 - i;
    }
    rc->sbuf_nfree = rc->nsbufs;
    for (int i = 0; i < rc->wr_total; i++) {
        rc->wrs[i].sbuf = -1;
        rc_wr_put(rc, &rc->wrs[i]);
    }
    rcmsg_info("%s:%d: send cq %d entries, recv cq and srq %d x %zu-byte buffers, %d send "
               "buffers, %u send wr per qp",
               rc->dev->name, rc->port, rc->wr_total, rc->nrbufs, rc->buf_size, rc->nsbufs,
               rc->sq_depth);
    return RCMSG_OK;
}

/* The port's attributes and GID, the inline size (*inl_p) and the outstanding reads. */
static rcmsg_status_t rc_port_setup(rc_btl_t *rc, unsigned *inl_p)
{
    rcmsg_status_t status = rcmsg_rc_port_query(rc->dev, rc->port, &rc->port_attr);

    if (status != RCMSG_OK) {
        return status;
    }
    status = rcmsg_rc_gid_select(rc->dev, rc->port, rc->config.gid_index, &rc->gid);
    if (status != RCMSG_OK && rc->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
        return status;
    }
    *inl_p = rcmsg_rc_max_inline(rc->dev, rc->config.max_inline);
    rc->rd_atomic = (unsigned)rc->dev->attr.max_qp_rd_atom;
    if (rc->rd_atomic > (unsigned)rc->dev->attr.max_qp_init_rd_atom) {
        rc->rd_atomic = (unsigned)rc->dev->attr.max_qp_init_rd_atom;
    }
    if (rc->rd_atomic > RC_RD_ATOMIC_MAX) {
        rc->rd_atomic = RC_RD_ATOMIC_MAX;
    }
    return RCMSG_OK;
}

rcmsg_status_t rcmsg_rc_btl_open(const rcmsg_btl_job_t *job, rcmsg_btl_t **btl_p)
{
    rc_btl_t *rc;
    rcmsg_status_t status;
    unsigned inl;
    uint64_t t0 = rcmsg_clock_us(), t_dev, t_res, t_qps;

    rc = calloc(1, sizeof(*rc));
    if (rc == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    rc->job = *job;
    rc->super.name = "rc";
    rc->super.ops = &rc_ops;
    rc->up = &rc_up_ops;
    rc_config_read(&rc->config);
    rc_defer_init(rc);
    if (rc_gate_init(&rc->gate, rc->config.control_thread) != RCMSG_OK) {
        free(rc);
        return RCMSG_ERR_IO;
    }
    rc->sq_depth = rc->config.sq_depth;
    rc->signal_interval = rc->config.signal_interval;
    if (rc->signal_interval > rc->sq_depth / 2) {
        rc->signal_interval = rc->sq_depth / 2;
    }
    rc->poll_batch = rc->config.poll_batch;

    status = rc_choose_port(job, &rc->config, &rc->dev, &rc->port);
    if (status != RCMSG_OK) {
        rc_gate_fini(&rc->gate);
        free(rc);
        return status;
    }
    status = rc_port_setup(rc, &inl);
    if (status != RCMSG_OK) {
        goto err_close;
    }
    rc->eps = calloc((size_t)job->size, sizeof(*rc->eps));
    if (rc->eps == NULL || rc_conn_init(rc) != RCMSG_OK) {
        status = RCMSG_ERR_NO_MEMORY;
        goto err_close;
    }
    t_dev = rcmsg_clock_us();
    status = rc_resources_create(rc);
    if (status != RCMSG_OK) {
        goto err_close;
    }
    rcmsg_stats.status_name = rc_wc_status_name; /* the counters' completion errors */
    rc->super.caps = (rcmsg_btl_caps_t){
        .max_send = rc->buf_size,
        .eager_limit = RCMSG_BTL_EAGER_DEFAULT, /* RCMSG_EAGER_LIMIT */
        .max_inline = inl < rc->buf_size ? inl : rc->buf_size,
        .max_get = rc->port_attr.max_msg_sz,
        .max_gets = rc->rd_atomic,
        .chunked_gets = 1,
    };
    rc_pool_init(rc);
    status = rc_rec_setup(rc);
    if (status == RCMSG_OK) {
        status = rc_fast_setup(rc);
    }
    if (status == RCMSG_OK) {
        status = rc_rx_setup(rc); /* receives are posted before any QP can reach RTR */
    }
    t_res = rcmsg_clock_us();
    if (status == RCMSG_OK) {
        status = rc_cm_start(rc);
    }
    t_qps = rcmsg_clock_us();
    if (status == RCMSG_OK) {
        status = rc_async_start(rc, rc->config.control_thread ? rc_control : NULL);
    }
    if (status == RCMSG_OK && rc->config.control_thread) {
        status = rcmsg_watch_take_add(rc_watch_take, rc);
    }
    if (status != RCMSG_OK) {
        goto err_close;
    }
    rcmsg_info("%s:%d: %s connect (RCMSG_CONNECT=%s, %d ranks, progress thread: %s), max inline "
               "%zu, max rd atomic %u, mtu %d; device choice and open %.1f ms, cqs/srq/buffers "
               "%.1f ms, cm %.1f ms",
               rc->dev->name, rc->port, rc->conn.lazy ? "lazy" : "eager", rc->config.connect_name,
               job->size, rc->config.control_thread ? "control" : "async events only",
               rc->super.caps.max_inline, rc->rd_atomic,
               rcmsg_rc_mtu_bytes(rc->port_attr.active_mtu), (double)(t_dev - t0) / 1e3,
               (double)(t_res - t_dev) / 1e3, (double)(t_qps - t_res) / 1e3);
    *btl_p = &rc->super;
    return RCMSG_OK;

err_close:
    rc_close(&rc->super);
    return status;
}

void rcmsg_rc_btl_dump(rcmsg_btl_t *btl, rcmsg_log_level_t level)
{
    rc_btl_t *rc = rc_btl_of(btl);

    if (!rcmsg_log_enabled(level)) {
        return;
    }
    /* the application's (wireup's debug dump, a flush that timed out): the progress thread may
     * own btl_rc now (rc_gate.h; TSan saw it write a QP this read) */
    rc_gate_enter(&rc->gate);
    rcmsg_log(level, "%s:%d: %d/%d send slots free, %d/%d send buffers free", rc->dev->name,
              rc->port, rc->wr_nfree, rc->wr_total, rc->sbuf_nfree, rc->nsbufs);
    for (int i = 0; i < rc->job.size; i++) {
        rcmsg_rc_qp_dump(&rc->eps[i].qp, 1, level);
        if (rc->eps[i].qp.qp != NULL && rc->eps[i].ring_count > 0) {
            char ring[256];
            rc_sync_ring_str(rc, &rc->eps[i], ring, sizeof(ring));
            rcmsg_log(level, "  peer %d: %s", i, ring);
        }
    }
    rc_gate_exit(&rc->gate);
}
