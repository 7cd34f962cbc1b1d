/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_self: loopback to the same rank. send() copies into a queued slot that progress()
 * hands to the receive callback; get() is a memcpy whose completion is also reported from
 * progress(), so callers see the same ordering rules as on a real transport.
 */
#include "config.h"

#include "self_btl.h"

#include "base/log.h"
#include "base/queue.h"
#include "btl/btl_component.h"

#include <stdlib.h>
#include <string.h>

#define SELF_MAX_SEND (64 * 1024)

typedef struct self_msg {
    rcmsg_queue_link_t link; /* in the queue or the free list */
    size_t len;
    rcmsg_btl_desc_t *desc; /* a finished get, or NULL for a message */
    char data[SELF_MAX_SEND];
} self_msg_t;

typedef struct {
    rcmsg_btl_t super;
    int rank;
    rcmsg_queue_t queue;     /* queued, in order */
    rcmsg_queue_t free_list; /* slots kept for reuse */
} self_btl_t;

static inline self_btl_t *self_btl_of(rcmsg_btl_t *btl)
{
    return (self_btl_t *)btl;
}

static self_msg_t *self_msg_of(rcmsg_queue_link_t *l)
{
    return l != NULL ? RCMSG_CONTAINER_OF(l, self_msg_t, link) : NULL;
}

static self_msg_t *self_slot(self_btl_t *self)
{
    self_msg_t *m = self_msg_of(rcmsg_queue_pop_head(&self->free_list));

    return m != NULL ? m : malloc(sizeof(*m));
}

static rcmsg_status_t self_addr_pack(rcmsg_btl_t *btl, void *buf, size_t *len_p)
{
    (void)btl;
    (void)buf;
    *len_p = 0;
    return RCMSG_OK;
}

static rcmsg_status_t self_connect(rcmsg_btl_t *btl, int peer, const void *addr, size_t len)
{
    (void)addr;
    (void)len;
    return peer == self_btl_of(btl)->rank ? RCMSG_OK : RCMSG_ERR_INVALID_PARAM;
}

