/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event callbacks of rcmsg.h (rcmsg_event_handler_set): the layers post an event where it
 * happens (a transport deep in its completion handling, the pml when it fails a peer), the
 * progress engine delivers the queue to the application's handler after each round, so the
 * handler never runs inside a layer's state change. The queue is a fixed ring: posting never
 * allocates, and an event that finds it full is counted as dropped.
 */
#ifndef RCMSG_BASE_EVENT_H
#define RCMSG_BASE_EVENT_H

#include <rcmsg.h>
#include <stdbool.h>

#define RCMSG_EVENT_QUEUE 1024 /* events held between two progress rounds */

/* Queues an event for the handler (nothing when none is set); cause is copied (printf form). */
void rcmsg_event_post(rcmsg_event_kind_t kind, int peer, const char *transport,
                      rcmsg_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Events queued and not yet delivered (read by the inline check below). */
extern unsigned rcmsg_event_queued;

/* Whether events wait for delivery (inline: every progress round asks). */
static inline bool rcmsg_event_pending(void)
{
    return rcmsg_event_queued != 0;
}
/* Calls the handler for each queued event, in order; returns how many. */
int rcmsg_event_deliver(void);
/* Empties the queue without delivering (finalize, after the last progress). */
void rcmsg_event_clear(void);

const char *rcmsg_event_kind_name(rcmsg_event_kind_t kind);

#endif /* RCMSG_BASE_EVENT_H */
