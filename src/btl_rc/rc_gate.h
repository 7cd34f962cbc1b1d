/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the gate between the application's calls and rcmsg's progress thread (rc_gate.c),
 * whose state that file owns (RCMSG_ASYNC_PROGRESS=control).
 *
 * All of btl_rc's state (CM, connections, recoveries, the QP state sync, and the data path
 * they touch: endpoints, request slots, CQs) has one owner at a time: the application while
 * one of its calls is inside an rc op, else the progress thread once it has claimed the gate.
 * The application's side is not a lock: entering is a counter store, a compiler barrier and
 * a load of thread_in (a few instructions, no atomic read-modify-write, no fence), leaving is
 * a store. The thread's side pays for both: its claim stores thread_in and issues
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), a full barrier on every CPU running the
 * process, then reads app_in: either the thread sees the application inside, and backs off,
 * or the application sees thread_in and waits on `lock` until the thread is done (Dekker's
 * protocol with the expensive fence on the rare side). Without membarrier(2) (an old kernel)
 * both sides use a full fence.
 *
 * Lock order: `lock` is the only lock of btl_rc and is taken by the thread alone (the
 * application takes it only to wait, holding nothing of btl_rc); the thread takes no lock of
 * the layers above while holding it and never calls up: what it must hand up is deferred
 * (rc_defer.c) and handed up by the application's next progress call.
 *
 * Application threads (RCMSG_THREAD_MULTIPLE): the layer above serializes every op under the
 * core lock (btl.h), so one application thread at a time is inside btl_rc and the plain
 * counter stays exact (the core lock orders one thread's store before the next one's load).
 * The lock order is the core lock, then `lock` (an application thread waiting for the progress
 * thread holds the core lock; the progress thread never takes it). btl_rc needs no lock of its
 * own against the application's threads.
 */
#ifndef RCMSG_BTL_RC_GATE_H
#define RCMSG_BTL_RC_GATE_H

#include "btl/btl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

typedef struct {
    bool on;              /* RCMSG_ASYNC_PROGRESS=control: the thread may own btl_rc */
    bool fence;           /* no membarrier(2): the application's side fences too */
    bool in_thread;       /* the thread owns btl_rc now: calls up are deferred */
    atomic_int app_in;    /* the application's calls inside an rc op (nested ones counted) */
    atomic_int thread_in; /* the thread owns, or is claiming, btl_rc */
    pthread_mutex_t lock; /* held by the thread while thread_in is set; the application waits
                             on it when it finds thread_in set (see above) */
    unsigned long claims, backoffs; /* the thread's claims that succeeded and that backed off */
} rc_gate_t;

/* rc_gate.c: at open, before the thread starts (on: RCMSG_ASYNC_PROGRESS=control);
 * RCMSG_ERR_IO, logged, when the lock cannot be made. */
rcmsg_status_t rc_gate_init(rc_gate_t *g, bool on);
void rc_gate_fini(rc_gate_t *g);

/* The application found the thread inside: waits until it left. */
void rc_gate_wait(rc_gate_t *g);

/* The thread: owns btl_rc when true (release it with rc_gate_release); false while the
 * application is inside an rc op (it progresses by itself then). */
bool rc_gate_claim(rc_gate_t *g);
void rc_gate_release(rc_gate_t *g);

/* Every rc op the application calls begins with rc_gate_enter and ends with rc_gate_exit. */
static inline void rc_gate_enter(rc_gate_t *g)
{
    int n;

    if (!g->on) {
        return;
    }
    n = atomic_load_explicit(&g->app_in, memory_order_relaxed);
    atomic_store_explicit(&g->app_in, n + 1, memory_order_relaxed);
    if (n != 0) {
        return; /* nested in a call up (a callback sending): the application owns btl_rc */
    }
    if (__builtin_expect(g->fence, 0)) {
        atomic_thread_fence(memory_order_seq_cst);
    } else {
        atomic_signal_fence(memory_order_seq_cst); /* the thread's membarrier fences for us */
    }
    if (__builtin_expect(atomic_load_explicit(&g->thread_in, memory_order_acquire), 0)) {
        rc_gate_wait(g);
    }
}

static inline void rc_gate_exit(rc_gate_t *g)
{
    if (g->on) {
        atomic_store_explicit(&g->app_in,
                              atomic_load_explicit(&g->app_in, memory_order_relaxed) - 1,
                              memory_order_release);
    }
}

#endif /* RCMSG_BTL_RC_GATE_H */
