/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A peer that dies while this rank has a work request outstanding to it (2 ranks, over rc):
 * the request must fail with RCMSG_ERR_CONNECTION once the transport's retries run out,
 * within (RCMSG_IB_RETRY_COUNT + 1) x 4.096 us x 2^RCMSG_IB_TIMEOUT.
 *
 *   rc_dead_peer_test --send   rank 0 sends a rendezvous message (its RTS is a SEND) to the
 *                              dead rank 1
 *   rc_dead_peer_test --read   rank 0 receives a rendezvous message whose RTS arrived before
 *                              rank 1 died: its RDMA_READ goes to the dead rank
 *
 * Rank 1 dies by SIGKILL once rank 0 tells it to; rank 0 waits 1 s so that it is gone, then
 * starts the operation and prints "rank 0: <op> to the dead rank 1 returned <status> after
 * <seconds> s". The launcher must keep rank 0 running (mpirun --enable-recovery).
 */
#include <rcmsg.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BIG (1 << 20) /* rendezvous at any eager limit (at most 1m) */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int die(const char *what, rcmsg_status_t s)
{
    printf("FAIL: %s: %s\n", what, rcmsg_status_name(s));
    return 1;
}

/* Rank 1: (the rendezvous send for --read), "ready", wait for "go", SIGKILL. */
static int victim(int read_mode, rcmsg_comm_t world)
{
    static char big[BIG];
    rcmsg_request_t req;
    rcmsg_status_t s;
    int x = 1;

    if (read_mode) {
        memset(big, 0x5a, sizeof(big));
        s = rcmsg_isend(big, sizeof(big), 0, 1, world, &req);
        if (s != RCMSG_OK) {
            return die("rank 1: isend", s);
        }
    }
    s = rcmsg_send(&x, sizeof(x), 0, 2, world);
    if (s == RCMSG_OK) {
        s = rcmsg_recv(&x, sizeof(x), 0, 3, world, NULL);
    }
    if (s != RCMSG_OK) {
        return die("rank 1: ready/go", s);
    }
    printf("rank 1: killing itself with SIGKILL\n");
    raise(SIGKILL);
    return 1;
}

static int survivor(int read_mode, rcmsg_comm_t world)
{
    static char big[BIG];
    rcmsg_status_t s;
    double t0;
    int x = 0;

    /* for --read the RTS (tag 1) arrives before "ready" and waits unexpected: no read yet */
    s = rcmsg_recv(&x, sizeof(x), 1, 2, world, NULL);
    if (s == RCMSG_OK) {
        s = rcmsg_send(&x, sizeof(x), 1, 3, world);
    }
    if (s != RCMSG_OK) {
        return die("rank 0: ready/go", s);
    }
    sleep(1); /* rank 1 is gone by now: its QPs with it */
    t0 = now_s();
    if (read_mode) {
        s = rcmsg_recv(big, sizeof(big), 1, 1, world, NULL);
    } else {
        s = rcmsg_send(big, sizeof(big), 1, 1, world);
    }
    printf("rank 0: %s to the dead rank 1 returned %s after %.1f s\n",
           read_mode ? "a rendezvous receive (RDMA_READ)" : "a rendezvous send (RTS)",
           rcmsg_status_name(s), now_s() - t0);
    s = rcmsg_finalize();
    if (s != RCMSG_OK) {
        return die("rank 0: rcmsg_finalize", s);
    }
    printf("rank 0: finalized\n");
    return 0;
}

int main(int argc, char **argv)
{
    int read_mode = argc > 1 && strcmp(argv[1], "--read") == 0;
    rcmsg_status_t s;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 2 || (!read_mode && strcmp(argv[1], "--send") != 0)) {
        fprintf(stderr, "usage: rc_dead_peer_test --send|--read\n");
        return 2;
    }
    s = rcmsg_init();
    if (s != RCMSG_OK) {
        return die("rcmsg_init", s);
    }
    if (rcmsg_size() != 2) {
        printf("SKIP: needs exactly 2 ranks\n");
        return 77;
    }
    if (rcmsg_rank() == 1) {
        return victim(read_mode, rcmsg_comm_world());
    }
    return survivor(read_mode, rcmsg_comm_world());
}