static rcmsg_status_t self_send(rcmsg_btl_t *btl, int peer, const void *hdr, size_t hdr_len,
                                const void *payload, size_t len)
{
    self_btl_t *self = self_btl_of(btl);
    self_msg_t *m;

    if (peer != self->rank || hdr_len + len > SELF_MAX_SEND) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    m = self_slot(self);
    if (m == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    memcpy(m->data, hdr, hdr_len);
    if (len > 0) {
        memcpy(m->data + hdr_len, payload, len);
    }
    m->len = hdr_len + len;
    m->desc = NULL;
    rcmsg_queue_push_tail(&self->queue, &m->link);
    return RCMSG_OK;
}

static rcmsg_status_t self_get(rcmsg_btl_t *btl, int peer, void *local, const rcmsg_btl_mem_t *lmem,
                               uint64_t remote_addr, uint32_t rkey, size_t len,
                               rcmsg_btl_desc_t *desc)
{
    self_btl_t *self = self_btl_of(btl);
    self_msg_t *m;

    (void)lmem;
    (void)rkey;
    if (peer != self->rank || desc == NULL || desc->complete == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    m = self_slot(self);
    if (m == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    memcpy(local, (const void *)(uintptr_t)remote_addr, len);
    desc->peer = peer;
    desc->len = len;
    m->desc = desc;
    m->len = 0;
    rcmsg_queue_push_tail(&self->queue, &m->link);
    return RCMSG_OK;
}

/* A one-sided operation done at once (the same address space), its desc completed from
 * progress like a get's. */
static rcmsg_status_t self_done(self_btl_t *self, rcmsg_btl_desc_t *desc, size_t len)
{
    self_msg_t *m = self_slot(self);

    if (m == NULL) {
        return RCMSG_ERR_NO_RESOURCE;
    }
    desc->peer = self->rank;
    desc->len = len;
    m->desc = desc;
    m->len = 0;
    rcmsg_queue_push_tail(&self->queue, &m->link);
    return RCMSG_OK;
}

static rcmsg_status_t self_put(rcmsg_btl_t *btl, int peer, const void *local,
                               const rcmsg_btl_mem_t *lmem, uint64_t remote_addr, uint32_t rkey,
                               size_t len, rcmsg_btl_desc_t *desc)
{
    self_btl_t *self = self_btl_of(btl);

    (void)lmem;
    (void)rkey;
    if (peer != self->rank || desc == NULL || desc->complete == NULL) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    memmove((void *)(uintptr_t)remote_addr, local, len);
    return self_done(self, desc, len);
}

/* The CPU's atomics (the same as btl_sm's fallback does at the target: src/osc). */
static rcmsg_status_t self_atomic(rcmsg_btl_t *btl, int peer, rcmsg_btl_atomic_t op,
                                  uint64_t *result, const rcmsg_btl_mem_t *lmem,
                                  uint64_t remote_addr, uint32_t rkey, uint64_t operand,
                                  uint64_t compare, rcmsg_btl_desc_t *desc)
{
    self_btl_t *self = self_btl_of(btl);
    uint64_t *target = (uint64_t *)(uintptr_t)remote_addr;

    (void)lmem;
    (void)rkey;
    if (peer != self->rank || desc == NULL || desc->complete == NULL || (remote_addr % 8) != 0) {
        return RCMSG_ERR_INVALID_PARAM;
    }
    if (op == RCMSG_BTL_ATOMIC_FADD) {
        *result = __atomic_fetch_add(target, operand, __ATOMIC_SEQ_CST);
    } else {
        __atomic_compare_exchange_n(target, &compare, operand, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
        *result = compare; /* the old value, swapped or not */
    }
    return self_done(self, desc, sizeof(uint64_t));
}

static int self_progress(rcmsg_btl_t *btl)
{
    self_btl_t *self = self_btl_of(btl);
    rcmsg_queue_t now;
    self_msg_t *m;
    int n = 0;

    if (rcmsg_queue_empty(&self->queue)) {
        return 0; /* every progress call comes here: the common case first */
    }
    /* take what is queued now: a callback that sends to self is served next time */
    now = self->queue;
    rcmsg_queue_init(&self->queue);
    while ((m = self_msg_of(rcmsg_queue_pop_head(&now))) != NULL) {
        if (m->desc != NULL) {
            m->desc->complete(m->desc, RCMSG_OK);
        } else {
            (void)btl->recv_cb(btl->cb_arg, self->rank, m->data, m->len);
        }
        rcmsg_queue_push_head(&self->free_list, &m->link);
        n++;
    }
    return n;
}

static rcmsg_status_t self_arm(rcmsg_btl_t *btl)
{
    return !rcmsg_queue_empty(&self_btl_of(btl)->queue) ? RCMSG_INPROGRESS : RCMSG_OK;
}

static void self_close(rcmsg_btl_t *btl)
{
    self_btl_t *self = self_btl_of(btl);
    self_msg_t *m;

    while ((m = self_msg_of(rcmsg_queue_pop_head(&self->queue))) != NULL) {
        free(m);
    }
    while ((m = self_msg_of(rcmsg_queue_pop_head(&self->free_list))) != NULL) {
        free(m);
    }
    free(self);
}

static const rcmsg_btl_ops_t self_ops = {
    .addr_pack = self_addr_pack,
    .connect = self_connect,
    .send = self_send,
    .get = self_get,
    .put = self_put,
    .atomic = self_atomic,
    .mem_reg = rcmsg_btl_mem_reg_none,
    .mem_dereg = rcmsg_btl_mem_dereg_none,
    .ping = rcmsg_btl_ping_none, /* lost peers are noticed without probes */
    .progress = self_progress,
    .connect_progress = rcmsg_btl_connect_progress_none,
    .flush = rcmsg_btl_flush_none, /* a send to self is complete at once */
    .forget = rcmsg_btl_forget_none,
    .event_fd = rcmsg_btl_event_fd_none, /* only this thread queues */
    .arm = self_arm,
    .close = self_close,
};

rcmsg_status_t rcmsg_self_btl_open(const rcmsg_btl_job_t *job, rcmsg_btl_t **btl_p)
{
    self_btl_t *self = calloc(1, sizeof(*self));

    if (self == NULL) {
        return RCMSG_ERR_NO_MEMORY;
    }
    self->rank = job->rank;
    self->super.name = "self";
    self->super.ops = &self_ops;
    self->super.caps = (rcmsg_btl_caps_t){.max_send = SELF_MAX_SEND,
                                          .eager_limit = RCMSG_BTL_EAGER_DEFAULT,
                                          .max_inline = 0,
                                          .max_get = SIZE_MAX,
                                          .max_gets = 16};
    *btl_p = &self->super;
    return RCMSG_OK;
}

static size_t self_addr_max(const rcmsg_btl_job_t *job)
{
    (void)job;
    return 0; /* self_addr_pack writes nothing */
}

static bool self_reachable(rcmsg_btl_t *btl, int peer, const void *addr, size_t len)
{
    (void)addr;
    (void)len;
    return peer == self_btl_of(btl)->rank;
}

const rcmsg_btl_component_t rcmsg_btl_self_component = {
    .name = "self",
    .priority = 100,
    .reach = RCMSG_BTL_REACH_SELF,
    .always = true, /* RCMSG_TRANSPORTS cannot exclude it */
    .addr_max = self_addr_max,
    .open = rcmsg_self_btl_open,
    .reachable = self_reachable,
};
