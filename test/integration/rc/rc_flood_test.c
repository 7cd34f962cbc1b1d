/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sends to a rank that computes with its receive buffers full (the stuck-queue watch's probe,
 * rc_sync.h): rank 1 computes for SECS seconds right after rcmsg_init; rank 0 posts N eager
 * messages to it at once (more than rank 1's RCMSG_SRQ_SIZE: the rest meet receive-not-ready
 * NAKs), waits for them (their bytes copied), then until the device completed every request
 * on its QP to rank 1 (rcmsg_rc_btl_outstanding): without the probe that is only once rank 1's
 * compute ended. Rank 1 then receives and checks the N messages (tags 1, 3, 5, ...).
 *
 *   rc_flood_test SECS N
 *
 * Rank 0 prints "rank 0: N eager messages posted at T" and "rank 0: every send completed at
 * T"; rank 1 "rank 1: compute ended at T" and "rank 1: N messages received, checked" (wall
 * clock). A failure prints "FAIL: ..." and exits 1. With RC_COMPUTE_LOG_DIR, each process's log
 * goes there. Linked with rcmsg's core for the rc test hook (not built with ThreadSanitizer:
 * rc_compute_test is, and stays on the public library).
 */
#include "config.h"

#include "btl_rc/rc_btl.h"
#include "core/core.h"

#include <rcmsg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../test_log.h"

#define EAGER_LEN 1000

static int rank;

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

static void fill(unsigned char *buf, size_t len, int tag)
{
    for (size_t i = 0; i < len; i++) {
        buf[i] = (unsigned char)(tag * 41 + i * 7 + 3);
    }
}

static void compute(double secs)
{
    volatile double x = 1.0;
    double end = mono_s() + secs;

    printf("rank %d: compute from %.3f for %.0f s\n", rank, wall_s(), secs);
    fflush(stdout);
    while (mono_s() < end) {
        for (int i = 0; i < 100000; i++) {
            x = x * 1.0000001 + 1e-9;
        }
    }
    printf("rank %d: compute ended at %.3f\n", rank, wall_s());
    fflush(stdout);
}

static void rank0(int n)
{
    rcmsg_btl_t *btl = rcmsg_wireup_btl(rcmsg_core_wireup(), "rc");
    unsigned char *bufs = malloc((size_t)n * EAGER_LEN);
    rcmsg_request_t *reqs = malloc((size_t)n * sizeof(*reqs));
    rcmsg_status_t s;

    if (bufs == NULL || reqs == NULL) {
        die("malloc", RCMSG_ERR_NO_MEMORY);
    }
    if (btl == NULL) {
        printf("FAIL: rc_flood_test needs rc (RCMSG_TRANSPORTS=rc,self)\n");
        exit(1);
    }
    sleep(1); /* rank 1 is computing by now */
    for (int i = 0; i < n; i++) {
        fill(bufs + (size_t)i * EAGER_LEN, EAGER_LEN, 2 * i + 1);
        s = rcmsg_isend(bufs + (size_t)i * EAGER_LEN, EAGER_LEN, 1, 2 * i + 1, rcmsg_comm_world(),
                        &reqs[i]);
        if (s != RCMSG_OK) {
            die("isend", s);
        }
    }
    printf("rank 0: %d eager messages posted at %.3f\n", n, wall_s());
    fflush(stdout);
    s = rcmsg_waitall(n, reqs, NULL); /* their bytes copied: not yet delivered */
    if (s != RCMSG_OK) {
        die("waitall", s);
    }
    /* delivered: the device completed every SEND to rank 1 (those that met receive-not-ready
     * NAKs included); the watch's probe runs in progress */
    while (rcmsg_rc_btl_outstanding(btl, 1) > 0) {
        int flag;
        rcmsg_iprobe(1, 0, rcmsg_comm_world(), &flag, NULL);
        usleep(1000);
    }
    printf("rank 0: every send completed at %.3f\n", wall_s());
    free(bufs);
    free(reqs);
}

static void rank1(int n)
{
    static unsigned char buf[EAGER_LEN], want[EAGER_LEN];

    for (int k = 0, tag = 1; k < n; k++, tag += 2) {
        rcmsg_msg_status_t st;
        rcmsg_status_t s = rcmsg_recv(buf, sizeof(buf), 0, tag, rcmsg_comm_world(), &st);
        if (s != RCMSG_OK) {
            die("recv", s);
        }
        fill(want, EAGER_LEN, tag);
        if (st.count != EAGER_LEN || memcmp(buf, want, EAGER_LEN) != 0) {
            printf("FAIL: rank %d: message %d: %zu bytes, or not the bytes sent\n", rank, tag,
                   st.count);
            exit(1);
        }
    }
    printf("rank %d: %d messages received, checked\n", rank, n);
}

int main(int argc, char **argv)
{
    rcmsg_status_t s;
    double secs;
    int n;

    if (argc != 3 || (secs = atof(argv[1])) <= 0 || (n = atoi(argv[2])) < 1 || n > 100000) {
        printf("usage: %s SECS N (SECS > 0, N from 1 to 100000)\n", argv[0]);
        return 2;
    }
    test_log_to_file("RC_COMPUTE_LOG_DIR");
    s = rcmsg_init();
    if (s != RCMSG_OK) {
        die("rcmsg_init", s);
    }
    rank = rcmsg_rank();
    if (rank == 0) {
        rank0(n);
    } else if (rank == 1) {
        compute(secs);
        rank1(n);
    }
    fflush(stdout);
    s = rcmsg_finalize();
    if (s != RCMSG_OK) {
        die("rcmsg_finalize", s);
    }
    printf("rank %d: finalized\n", rank);
    return 0;
}
