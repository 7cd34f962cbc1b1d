/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A peer that computes (no rcmsg call) while another connects to it and sends (issue 41,
 * RCMSG_ASYNC_PROGRESS): rank 1 computes for SECS seconds right after rcmsg_init; meanwhile
 * rank 0 sends it an eager and a rendezvous message (a lazy connect: the connection is made
 * while rank 1 computes, by its progress thread), then rank 1 receives and checks them.
 *
 *   rc_compute_test lazy SECS        2 ranks, as above
 *   rc_compute_test recycle SECS     3 ranks, RCMSG_QP_MAX_ACTIVE=1: after the two messages
 *                                    rank 0 sends to rank 2 (the connection to rank 1 is
 *                                    recycled, rank 1's thread agreeing), then an eager one to
 *                                    rank 1 again (a reconnect while it still computes)
 *   rc_compute_test link SECS DIR    2 ranks: after the two messages rank 0 creates
 *                                    DIR/connected and waits for DIR/down (the script took the
 *                                    link down), then sends an eager and a rendezvous message
 *                                    more; the connection recovers while rank 1 computes
 *   rc_compute_test fail SECS        2 ranks: rank 0's eager send only; it prints its status
 *                                    (RCMSG_ASYNC_PROGRESS=no: the connect fails)
 *
 * Rank 0 prints "rank 0: eager 1 done after X s" (from its isend) and, from its event
 * handler, the wall-clock time of each connection event; rank 1 prints the wall-clock times
 * its compute phase began and ended and "rank 1: N messages received, checked". A failure
 * prints "FAIL: ..." and exits 1. With RC_COMPUTE_LOG_DIR, each process's log goes there.
 */
#include <rcmsg.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../test_log.h"

#define EAGER_LEN 1000
#define RNDV_LEN  (1u << 20)
#define NMSG_MAX  4

static int rank;
static const char *mode;

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, rcmsg_status_t s)
{
    printf("FAIL: rank %d: %s: %s\n", rank, what, rcmsg_status_name(s));
    fflush(stdout);
    exit(1);
}

static void on_event(const rcmsg_event_t *ev, void *arg)
{
    static const char *names[] = {"connected", "disconnected", "recovered", "peer failed"};

    (void)arg;
    printf("rank %d: event %s peer %d at %.3f\n", rank, names[ev->kind], ev->peer, wall_s());
    fflush(stdout);
}

/* Message tag t (1..): eager when odd, rendezvous when even. */
static size_t msg_len(int tag)
{
    return tag % 2 ? EAGER_LEN : RNDV_LEN;
}

static void fill(unsigned char *buf, size_t len, int tag)
{
    for (size_t i = 0; i < len; i++) {
        buf[i] = (unsigned char)(tag * 41 + i * 7 + 3);
    }
}

static double cpu_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Computes for secs; then prints the CPU time the process's other threads (rc's progress
 * thread, the launcher's PMIx threads) took meanwhile. */
static void compute(double secs)
{
    volatile double x = 1.0;
    double end = mono_s() + secs;
    double proc0 = cpu_s(CLOCK_PROCESS_CPUTIME_ID), self0 = cpu_s(CLOCK_THREAD_CPUTIME_ID);

    printf("rank %d: compute from %.3f for %.0f s\n", rank, wall_s(), secs);
    fflush(stdout);
    while (mono_s() < end) {
        for (int i = 0; i < 100000; i++) {
            x = x * 1.0000001 + 1e-9;
        }
    }
    printf("rank %d: compute ended at %.3f\n", rank, wall_s());
    printf("rank %d: other threads' cpu during the compute: %.1f ms\n", rank,
           1e3 * ((cpu_s(CLOCK_PROCESS_CPUTIME_ID) - proc0) -
                  (cpu_s(CLOCK_THREAD_CPUTIME_ID) - self0)));
    fflush(stdout);
}

