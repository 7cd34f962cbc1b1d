/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The launcher's part of a job's life: what a rank sees when the launcher or another rank
 * goes away at the wrong time. Run under mpirun or srun --mpi=pmix (see launcher_*.sh).
 *
 *   launcher_test --poll         after init, call rcmsg_wireup_poll until the launcher is
 *                                reported gone (the script kills it), then finalize
 *   launcher_test --recv         after init, each rank waits in rcmsg_recv for a message
 *                                nobody sends; it must return once the launcher is killed
 *   launcher_test --exit-early R rank R (from PMIX_RANK) exits 0 before rcmsg_init; the
 *                                others' rcmsg_init must fail, not hang
 *   launcher_test --init         init and finalize (with RCMSG_* set on some ranks only)
 *   launcher_test --reinit       init, finalize, init again: refused under a launcher
 *   launcher_test --late R S     rank R sleeps S s before rcmsg_finalize: the others wait in
 *                                its closing fence (the script sends them SIGUSR1 there)
 * Every rank prints one line "rank R: <mode>: <status name> after <seconds> s". With
 * LAUNCHER_TEST_OUT=PREFIX set, each rank writes to the file PREFIX.<rank> instead of its
 * stdout and stderr (which go through the launcher, and die with it).
 */
#include "config.h"

#include "base/clock.h"
#include "core/core.h"

#include <rcmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double t0;

static double elapsed_s(void)
{
    return (double)rcmsg_clock_us() / 1e6 - t0;
}

static void report(int rank, const char *mode, rcmsg_status_t s)
{
    printf("rank %d: %s: %s after %.1f s\n", rank, mode, rcmsg_status_name(s), elapsed_s());
    fflush(stdout);
}

static int env_rank(void)
{
    const char *r = getenv("PMIX_RANK");
    return r != NULL ? atoi(r) : -1;
}

/* Output to PREFIX.<rank>: a rank must be able to say what happened after its launcher died. */
static void redirect_output(void)
{
    const char *prefix = getenv("LAUNCHER_TEST_OUT");
    char path[4096];
    FILE *f;

    if (prefix == NULL) {
        return;
    }
    snprintf(path, sizeof(path), "%s.%d", prefix, env_rank());
    f = freopen(path, "w", stdout);
    if (f == NULL || dup2(fileno(stdout), 2) < 0) {
        perror(path);
        exit(2);
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
}

static void lost(void *arg, int rank)
{
    (void)arg;
    printf("rank %d: the launcher reports rank %d terminated\n", rcmsg_rank(), rank);
}

static int run_poll(void)
{
    rcmsg_status_t s;

    printf("rank %d (pid %d): polling the launcher\n", rcmsg_rank(), (int)getpid());
    fflush(stdout);
    while ((s = rcmsg_wireup_poll(rcmsg_core_wireup(), lost, NULL)) == RCMSG_OK) {
        usleep(1000);
    }
    report(rcmsg_rank(), "poll", s);
    s = rcmsg_finalize();
    report(env_rank(), "finalize", s);
    return 0;
}

static int run_recv(void)
{
    int v = 0, rank = rcmsg_rank();
    rcmsg_status_t s;

    printf("rank %d (pid %d): receiving a message nobody sends\n", rank, (int)getpid());
    fflush(stdout);
    t0 = (double)rcmsg_clock_us() / 1e6;
    s = rcmsg_recv(&v, sizeof(v), (rank + 1) % rcmsg_size(), 99, rcmsg_comm_world(), NULL);
    report(rank, "recv", s);
    s = rcmsg_finalize();
    report(rank, "finalize", s);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "--init";
    rcmsg_status_t s;

    t0 = (double)rcmsg_clock_us() / 1e6;
    redirect_output();
    if (strcmp(mode, "--exit-early") == 0 && argc > 2 && env_rank() == atoi(argv[2])) {
        printf("rank %d: exiting before rcmsg_init\n", env_rank());
        return 0;
    }
    s = rcmsg_init();
    report(env_rank(), "init", s);
    if (s != RCMSG_OK) {
        return 0; /* the script checks what each rank printed; a status would end the job */
    }
    if (strcmp(mode, "--poll") == 0) {
        return run_poll();
    }
    if (strcmp(mode, "--recv") == 0) {
        return run_recv();
    }
    if (strcmp(mode, "--late") == 0 && argc > 3) {
        if (rcmsg_rank() == atoi(argv[2])) {
            sleep((unsigned)atoi(argv[3]));
        }
        printf("rank %d (pid %d): finalizing\n", rcmsg_rank(), (int)getpid());
        fflush(stdout);
    }
    s = rcmsg_finalize();
    report(env_rank(), "finalize", s);
    if (strcmp(mode, "--reinit") == 0) {
        s = rcmsg_init();
        report(env_rank(), "init again", s);
        if (s == RCMSG_OK) {
            rcmsg_finalize();
        }
    }
    return 0;
}
