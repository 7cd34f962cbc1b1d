/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Liveness: a rank dies by SIGKILL in the middle of a collective, and every survivor must
 * learn it within a bound, whatever it was waiting for (public API only).
 *
 *   liveness_test [ITERS [after]]
 *       ranks run ITERS 8 KiB allreduces; the last rank kills itself in the middle; each
 *       survivor prints "rank R: allreduce I returned S after T s", then with "after" (once
 *       its allreduce failed) "rank R: a later world allreduce returned S after T s" (it fails
 *       at once: the world has a lost member), "rank R: an allreduce on a copy of the world
 *       made after the loss returned S after T s" (the same) and "rank R: allreduce of the N
 * survivors returned S, sum right|wrong" (a communicator without the dead rank still works), and
 *       last "rank R: finalized (S) in T s". ("after" needs every survivor to learn of the loss by
 *       itself, as sm's ranks do: one that waits for another survivor would otherwise wait
 *       until that one exits, see rcmsg.h.)
 */
#include <rcmsg.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../test_kill.h"

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The world's collectives fail from now on; the survivors' own communicator works. */
static void after_loss(int rank, int size)
{
    int ranks[64], n = size - 1 < 64 ? size - 1 : 64;
    int32_t sum = 0, one = 1;
    rcmsg_comm_t c = RCMSG_COMM_NULL;
    rcmsg_status_t s;
    double t0 = now_s(), x = 1, y = 0;

    s = rcmsg_allreduce(&x, &y, 1, RCMSG_DOUBLE, RCMSG_SUM, rcmsg_comm_world());
    printf("rank %d: a later world allreduce returned %s after %.1f s\n", rank,
           rcmsg_status_name(s), now_s() - t0);
    s = rcmsg_comm_dup(rcmsg_comm_world(), &c); /* made after the loss */
    if (s == RCMSG_OK) {
        t0 = now_s();
        s = rcmsg_allreduce(&x, &y, 1, RCMSG_DOUBLE, RCMSG_SUM, c);
        rcmsg_comm_free(&c);
    }
    printf("rank %d: an allreduce on a copy of the world made after the loss returned %s after "
           "%.1f s\n",
           rank, rcmsg_status_name(s), now_s() - t0);
    for (int i = 0; i < n; i++) {
        ranks[i] = i;
    }
    s = rcmsg_comm_create_ranks(rcmsg_comm_world(), n, ranks, 1, &c);
    if (s == RCMSG_OK) {
        s = rcmsg_allreduce(&one, &sum, 1, RCMSG_INT32, RCMSG_SUM, c);
        rcmsg_comm_free(&c);
    }
    printf("rank %d: allreduce of the %d survivors returned %s, sum %s\n", rank, n,
           rcmsg_status_name(s), sum == n ? "right" : "wrong");
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 50, rank, size, i;
    double in[1024], out[1024], t0 = 0;
    rcmsg_status_t s = RCMSG_OK;

    setvbuf(stdout, NULL, _IOLBF, 0);
    s = rcmsg_init();
    if (s != RCMSG_OK) {
        printf("rcmsg_init: %s\n", rcmsg_strerror(s));
        return s == RCMSG_ERR_NO_DEVICE ? 77 : 1;
    }
    rank = rcmsg_rank();
    size = rcmsg_size();
    if (size < 2) {
        printf("SKIP: needs at least 2 ranks\n");
        rcmsg_finalize();
        return 77;
    }
    for (i = 0; i < 1024; i++) {
        in[i] = rank + i;
    }
    for (i = 0; i < iters && s == RCMSG_OK; i++) {
        if (i == iters / 2 && rank == size - 1) {
            test_kill_self(rank);
        }
        t0 = now_s();
        s = rcmsg_allreduce(in, out, 1024, RCMSG_DOUBLE, RCMSG_SUM, rcmsg_comm_world());
    }
    printf("rank %d: allreduce %d returned %s after %.1f s\n", rank, i - 1, rcmsg_status_name(s),
           now_s() - t0);
    if (s != RCMSG_OK && argc > 2 && strcmp(argv[2], "after") == 0) {
        after_loss(rank, size);
    }
    t0 = now_s();
    s = rcmsg_finalize();
    printf("rank %d: finalized (%s) in %.1f s\n", rank, rcmsg_status_name(s), now_s() - t0);
    return 0;
}
