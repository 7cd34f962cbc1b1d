/* SPDX-License-Identifier: BSD-3-Clause */
/* The event queue and the application's handler. */
#include "config.h"

#include "event.h"

#include "base/log.h"
#include "base/stats.h"
#include "base/mt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define EVENT_CAUSE_MAX 200

typedef struct {
    rcmsg_event_t ev;
    char cause[EVENT_CAUSE_MAX];
} event_slot_t;

unsigned rcmsg_event_queued;

static struct {
    rcmsg_event_handler_t handler;
    void *arg;
    event_slot_t ring[RCMSG_EVENT_QUEUE];
    unsigned head, tail; /* taken at head, posted at tail; free-running */
    bool delivering;     /* the handler runs: a nested progress does not deliver */
} ev;

rcmsg_status_t rcmsg_event_handler_set(rcmsg_event_handler_t handler, void *arg)
{
    RCMSG_MT_GUARD();
    ev.handler = handler;
    ev.arg = arg;
    return RCMSG_OK;
}

const char *rcmsg_event_kind_name(rcmsg_event_kind_t kind)
{
    static const char *const names[] = {"connected", "disconnected", "recovered", "peer failed"};

    return (unsigned)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "unknown";
}

void rcmsg_event_post(rcmsg_event_kind_t kind, int peer, const char *transport,
                      rcmsg_status_t status, const char *fmt, ...)
{
    event_slot_t *slot;
    va_list ap;

    if (ev.handler == NULL) {
        return;
    }
    if (ev.tail - ev.head >= RCMSG_EVENT_QUEUE) {
        if (rcmsg_stats.r[RCMSG_RSTAT_events_dropped]++ == 0) {
            rcmsg_warn("event queue full (%d events not yet delivered): the %s event of peer %d "
                       "is dropped, and so are later ones until progress delivers the queue",
                       RCMSG_EVENT_QUEUE, rcmsg_event_kind_name(kind), peer);
        }
        return;
    }
    slot = &ev.ring[ev.tail++ % RCMSG_EVENT_QUEUE];
    rcmsg_event_queued = ev.tail - ev.head;
    va_start(ap, fmt);
    vsnprintf(slot->cause, sizeof(slot->cause), fmt, ap);
    va_end(ap);
    slot->ev = (rcmsg_event_t){
        .kind = kind, .peer = peer, .transport = transport, .status = status, .cause = slot->cause};
}

int rcmsg_event_deliver(void)
{
    int n = 0;

    if (ev.delivering) {
        return 0;
    }
    ev.delivering = true;
    while (ev.head != ev.tail) {
        event_slot_t *slot = &ev.ring[ev.head % RCMSG_EVENT_QUEUE];

        if (ev.handler != NULL) {
            ev.handler(&slot->ev, ev.arg);
        }
        ev.head++; /* after the call: the slot's cause stays valid during it */
        rcmsg_event_queued = ev.tail - ev.head;
        n++;
    }
    ev.delivering = false;
    return n;
}

void rcmsg_event_clear(void)
{
    ev.head = ev.tail;
    rcmsg_event_queued = 0;
}
