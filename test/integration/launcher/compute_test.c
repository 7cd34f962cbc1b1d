/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Losses while a rank computes (issue 41 item 3): no rcmsg call for SECONDS while a peer or the
 * launcher is lost, or a connection's recovery fails; the watch thread (and btl_rc's progress
 * thread) must notice within the bound, and the next call must fail at once. Run by
 * launcher/compute_host.sh and rc/rc_compute_bound.sh.
 *
 *   compute_test peer SECONDS DIR      rank 1 says its pid and sleeps until killed; every other
 *                                      rank posts a receive from rank 1, computes, then waits
 *                                      on it and sends to rank 1
 *   compute_test all SECONDS DIR       every rank posts a receive from the next rank (nobody
 *                                      sends), computes, then waits on it and starts a send
 *                                      (the launcher killed; a link down for good)
 *   compute_test init 0 DIR            rcmsg's own threads cannot start (pthread_create,
 *                                      interposed here, fails for them; on rank
 *                                      COMPUTE_FAIL_RANK only when set): rcmsg_init must fail
 *
 * Each rank writes DIR/out.R: "rank R: computing from T1 to T2" (wall clock, s), then
 * "rank R: wait after compute: STATUS in MS ms" and "rank R: send after compute: STATUS in MS
 * ms" (or "rank R: init: STATUS"); its standard error (rcmsg's log) goes to DIR/log.R, each line
 * prefixed by the wall-clock time it was written at (a thread of this program reads it), so a
 * script can tell when the loss was logged. Output goes to files: the launcher may be killed.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <pthread.h>
#include <rcmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static FILE *out;

static double wall_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- rcmsg's threads cannot start ------------------------------------------------------ */

static int fail_own_threads;

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
/* The sanitizers intercept pthread_create themselves: no interposing here (init mode SKIPs). */
#define COMPUTE_INTERPOSE 0
#else
#define COMPUTE_INTERPOSE 1

/* Interposes pthread_create (this program's definition comes first for librcmsg's calls too):
 * with fail_own_threads set, a thread whose start routine is in the object rcmsg_init is in
 * (librcmsg: rcmsg's own threads) is refused with EAGAIN, as when the process is out of
 * threads; others (PMIx's) start. */
