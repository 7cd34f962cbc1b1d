/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * btl_rc: the gate between the application's calls and the progress thread (rc_gate.h says
 * the protocol and why it is correct).
 */
#include "config.h"

#include "rc_gate.h"

#include "base/log.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int rc_membarrier(int cmd)
{
    return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

rcmsg_status_t rc_gate_init(rc_gate_t *g, bool on)
{
    int err;

    g->on = on;
    if (!on) {
        return RCMSG_OK;
    }
    err = pthread_mutex_init(&g->lock, NULL);
    if (err != 0) {
        rcmsg_error("rc: cannot create the progress thread's lock: %s", strerror(err));
        g->on = false;
        return RCMSG_ERR_IO;
    }
    /* registering is idempotent and per process: every rc instance may ask */
    g->fence = rc_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0;
    if (g->fence) {
        rcmsg_info("rc: membarrier(2) unavailable (%m): the application's rc calls fence when "
                   "they enter (RCMSG_ASYNC_PROGRESS=control)");
    }
    return RCMSG_OK;
}

void rc_gate_fini(rc_gate_t *g)
{
    if (g->on) {
        rcmsg_debug("rc: progress thread: %lu claims of btl_rc, %lu backed off (the application "
                    "was inside)",
                    g->claims, g->backoffs);
        pthread_mutex_destroy(&g->lock);
        g->on = false;
    }
}

void rc_gate_wait(rc_gate_t *g)
{
    do {
        atomic_store_explicit(&g->app_in, 0, memory_order_relaxed);
        pthread_mutex_lock(&g->lock); /* the thread holds it while it owns btl_rc */
        pthread_mutex_unlock(&g->lock);
        atomic_store_explicit(&g->app_in, 1, memory_order_relaxed);
        atomic_thread_fence(memory_order_seq_cst);
    } while (atomic_load_explicit(&g->thread_in, memory_order_acquire));
}

static void rc_gate_fence(rc_gate_t *g)
{
    /* once registered, the expedited barrier cannot fail (membarrier(2)) */
    if (g->fence || rc_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
        atomic_thread_fence(memory_order_seq_cst);
    }
}

bool rc_gate_claim(rc_gate_t *g)
{
    if (atomic_load_explicit(&g->app_in, memory_order_relaxed) != 0) {
        g->backoffs++; /* no barrier for nothing: the application is inside */
        return false;
    }
    pthread_mutex_lock(&g->lock);
    atomic_store_explicit(&g->thread_in, 1, memory_order_relaxed);
    rc_gate_fence(g);
    if (atomic_load_explicit(&g->app_in, memory_order_acquire) != 0) {
        atomic_store_explicit(&g->thread_in, 0, memory_order_release);
        pthread_mutex_unlock(&g->lock);
        g->backoffs++;
        return false;
    }
    g->in_thread = true;
    g->claims++;
    return true;
}

void rc_gate_release(rc_gate_t *g)
{
    g->in_thread = false;
    atomic_store_explicit(&g->thread_in, 0, memory_order_release);
    pthread_mutex_unlock(&g->lock);
}
