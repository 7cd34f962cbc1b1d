/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_kill_self(me): rank me says so, then dies by SIGKILL. With TEST_KILL_HOLD=S in the
 * environment a child forked first holds the process's descriptors (its launcher connection
 * among them) for S seconds: Slurm's PMIx plugin cancels the whole step about 1 s after a
 * task's PMIx connection drops, and a loaded machine may need longer than that for the
 * survivors to do what a test checks. The rank itself is gone at once (its pid with it).
 */
#ifndef RCMSG_TEST_KILL_H
#define RCMSG_TEST_KILL_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void test_kill_self(int me)
{
    const char *hold = getenv("TEST_KILL_HOLD");

    printf("rank %d: killing itself with SIGKILL\n", me);
    fflush(stdout);
    if (hold != NULL && atoi(hold) > 0 && fork() == 0) {
        sleep((unsigned)atoi(hold));
        _exit(0);
    }
    raise(SIGKILL);
}

#endif /* RCMSG_TEST_KILL_H */