__attribute__((visibility("default"))) int pthread_create(pthread_t *restrict thread,
                                                          const pthread_attr_t *restrict attr,
                                                          void *(*start)(void *),
                                                          void *restrict arg)
{
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    Dl_info in_start, in_rcmsg;

    if (real == NULL) {
        *(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
    }
    if (fail_own_threads && dladdr((void *)start, &in_start) != 0 &&
        dladdr((void *)rcmsg_init, &in_rcmsg) != 0 && in_start.dli_fbase == in_rcmsg.dli_fbase) {
        return EAGAIN;
    }
    return real(thread, attr, start, arg);
}
#endif

/* ---- the log, timestamped -------------------------------------------------------------- */

static FILE *log_file;

static void *log_reader(void *arg)
{
    FILE *in = fdopen((int)(intptr_t)arg, "r");
    char line[2048];

    while (in != NULL && fgets(line, sizeof(line), in) != NULL) {
        fprintf(log_file, "%.3f %s", wall_s(), line);
        fflush(log_file);
    }
    return NULL;
}

/* stderr into DIR/log.R through a pipe read by a thread (started before rcmsg_init). */
static void log_start(const char *dir, int rank)
{
    char path[4096];
    int fds[2];
    pthread_t t;

    snprintf(path, sizeof(path), "%s/log.%d", dir, rank);
    log_file = fopen(path, "w");
    if (log_file == NULL || pipe(fds) != 0 || dup2(fds[1], STDERR_FILENO) < 0 ||
        pthread_create(&t, NULL, log_reader, (void *)(intptr_t)fds[0]) != 0) {
        fprintf(out, "FAIL: rank %d: cannot log to %s: %s\n", rank, path, strerror(errno));
        exit(1);
    }
    close(fds[1]);
    pthread_detach(t);
}

/* ---- the modes ------------------------------------------------------------------------- */

/* No rcmsg call for secs seconds: arithmetic, the clock read through the vDSO. */
static double compute(int rank, double secs)
{
    double t1 = wall_s(), end = mono_ms() + secs * 1e3, x = 1;

    fprintf(out, "rank %d: computing\n", rank);
    fflush(out);
    while (mono_ms() < end) {
        for (int i = 0; i < 100000; i++) {
            x = x * 1.0000001 + 1e-9;
        }
    }
    fprintf(out, "rank %d: computing from %.3f to %.3f (%g)\n", rank, t1, wall_s(), x > 0 ? 0 : x);
    return x;
}

static void after(int rank, rcmsg_request_t req, int to, char *buf)
{
    rcmsg_status_t s, st;
    rcmsg_request_t sreq;
    double t = mono_ms();

    s = rcmsg_wait(&req, NULL);
    fprintf(out, "rank %d: wait after compute: %s in %.1f ms\n", rank, rcmsg_status_name(s),
            mono_ms() - t);
    t = mono_ms();
    st = rcmsg_isend(buf, 8, to, 1, rcmsg_comm_world(), &sreq);
    if (st == RCMSG_OK) {
        st = rcmsg_wait(&sreq, NULL);
    }
    fprintf(out, "rank %d: send after compute: %s in %.1f ms\n", rank, rcmsg_status_name(st),
            mono_ms() - t);
    fflush(out);
}

int main(int argc, char **argv)
{
    const char *r = getenv("PMIX_RANK");
    int rank = r != NULL ? atoi(r) : 0, size;
    char path[4096], buf[8] = {0};
    rcmsg_request_t req;
    rcmsg_status_t s;

    if (argc != 4) {
        fprintf(stderr, "usage: %s peer|all|init SECONDS DIR\n", argv[0]);
        return 2;
    }
    snprintf(path, sizeof(path), "%s/out.%d", argv[3], rank);
    out = fopen(path, "w");
    if (out == NULL) {
        printf("FAIL: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    setvbuf(out, NULL, _IOLBF, 0);
    log_start(argv[3], rank);
    if (!COMPUTE_INTERPOSE && strcmp(argv[1], "init") == 0) {
        fprintf(out, "SKIP: a sanitizer build: pthread_create is the sanitizer's to intercept\n");
        return 77;
    }
    fail_own_threads = strcmp(argv[1], "init") == 0 && (getenv("COMPUTE_FAIL_RANK") == NULL ||
                                                        atoi(getenv("COMPUTE_FAIL_RANK")) == rank);
    s = rcmsg_init();
    fail_own_threads = 0;
    fprintf(out, "rank %d (pid %d): init: %s\n", rank, (int)getpid(), rcmsg_status_name(s));
    if (s != RCMSG_OK || strcmp(argv[1], "init") == 0) {
        return s == RCMSG_OK ? 1 : 0;
    }
    size = rcmsg_size();
    if (strcmp(argv[1], "peer") == 0 && rank == 1) {
        fprintf(out, "rank 1: waiting to be killed\n");
        for (;;) {
            pause();
        }
    }
    if (strcmp(argv[1], "peer") == 0) {
        s = rcmsg_irecv(buf, sizeof(buf), 1, 1, rcmsg_comm_world(), &req);
    } else {
        s = rcmsg_irecv(buf, sizeof(buf), (rank + 1) % size, 1, rcmsg_comm_world(), &req);
    }
    if (s != RCMSG_OK) {
        fprintf(out, "FAIL: rank %d: irecv: %s\n", rank, rcmsg_status_name(s));
        return 1;
    }
    compute(rank, atof(argv[2]));
    after(rank, req, strcmp(argv[1], "peer") == 0 ? 1 : (rank + 1) % size, buf);
    s = rcmsg_finalize();
    fprintf(out, "rank %d: finalize: %s\n", rank, rcmsg_status_name(s));
    return 0;
}
