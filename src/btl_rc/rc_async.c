/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the progress thread. With RCMSG_ASYNC_PROGRESS=control it runs the control plane
 * (rc_btl.c's rc_control: the CM, recoveries, the QP state sync) whenever it can own btl_rc
 * (rc_gate.h: the application is outside every rc op), woken by a CM packet, an async event
 * or its timeout. With no, it only reads the device's async events. A QP or device error
 * marks the endpoints concerned (rc_ep_t.async_event) and rc->async_pending, and the next
 * progress call handles them on the progress thread (rc_async_handle): a severe QP error
 * (QP fatal, path migration) is recovered by re-creating the QP (rc_rec.c), any other fails the
 * peer. A port going down is logged; when it comes back (PORT_ACTIVE) the reconnects of the
 * connections that broke meanwhile are sent at once (rc->async.port_up).
 */
#include "config.h"

#include "rc_iface.h"

#include "base/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* Called by progress once the thread set rc->async_pending. */
void rc_async_handle(rc_btl_t *rc)
{
    atomic_store_explicit(&rc->async_pending, 0, memory_order_relaxed);
    for (int i = 0; i < rc->job.size; i++) {
        int event = atomic_exchange_explicit(&rc->eps[i].async_event, 0, memory_order_acquire);
        if (event != 0) {
            rc_rec_async(rc, i, (enum ibv_event_type)(event - 1));
        }
        if (__builtin_expect(rc->eps[i].post_err != 0, 0)) { /* marked by rc_post */
            int err = rc->eps[i].post_err;
            rc->eps[i].post_err = 0;
            rc_rec_start(rc, i, (rc_cause_t){.kind = RC_CAUSE_POST, .code = err}, false);
        }
    }
}

bool rc_async_port_up(rc_btl_t *rc)
{
    return atomic_exchange_explicit(&rc->async.port_up, 0, memory_order_acquire) != 0;
}

static void rc_async_event(rc_btl_t *rc, struct ibv_async_event *ev)
{
    rc_ep_t *ep;

    switch (ev->event_type) {
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_QP_ACCESS_ERR:
    case IBV_EVENT_PATH_MIG_ERR:
        ep = ev->element.qp->qp_context;
        rcmsg_log(rc->recovery && (ev->event_type == IBV_EVENT_QP_FATAL ||
                                   ev->event_type == IBV_EVENT_PATH_MIG_ERR)
                      ? RCMSG_LOG_WARN
                      : RCMSG_LOG_ERROR,
                  "async event %s on qp 0x%x (peer %d, %s:%d, state %s)",
                  ibv_event_type_str(ev->event_type), ev->element.qp->qp_num, ep->qp.peer,
                  rc->dev->name, rc->port, rcmsg_rc_qp_state_name(ep->qp.state));
        atomic_store_explicit(&ep->async_event, (int)ev->event_type + 1, memory_order_release);
        atomic_store_explicit(&rc->async_pending, 1, memory_order_release);
        break;
    case IBV_EVENT_COMM_EST:
    case IBV_EVENT_SQ_DRAINED:
    case IBV_EVENT_QP_LAST_WQE_REACHED:
        ep = ev->element.qp->qp_context;
        rcmsg_debug("async event %s on qp 0x%x (peer %d)", ibv_event_type_str(ev->event_type),
                    ev->element.qp->qp_num, ep->qp.peer);
        break;
    case IBV_EVENT_SRQ_LIMIT_REACHED:
        rcmsg_warn("async event %s on %s: receive buffers are consumed faster than this rank "
                   "progresses (RCMSG_SRQ_SIZE=%d)",
                   ibv_event_type_str(ev->event_type), rc->dev->name, rc->config.srq_size);
        break;
    case IBV_EVENT_SRQ_ERR:
    case IBV_EVENT_CQ_ERR:
    case IBV_EVENT_DEVICE_FATAL:
        rcmsg_error("async event %s on %s: the device is unusable",
                    ibv_event_type_str(ev->event_type), rc->dev->name);
        for (int i = 0; i < rc->job.size; i++) {
            if (rc->eps[i].qp.qp != NULL) {
                atomic_store_explicit(&rc->eps[i].async_event, (int)ev->event_type + 1,
                                      memory_order_release);
            }
        }
        atomic_store_explicit(&rc->async_pending, 1, memory_order_release);
        break;
    case IBV_EVENT_PORT_ERR:
        if (rc->recovery) {
            rcmsg_warn("async event %s on %s:%d: the port went down; connections that break "
                       "meanwhile recover when it is back, if within RCMSG_RECOVERY_TIMEOUT "
                       "(%.1f s)",
                       ibv_event_type_str(ev->event_type), rc->dev->name, ev->element.port_num,
                       (double)rc->config.recovery_timeout_us / 1e6);
        } else {
            rcmsg_error("async event %s on %s:%d: the port went down; peers will fail once their "
                        "retries run out (RCMSG_RECOVERY=no)",
                        ibv_event_type_str(ev->event_type), rc->dev->name, ev->element.port_num);
        }
        break;
    case IBV_EVENT_PORT_ACTIVE:
        rcmsg_info("async event %s on %s:%d: the port is up", ibv_event_type_str(ev->event_type),
                   rc->dev->name, ev->element.port_num);
        atomic_store_explicit(&rc->async.port_up, 1, memory_order_release);
        break;
    default:
        rcmsg_info("async event %s on %s", ibv_event_type_str(ev->event_type), rc->dev->name);
        break;
    }
}

/* The events of the CM's CQ that woke the thread, consumed (the CQ is polled by control). */
static void rc_async_cm_events(rc_btl_t *rc)
{
    struct ibv_cq *cq;
    void *cq_ctx;

    while (ibv_get_cq_event(rc->conn.cm_channel, &cq, &cq_ctx) == 0) {
        ibv_ack_cq_events(cq, 1);
    }
}

/* How soon the thread tries again when the application was inside an rc op: it progresses by
 * itself then, but may leave at once for a long compute phase. */
#define RC_ASYNC_RETRY_MS 10

/* The control plane, when the thread can own btl_rc; returns poll's next timeout. */
static int rc_async_control(rc_btl_t *rc)
{
    unsigned deferred;
    int timeout;

    if (!rc_gate_claim(&rc->gate)) {
        return RC_ASYNC_RETRY_MS;
    }
    deferred = rc->defer.n;
    timeout = rc->async.control(rc);
    if (rc->defer.n != deferred) {
        /* a peer failed, a message was drained...: the application's next call hands it up at
         * once (rc_btl.c's take), even one that does not poll first */
        rcmsg_watch_raise();
    }
    rc_gate_release(&rc->gate);
    return timeout;
}

/*
 * The thread sleeps in poll() on the device's async fd, its wake fd and, with control, the
 * CM's completion channel; its timeout is what control asked (the CM's retransmissions and
 * recovery deadlines while connects or recoveries are under way, else the next QP state sync).
 * Idle it costs one wakeup per RCMSG_QP_SYNC_INTERVAL.
 */
static void *rc_async_main(void *arg)
{
    rc_btl_t *rc = arg;
    struct pollfd fds[3] = {
        {.fd = rc->dev->ctx->async_fd, .events = POLLIN},
        {.fd = rc->async.wake_fd, .events = POLLIN},
        {.fd = rc->conn.cm_channel != NULL ? rc->conn.cm_channel->fd : -1, .events = POLLIN}};
    int timeout = rc->async.control != NULL ? 0 : -1; /* control arms the CM's CQ at once */

    for (;;) {
        struct ibv_async_event ev;

        if (poll(fds, 3, timeout) < 0) {
            if (errno == EINTR) {
                continue;
            }
            rcmsg_error("poll on the async event fd of %s failed: %m", rc->dev->name);
            break;
        }
        rc->async.wakeups++;
        if (fds[1].revents != 0) {
            break;
        }
        while (ibv_get_async_event(rc->dev->ctx, &ev) == 0) {
            rc_async_event(rc, &ev);
            ibv_ack_async_event(&ev);
        }
        if (fds[2].revents != 0) {
            rc_async_cm_events(rc);
        }
        if (rc->async.control != NULL) {
            timeout = rc_async_control(rc);
        }
    }
    return NULL;
}

rcmsg_status_t rc_async_start(rc_btl_t *rc, rc_control_fn_t control)
{
    int flags = fcntl(rc->dev->ctx->async_fd, F_GETFL);
    int err;

    if (flags < 0 || fcntl(rc->dev->ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        rcmsg_error("cannot make the async fd of %s non-blocking: %m", rc->dev->name);
        return RCMSG_ERR_IO;
    }
    rc->async.control = control;
    rc->async.wake_fd = eventfd(0, EFD_CLOEXEC);
    if (rc->async.wake_fd < 0) {
        rcmsg_error("eventfd failed: %m");
        return RCMSG_ERR_IO;
    }
    err = pthread_create(&rc->async.thread, NULL, rc_async_main, rc);
    if (err != 0) {
        rcmsg_error("rc: cannot start the progress thread (RCMSG_ASYNC_PROGRESS=%s): %s",
                    control != NULL ? "control" : "no, the async event thread", strerror(err));
        close(rc->async.wake_fd);
        return RCMSG_ERR_IO;
    }
    rc->async.running = true;
    return RCMSG_OK;
}

void rc_async_stop(rc_btl_t *rc)
{
    uint64_t one = 1;

    if (!rc->async.running) {
        return;
    }
    if (write(rc->async.wake_fd, &one, sizeof(one)) != sizeof(one)) {
        rcmsg_warn("cannot wake the async event thread: %m");
    }
    pthread_join(rc->async.thread, NULL);
    rcmsg_debug("rc: progress thread: %lu wakeups", rc->async.wakeups);
    close(rc->async.wake_fd);
    rc->async.running = false;
}
