/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one intrusive queue: a doubly linked list of links embedded in the owner's structs
 * (RCMSG_CONTAINER_OF gets the struct back), with head and tail. No allocation; every call is
 * inline and O(1). A zeroed queue is empty (arrays of queues may be calloc'd or realloc'd
 * and zeroed), and a link is in at most one queue at a time; the caller knows which.
 *
 *   for (rcmsg_queue_link_t *l = rcmsg_queue_first(&q); l != NULL; l = rcmsg_queue_next(l))
 *
 * walks it in order; to remove the current link while walking, take next first.
 */
#ifndef RCMSG_BASE_QUEUE_H
#define RCMSG_BASE_QUEUE_H

#include "base/compiler.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct rcmsg_queue_link {
    struct rcmsg_queue_link *prev, *next;
} rcmsg_queue_link_t;

typedef struct {
    rcmsg_queue_link_t *head, *tail;
} rcmsg_queue_t;

static inline void rcmsg_queue_init(rcmsg_queue_t *q)
{
    q->head = q->tail = NULL;
}

static inline bool rcmsg_queue_empty(const rcmsg_queue_t *q)
{
    return q->head == NULL;
}

/* The first (oldest pushed at the tail) link, or NULL. */
static inline rcmsg_queue_link_t *rcmsg_queue_first(const rcmsg_queue_t *q)
{
    return q->head;
}

static inline rcmsg_queue_link_t *rcmsg_queue_last(const rcmsg_queue_t *q)
{
    return q->tail;
}

/* The link after l, or NULL. */
static inline rcmsg_queue_link_t *rcmsg_queue_next(const rcmsg_queue_link_t *l)
{
    return l->next;
}

/* The link before l, or NULL. */
static inline rcmsg_queue_link_t *rcmsg_queue_prev(const rcmsg_queue_link_t *l)
{
    return l->prev;
}

static inline void rcmsg_queue_push_tail(rcmsg_queue_t *q, rcmsg_queue_link_t *l)
{
    l->next = NULL;
    l->prev = q->tail;
    if (q->tail != NULL) {
        q->tail->next = l;
    } else {
        q->head = l;
    }
    q->tail = l;
}

static inline void rcmsg_queue_push_head(rcmsg_queue_t *q, rcmsg_queue_link_t *l)
{
    l->prev = NULL;
    l->next = q->head;
    if (q->head != NULL) {
        q->head->prev = l;
    } else {
        q->tail = l;
    }
    q->head = l;
}

/* Unlinks l, which must be in q. */
static inline void rcmsg_queue_remove(rcmsg_queue_t *q, rcmsg_queue_link_t *l)
{
    if (l->prev != NULL) {
        l->prev->next = l->next;
    } else {
        q->head = l->next;
    }
    if (l->next != NULL) {
        l->next->prev = l->prev;
    } else {
        q->tail = l->prev;
    }
    l->prev = l->next = NULL;
}

/* Unlinks and returns the first link, or NULL when q is empty. */
static inline rcmsg_queue_link_t *rcmsg_queue_pop_head(rcmsg_queue_t *q)
{
    rcmsg_queue_link_t *l = q->head;

    if (l != NULL) {
        rcmsg_queue_remove(q, l);
    }
    return l;
}

#endif /* RCMSG_BASE_QUEUE_H */
