/* SPDX-License-Identifier: BSD-3-Clause */
/* The core lock of the thread model (mt.h, docs/threads.md). */
#include "config.h"

#include "mt.h"

#include "log.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>

bool rcmsg_mt_on;
/* The core lock: every owner's state below the public calls (mt.h). Lock order: an MPI-face
 * call takes it through rcmsg_thread_enter before anything of rcmsg's; btl_rc's own locks
 * (its async thread's) are taken inside it, never the reverse. */
int rcmsg_mt_lock;
__thread unsigned rcmsg_mt_depth __attribute__((tls_model("initial-exec")));
int rcmsg_mt_waiters;
int rcmsg_mt_kick_wanted;
int rcmsg_mt_kick_fd = -1;

void rcmsg_mt_kick(void)
{
    uint64_t one = 1;

    if (__atomic_exchange_n(&rcmsg_mt_kick_wanted, 0, __ATOMIC_RELAXED) != 0 &&
        write(rcmsg_mt_kick_fd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
        rcmsg_warn("waking the progress thread: %m");
    }
}

bool rcmsg_mt_own(void)
{
    if (__atomic_load_n(&rcmsg_mt_waiters, __ATOMIC_RELAXED) != 0 ||
        __atomic_load_n(&rcmsg_mt_lock, __ATOMIC_RELAXED) != 0 || !rcmsg_mt_trylock()) {
        return false;
    }
    rcmsg_mt_depth = 1;
    return true;
}

void rcmsg_mt_disown(void)
{
    rcmsg_mt_depth = 0;
    rcmsg_mt_unlock();
}

void rcmsg_mt_lock_slow(void)
{
    __atomic_fetch_add(&rcmsg_mt_waiters, 1, __ATOMIC_RELAXED);
    while (__atomic_load_n(&rcmsg_mt_lock, __ATOMIC_RELAXED) != 0 || !rcmsg_mt_trylock()) {
        sched_yield(); /* the holder lets it go in its next idle round, or at its return */
    }
    __atomic_fetch_sub(&rcmsg_mt_waiters, 1, __ATOMIC_RELAXED);
}

void rcmsg_mt_take(void)
{
    (void)rcmsg_mt_enter();
}

void rcmsg_mt_give(void)
{
    const int taken = 1;

    rcmsg_mt_leave(&taken);
}

unsigned rcmsg_mt_suspend(void)
{
    unsigned depth = rcmsg_mt_depth;

    if (depth != 0) {
        rcmsg_mt_depth = 0;
        rcmsg_mt_unlock();
    }
    return depth;
}

void rcmsg_mt_resume(unsigned depth)
{
    if (depth != 0) {
        if (!rcmsg_mt_trylock()) {
            rcmsg_mt_lock_slow();
        }
        rcmsg_mt_depth = depth;
    }
}

void rcmsg_mt_pause(bool yield)
{
    unsigned depth;

    if (!rcmsg_mt_on || rcmsg_mt_depth == 0 ||
        __atomic_load_n(&rcmsg_mt_waiters, __ATOMIC_RELAXED) == 0) {
        if (yield) {
            sched_yield();
        }
        return; /* nobody waits for the lock: this thread keeps driving progress */
    }
    depth = rcmsg_mt_suspend();
    sched_yield(); /* the others waiting take their turn */
    rcmsg_mt_resume(depth);
}
