/* SPDX-License-Identifier: BSD-3-Clause */
/* The core lock of the thread model (mt.h, docs/threads.md). */
#include "config.h"

#include "mt.h"

#include <sched.h>

bool rcmsg_mt_on;
/* The core lock: every owner's state below the public calls (mt.h). Lock order: an MPI-face
 * call takes it through rcmsg_thread_enter before anything of rcmsg's; btl_rc's own locks
 * (its async thread's) are taken inside it, never the reverse. */
pthread_mutex_t rcmsg_mt_lock = PTHREAD_MUTEX_INITIALIZER;
__thread unsigned rcmsg_mt_depth __attribute__((tls_model("initial-exec")));

unsigned rcmsg_mt_suspend(void)
{
    unsigned depth = rcmsg_mt_depth;

    if (depth != 0) {
        rcmsg_mt_depth = 0;
        pthread_mutex_unlock(&rcmsg_mt_lock);
    }
    return depth;
}

void rcmsg_mt_resume(unsigned depth)
{
    if (depth != 0) {
        pthread_mutex_lock(&rcmsg_mt_lock);
        rcmsg_mt_depth = depth;
    }
}

void rcmsg_mt_pause(bool yield)
{
    unsigned depth = rcmsg_mt_suspend();

    if (yield || depth != 0) {
        sched_yield(); /* the others waiting take their turn */
    }
    rcmsg_mt_resume(depth);
}
