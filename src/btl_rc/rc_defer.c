/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the calls up, and the queue of those the progress thread defers (rc_defer.h).
 */
#include "config.h"

#include "rc_iface.h"

#include "base/event.h"
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { RC_UP_RECV, RC_UP_FAIL, RC_UP_BROKE, RC_UP_COMPLETE, RC_UP_EVENT } rc_up_kind_t;

typedef struct rc_defer_item {
    struct rc_defer_item *next;
    rc_up_kind_t kind;
    int peer;
    rcmsg_status_t status;
    rcmsg_event_kind_t event;
    rcmsg_btl_desc_t *desc;
    size_t len;
    char data[]; /* the message, or the cause (NUL-terminated) */
} rc_defer_item_t;

void rc_defer_init(rc_btl_t *rc)
{
    rc->defer.head = NULL;
    rc->defer.tail = &rc->defer.head;
    rc->defer.n = 0;
    rc->defer.lost_peer = -1;
}

void rc_defer_fini(rc_btl_t *rc)
{
    while (rc->defer.head != NULL) {
        rc_defer_item_t *it = rc->defer.head;
        rc->defer.head = it->next;
        free(it);
    }
    rc_defer_init(rc);
}

/* A new item at the tail (NULL without memory: the caller says what is lost). */
static rc_defer_item_t *rc_defer_push(rc_btl_t *rc, rc_up_kind_t kind, int peer, size_t len)
{
    rc_defer_item_t *it = malloc(sizeof(*it) + len);

    if (it == NULL) {
        return NULL;
    }
    *it = (rc_defer_item_t){.kind = kind, .peer = peer, .len = len};
    *rc->defer.tail = it;
    rc->defer.tail = &it->next;
    rc->defer.n++;
    return it;
}

static void rc_defer_call(rc_btl_t *rc, rc_defer_item_t *it)
{
    switch (it->kind) {
    case RC_UP_RECV:
        (void)rc->super.recv_cb(rc->super.cb_arg, it->peer, it->data, it->len);
        break;
    case RC_UP_FAIL:
        if (rc->super.fail_cb != NULL) {
            rc->super.fail_cb(rc->super.cb_arg, it->peer, RCMSG_ERR_CONNECTION, it->data);
        }
        break;
    case RC_UP_BROKE:
        if (rc->super.broke_cb != NULL) {
            rc->super.broke_cb(rc->super.cb_arg, it->peer);
        }
        break;
    case RC_UP_COMPLETE:
        it->desc->complete(it->desc, it->status);
        break;
    case RC_UP_EVENT:
        rcmsg_event_post(it->event, it->peer, "rc", RCMSG_OK, "%s", it->data);
        break;
    }
}

void rc_defer_flush(rc_btl_t *rc)
{
    rc_defer_item_t *it;

    /* one at a time off the head: a call up that polls again (nested) takes the next */
    while ((it = rc->defer.head) != NULL) {
        rc->defer.head = it->next;
        if (rc->defer.head == NULL) {
            rc->defer.tail = &rc->defer.head;
        }
        rc->defer.n--;
        rc_defer_call(rc, it);
        free(it);
    }
    if (rc->defer.lost_peer >= 0 && rc->super.fail_cb != NULL) {
        int peer = rc->defer.lost_peer;
        rc->defer.lost_peer = -1;
        rc->super.fail_cb(rc->super.cb_arg, peer, RCMSG_ERR_CONNECTION,
                          "rc: a message, failure or completion of this peer that the progress "
                          "thread took could not be kept (out of memory)");
    }
    rc->defer.lost_peer = -1;
    rc->defer.n = 0; /* a lost item was counted without one queued */
}

/* rc_up_recv in the progress thread: the message kept for the application's next poll. */
static __attribute__((noinline)) void rc_up_recv_defer(rc_btl_t *rc, int peer, const void *data,
                                                       size_t len)
{
    rc_defer_item_t *it = rc_defer_push(rc, RC_UP_RECV, peer, len);

    if (it == NULL) {
        rcmsg_error("rc: progress thread: no memory to keep a %zu-byte message from peer %d", len,
                    peer);
        rc->defer.lost_peer = peer;
        rc->defer.n++; /* the application's next poll fails the peer */
        return;
    }
    memcpy(it->data, data, len);
}

/* (The thread's case out of line: the application's is a test and a tail call, without the
 * registers the other one saves: callgrind, 10 instructions a message less.) */
void rc_up_recv(rc_btl_t *rc, int peer, const void *data, size_t len)
{
    if (__builtin_expect(!rc->gate.in_thread, 1)) {
        (void)rc->super.recv_cb(rc->super.cb_arg, peer, data, len);
        return;
    }
    rc_up_recv_defer(rc, peer, data, len);
}

/* A deferred call with a text (the cause of a failure, an event's). */
static rc_defer_item_t *rc_defer_text(rc_btl_t *rc, rc_up_kind_t kind, int peer, const char *text)
{
    size_t len = strlen(text) + 1;
    rc_defer_item_t *it = rc_defer_push(rc, kind, peer, len);

    if (it == NULL) {
        rcmsg_error("rc: progress thread: no memory to defer a call up for peer %d: %s", peer,
                    text);
        if (kind == RC_UP_FAIL) {
            rc->defer.lost_peer = peer;
            rc->defer.n++;
        }
        return NULL;
    }
    memcpy(it->data, text, len);
    return it;
}

void rc_up_fail(rc_btl_t *rc, int peer, const char *cause)
{
    if (rc->super.fail_cb == NULL) {
        return;
    }
    if (!rc->gate.in_thread) {
        rc->super.fail_cb(rc->super.cb_arg, peer, RCMSG_ERR_CONNECTION, cause);
        return;
    }
    (void)rc_defer_text(rc, RC_UP_FAIL, peer, cause);
}

void rc_up_broke(rc_btl_t *rc, int peer)
{
    if (rc->super.broke_cb == NULL) {
        return;
    }
    if (!rc->gate.in_thread) {
        rc->super.broke_cb(rc->super.cb_arg, peer);
        return;
    }
    if (rc_defer_push(rc, RC_UP_BROKE, peer, 0) == NULL) {
        rcmsg_error("rc: progress thread: no memory to defer the break of peer %d", peer);
        rc->defer.lost_peer = peer;
        rc->defer.n++;
    }
}

void rc_up_complete(rc_btl_t *rc, rcmsg_btl_desc_t *desc, rcmsg_status_t status)
{
    rc_defer_item_t *it;

    if (__builtin_expect(!rc->gate.in_thread, 1)) {
        desc->complete(desc, status);
        return;
    }
    it = rc_defer_push(rc, RC_UP_COMPLETE, desc->peer, 0);
    if (it == NULL) {
        rcmsg_error("rc: progress thread: no memory to defer the completion of a read from "
                    "peer %d",
                    desc->peer);
        rc->defer.lost_peer = desc->peer;
        rc->defer.n++;
        return;
    }
    it->desc = desc;
    it->status = status;
}

void rc_up_event(rc_btl_t *rc, rcmsg_event_kind_t kind, int peer, const char *fmt, ...)
{
    char text[256];
    rc_defer_item_t *it;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (!rc->gate.in_thread) {
        rcmsg_event_post(kind, peer, "rc", RCMSG_OK, "%s", text);
        return;
    }
    it = rc_defer_text(rc, RC_UP_EVENT, peer, text);
    if (it != NULL) {
        it->event = kind;
    }
}
