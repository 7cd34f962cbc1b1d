/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rank that exits before rcmsg_init, reported by the launcher before the others' fence
 * begins (issue 38 item 10; early_exit_host.sh, early_exit_rc.sh). mpirun --enable-recovery
 * reports such a termination to a rank that is connected to it but registers its event
 * handler only afterwards (one registered already is not told: mpirun's "PMIX ERROR:
 * BAD-PARAM"), so this program orders it so: rcmsg's first PMIx_Register_event_handler goes
 * through the one below (the library is linked statically), which creates EARLY_EXIT_FILE.<rank>,
 * waits (at most 60 s) for EARLY_EXIT_FILE, then (at most 60 s) until the process whose pid it
 * holds is gone (reaped by its launcher: the launcher has seen the exit), and 1 s more, then
 * registers. Rank EARLY_EXIT_RANK waits (at most 60 s) until EARLY_EXIT_PEERS such files
 * exist, writes its pid to EARLY_EXIT_FILE and exits with status EARLY_EXIT_STATUS (default 0)
 * without calling rcmsg_init. (Waiting a fixed second only, a loaded host let one rank register
 * before mpirun reported the exit: never told, it waited on.)
 *
 * Every other rank prints "rank R: rank E has exited; rcmsg_init goes on", then "rank R: init:
 * <status name> after <seconds> s", the seconds counted from that line (the transports open,
 * then the fence begins): a termination already known must end the fence at once, not after
 * RCMSG_LAUNCHER_TIMEOUT.
 */
#include "config.h"

#include "base/clock.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <pmix.h>
#include <rcmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static double t_fence;

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v != NULL ? atoi(v) : -1;
}

static double now_s(void)
{
    return (double)rcmsg_clock_us() / 1e6;
}

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");

    if (f != NULL) {
        fclose(f);
    }
}

/* The pid written in path (0 when none: the wait for the exit is then the fixed second). */
static pid_t read_pid(const char *path)
{
    FILE *f = fopen(path, "r");
    long pid = 0;

    if (f != NULL) {
        if (fscanf(f, "%ld", &pid) != 1) {
            pid = 0;
        }
        fclose(f);
    }
    return (pid_t)pid;
}

/* The first call: connected to the launcher, no handler registered yet. */
static void wait_for_exit(void)
{
    const char *file = getenv("EARLY_EXIT_FILE");
    char ready[4096];
    pid_t pid;

    if (file == NULL) {
        return;
    }
    snprintf(ready, sizeof(ready), "%s.%d", file, env_int("PMIX_RANK"));
    touch(ready);
    for (int i = 0; i < 600 && access(file, F_OK) != 0; i++) {
        usleep(100000);
    }
    pid = read_pid(file);
    for (int i = 0; i < 600 && pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH); i++) {
        usleep(100000); /* alive, or a zombie not reaped yet */
    }
    sleep(1); /* the launcher's report of the exit arrives meanwhile */
    printf("rank %d: rank %d has exited; rcmsg_init goes on\n", env_int("PMIX_RANK"),
           env_int("EARLY_EXIT_RANK"));
    fflush(stdout);
    t_fence = now_s();
}

pmix_status_t PMIx_Register_event_handler(pmix_status_t codes[], size_t ncodes, pmix_info_t info[],
                                          size_t ninfo, pmix_notification_fn_t evhdlr,
                                          pmix_hdlr_reg_cbfunc_t cbfunc, void *cbdata)
{
    static pmix_status_t (*real)(pmix_status_t[], size_t, pmix_info_t[], size_t,
                                 pmix_notification_fn_t, pmix_hdlr_reg_cbfunc_t, void *);

    if (real == NULL) {
        wait_for_exit();
        *(void **)&real = dlsym(RTLD_NEXT, "PMIx_Register_event_handler");
    }
    return real(codes, ncodes, info, ninfo, evhdlr, cbfunc, cbdata);
}

/* How many ranks have created FILE.<rank> (ranks below 64). */
static int ready_count(const char *file)
{
    char path[4096];
    int n = 0;

    for (int r = 0; r < 64; r++) {
        snprintf(path, sizeof(path), "%s.%d", file, r);
        n += access(path, F_OK) == 0;
    }
    return n;
}

int main(void)
{
    int rank = env_int("PMIX_RANK");
    const char *file = getenv("EARLY_EXIT_FILE");
    rcmsg_status_t s;

    if (rank == env_int("EARLY_EXIT_RANK")) {
        for (int i = 0; i < 600 && file != NULL && ready_count(file) < env_int("EARLY_EXIT_PEERS");
             i++) {
            usleep(100000);
        }
        printf("rank %d: exiting before rcmsg_init\n", rank);
        fflush(stdout);
        if (file != NULL) {
            char tmp[4096];
            FILE *f;
            snprintf(tmp, sizeof(tmp), "%s.tmp", file);
            if ((f = fopen(tmp, "w")) != NULL) {
                fprintf(f, "%ld\n", (long)getpid());
                fclose(f);
            }
            if (rename(tmp, file) != 0) {
                touch(file);
            }
        }
        return env_int("EARLY_EXIT_STATUS") > 0 ? env_int("EARLY_EXIT_STATUS") : 0;
    }
    t_fence = now_s();
    s = rcmsg_init();
    printf("rank %d: init: %s after %.1f s\n", rank, rcmsg_status_name(s), now_s() - t_fence);
    fflush(stdout);
    if (s == RCMSG_OK) {
        rcmsg_finalize();
    }
    return 0;
}