/* Rank 0's send of message tag to peer; waits for it when wait is set (an eager one). */
static void send_msg(int peer, int tag, unsigned char *buf, rcmsg_request_t *req, bool wait)
{
    double t0 = mono_s();
    rcmsg_status_t s;

    fill(buf, msg_len(tag), tag);
    s = rcmsg_isend(buf, msg_len(tag), peer, tag, rcmsg_comm_world(), req);
    if (s == RCMSG_OK && wait) {
        s = rcmsg_wait(req, NULL);
    }
    printf("rank 0: %s %d to rank %d %s after %.3f s (at %.3f)%s%s\n",
           tag % 2 ? "eager" : "rendezvous", tag, peer, wait ? "done" : "posted", mono_s() - t0,
           wall_s(), s == RCMSG_OK ? "" : ": ", s == RCMSG_OK ? "" : rcmsg_status_name(s));
    fflush(stdout);
    if (s != RCMSG_OK && strcmp(mode, "fail") != 0) {
        die("send", s);
    }
}

static void wait_file(const char *dir, const char *name)
{
    char path[4096];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    while (access(path, F_OK) != 0) {
        usleep(20000);
    }
}

static void touch(const char *dir, const char *name)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    if (f == NULL) {
        printf("FAIL: cannot create %s\n", path);
        exit(1);
    }
    fclose(f);
}

static void rank0(const char *dir)
{
    static unsigned char bufs[NMSG_MAX + 1][RNDV_LEN];
    rcmsg_request_t reqs[NMSG_MAX + 1];
    int n = 0;

    sleep(1); /* rank 1 is computing by now */
    send_msg(1, 1, bufs[0], &reqs[n++], true);
    if (strcmp(mode, "fail") == 0) {
        return;
    }
    send_msg(1, 2, bufs[1], &reqs[n++], false);
    if (strcmp(mode, "recycle") == 0) {
        send_msg(2, 1, bufs[2], &reqs[n++], true); /* the cap (1) recycles rank 1's connection */
        send_msg(1, 3, bufs[3], &reqs[n++], true); /* and rank 2's, to reconnect to rank 1 */
    } else if (strcmp(mode, "link") == 0) {
        touch(dir, "connected");
        wait_file(dir, "down");
        send_msg(1, 3, bufs[2], &reqs[n++], true);
        send_msg(1, 4, bufs[3], &reqs[n++], false);
    }
    for (int i = 0; i < n; i++) {
        rcmsg_status_t s = rcmsg_wait(&reqs[i], NULL);
        if (s != RCMSG_OK) {
            die("wait", s);
        }
    }
    printf("rank 0: every send completed at %.3f\n", wall_s());
}

static void receive(int nmsg)
{
    static unsigned char buf[RNDV_LEN], want[RNDV_LEN];

    for (int tag = 1; tag <= nmsg; tag++) {
        rcmsg_msg_status_t st;
        rcmsg_status_t s = rcmsg_recv(buf, sizeof(buf), 0, tag, rcmsg_comm_world(), &st);
        if (s != RCMSG_OK) {
            die("recv", s);
        }
        fill(want, msg_len(tag), tag);
        if (st.count != msg_len(tag) || memcmp(buf, want, msg_len(tag)) != 0) {
            printf("FAIL: rank %d: message %d: %zu bytes, or not the bytes sent\n", rank, tag,
                   st.count);
            exit(1);
        }
    }
    printf("rank %d: %d messages received, checked\n", rank, nmsg);
}

int main(int argc, char **argv)
{
    rcmsg_status_t s;
    double secs;
    int nmsg;

    if (argc < 3) {
        printf("usage: %s lazy|recycle|link|fail SECS [DIR]\n", argv[0]);
        return 2;
    }
    mode = argv[1];
    secs = atof(argv[2]);
    test_log_to_file("RC_COMPUTE_LOG_DIR");
    rcmsg_event_handler_set(on_event, NULL);
    s = rcmsg_init();
    if (s != RCMSG_OK) {
        die("rcmsg_init", s);
    }
    rank = rcmsg_rank();
    nmsg = strcmp(mode, "lazy") == 0 ? 2 : strcmp(mode, "fail") == 0 ? 0 : 4;
    if (strcmp(mode, "recycle") == 0) {
        nmsg = 3;
    }
    if (rank == 0) {
        rank0(argc > 3 ? argv[3] : ".");
    } else if (rank == 1) {
        compute(secs);
        receive(nmsg);
    } else {
        receive(1);
    }
    fflush(stdout);
    if (strcmp(mode, "fail") == 0) {
        _exit(0); /* rank 0's connect failed: no finalize with a failed peer to wait for */
    }
    s = rcmsg_finalize();
    if (s != RCMSG_OK) {
        die("rcmsg_finalize", s);
    }
    printf("rank %d: finalized\n", rank);
    return 0;
}
